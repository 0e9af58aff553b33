import { CarrierRejectedError } from '../../src/adapters/carrier/port';
import { decodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import { MediaSocketServer } from '../../src/adapters/carrier/mediaSocketServer';
import { dialKey } from '../../src/adapters/carrier/telnyx/dial';
import { MAX_NUMBER_ORDERS, NumberOrderPendingError } from '../../src/adapters/carrier/telnyx/numbers';
import { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
import { postgresCreateAttempts } from '../../src/adapters/carrier/twilio/createAttempts';
import type { Db } from '../../src/platform/db/knex';
import { startTelnyxStub, telnyxCarrierOn, useTelnyxAdapter, type TelnyxStub } from '../support/telnyxStub';
import { listenerPort } from '../support/listenerPort';

const CAMPAIGN = '4b300178-131c-d902-d54e-72d90ba1620j';

/** The Telnyx adapter on its own against the contract stub: idempotency, release, refusals, codec, DTMF, dial safety. */
describe('TelnyxCarrier', () => {
  const suite = useTelnyxAdapter({ campaignId: CAMPAIGN });
  let stub: TelnyxStub;
  let carrier: TelnyxCarrier;
  let db: Db;
  beforeAll(() => ({ stub, carrier, db } = suite));
  const orders = () => stub.requests.filter((r) => r.method === 'POST' && r.path === '/v2/number_orders');
  const dials = () => stub.requests.filter((r) => r.method === 'POST' && r.path === '/v2/calls');
  const callRequest = (language?: string) => ({
    callId: crypto.randomUUID(),
    from: '+14155550100',
    to: '+14155550101',
    eventsUrl: 'http://x/carrier/events',
    ...(language ? { language } : {}),
  });
  /** What Temporal does with the provisioning activity: retry its retryable failures (with backoff, elided here). */
  const provisionWithRetries = async (key: string) => {
    const failures: Error[] = [];
    for (;;) {
      try {
        return { number: await carrier.provisionNumber({ idempotencyKey: key, country: 'US' }), failures };
      } catch (err) {
        if (err instanceof CarrierRejectedError || failures.length > 10) throw Object.assign(err as Error, { failures });
        failures.push(err as Error);
      }
    }
  };
  const ordersOf = (key: string) => stub.orders.filter((o) => o.customer_reference?.startsWith(key));

  it('provisions once per idempotency key, and releases by deleting the number (twice is fine)', async () => {
    const first = await carrier.provisionNumber({ idempotencyKey: 'line:a', country: 'US' });
    const again = await carrier.provisionNumber({ idempotencyKey: 'line:a', country: 'US' });
    expect(again.phoneNumber).toBe(first.phoneNumber);
    expect(orders()).toHaveLength(1);
    const other = await carrier.provisionNumber({ idempotencyKey: 'line:b', country: 'US' });
    expect(other.phoneNumber).not.toBe(first.phoneNumber);
    await carrier.releaseNumber({ phoneNumber: first.phoneNumber });
    expect(stub.numbers.map((n) => n.phone_number)).toEqual([other.phoneNumber]);
    await carrier.releaseNumber({ phoneNumber: first.phoneNumber });
    expect(stub.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });

  describe('number orders are read by their status (defect 7)', () => {
    it('a pending order fails the attempt retryably; the next attempt adopts it once Telnyx completes it, buying nothing twice', async () => {
      stub.scriptOrders({ outcome: 'success', pendingReads: 2 });
      const { number, failures } = await provisionWithRetries('line:pending');
      expect(failures.map((f) => f.constructor)).toEqual([NumberOrderPendingError, NumberOrderPendingError]);
      expect(ordersOf('line:pending')).toHaveLength(1);
      expect(ordersOf('line:pending')[0]).toMatchObject({ status: 'success', customer_reference: 'line:pending' });
      expect(number.phoneNumber).toBe(ordersOf('line:pending')[0].phone_numbers![0].phone_number);
      expect(stub.numbers.map((n) => n.phone_number)).toContain(number.phoneNumber);
      expect(await carrier.provisionNumber({ idempotencyKey: 'line:pending', country: 'US' })).toEqual(number);
    });

    it('a failed order never becomes the number: the next attempt orders again under a fresh customer_reference', async () => {
      stub.scriptOrders('failure', 'success');
      const { number, failures } = await provisionWithRetries('line:failed-once');
      expect(failures.map((f) => f.message)).toEqual([
        expect.stringMatching(/pending/),
        expect.stringMatching(/^Telnyx number order \S+ failed; the next attempt orders another number$/),
        expect.stringMatching(/pending/),
      ]);
      const placed = ordersOf('line:failed-once');
      expect(placed.map((o) => [o.customer_reference, o.status])).toEqual([
        ['line:failed-once', 'failure'],
        ['line:failed-once#2', 'success'],
      ]);
      expect(number.phoneNumber).toBe(placed[1].phone_numbers![0].phone_number);
      expect(number.phoneNumber).not.toBe(placed[0].phone_numbers![0].phone_number);
      expect(stub.numbers.map((n) => n.phone_number)).not.toContain(placed[0].phone_numbers![0].phone_number);
    });

    it(`failure after failure is a refusal once ${MAX_NUMBER_ORDERS} orders failed, naming Telnyx's order`, async () => {
      stub.scriptOrders(...Array.from({ length: MAX_NUMBER_ORDERS }, () => 'failure' as const));
      const refused = await provisionWithRetries('line:failing').catch((err: Error) => err);
      expect(refused).toBeInstanceOf(CarrierRejectedError);
      const placed = ordersOf('line:failing');
      expect(placed.map((o) => o.status)).toEqual(Array.from({ length: MAX_NUMBER_ORDERS }, () => 'failure'));
      expect((refused as Error).message).toBe(
        `Telnyx number order ${placed.at(-1)!.id} failed (after ${MAX_NUMBER_ORDERS} orders for this line)`,
      );
      expect(new Set(placed.map((o) => o.customer_reference)).size).toBe(MAX_NUMBER_ORDERS);
      for (const order of placed) expect(stub.numbers.map((n) => n.phone_number)).not.toContain(order.phone_numbers![0].phone_number);
    });

    it('an order pending on regulatory requirements (requirements_met: false) is refused instead of waited on', async () => {
      stub.scriptOrders('requirements');
      const refused = await carrier.provisionNumber({ idempotencyKey: 'line:documents', country: 'US' }).catch((err: Error) => err);
      expect(refused).toBeInstanceOf(CarrierRejectedError);
      expect((refused as CarrierRejectedError).message).toMatch(/requirements_met: false.*TELNYX_REQUIREMENT_GROUPS/);
      expect((refused as CarrierRejectedError).refusal).toEqual({ provider: 'telnyx', code: 'requirements_met_false' });
    });
  });

  it('a number order in a country with regulatory requirements carries that country’s requirement group', async () => {
    stub.offerNumbers('+4930901820');
    const regulated = telnyxCarrierOn(stub, db, { requirementGroups: { DE: '3fa85f64-5717-4562-b3fc-2c963f66afa6' } });
    await regulated.provisionNumber({ idempotencyKey: 'line:de', country: 'DE' });
    const order = stub.requests.find(
      (r) => r.method === 'POST' && r.path === '/v2/number_orders' && r.body.customer_reference === 'line:de',
    );
    expect(order?.body.phone_numbers).toEqual([
      { phone_number: '+4930901820', requirement_group_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
    ]);
  });

  describe('US messaging: 10DLC campaign (issue 26 item 4)', () => {
    it('a US local number is assigned to the configured campaign once bought, idempotently on a retry', async () => {
      const { phoneNumber } = await carrier.provisionNumber({ idempotencyKey: 'line:campaign', country: 'US' });
      expect(stub.campaigns.get(phoneNumber)).toMatchObject({ phoneNumber, campaignId: CAMPAIGN, assignmentStatus: 'PENDING_ASSIGNMENT' });
      const assignments = () =>
        stub.requests.filter(
          (r) => r.method === 'POST' && r.path === '/v2/10dlc/phone_number_campaigns' && r.body.phoneNumber === phoneNumber,
        );
      expect(assignments().map((r) => r.body)).toEqual([{ phoneNumber, campaignId: CAMPAIGN }]);
      // A retry of the same provisioning (its answer lost after the assignment): Telnyx refuses the second assignment, which is ours.
      await carrier.provisionNumber({ idempotencyKey: 'line:campaign', country: 'US' });
      expect(assignments()).toHaveLength(2);
    });

    it('a toll-free number takes no 10DLC campaign (toll-free verification is per number)', async () => {
      stub.offerNumbers('+18885550142');
      const { phoneNumber } = await carrier.provisionNumber({ idempotencyKey: 'line:toll-free', country: 'US' });
      expect(phoneNumber).toBe('+18885550142');
      expect(stub.campaigns.has(phoneNumber)).toBe(false);
    });

    it('a number another campaign holds is refused, and given back rather than kept and billed', async () => {
      stub.offerNumbers('+12125550143');
      const other = telnyxCarrierOn(stub, db, { campaignId: 'another-campaign' });
      await other.provisionNumber({ idempotencyKey: 'line:other-campaign', country: 'US' });
      // As if the number were moved to another campaign before our retry assigned it.
      const ours = telnyxCarrierOn(stub, db, { campaignId: CAMPAIGN });
      const refused = await ours.provisionNumber({ idempotencyKey: 'line:other-campaign', country: 'US' }).catch((err: Error) => err);
      expect(refused).toBeInstanceOf(CarrierRejectedError);
      expect(stub.numbers.map((n) => n.phone_number)).not.toContain('+12125550143');
    });
  });

  it('a country without numbers is a refusal, not a retry', async () => {
    await expect(carrier.provisionNumber({ idempotencyKey: 'line:c', country: 'ZZ' })).rejects.toBeInstanceOf(CarrierRejectedError);
  });

  it('dials once per call id; hang-up and stop succeed on an ended call, speak is refused on a call not answered', async () => {
    const request = callRequest();
    const before = stub.calls.size;
    const { carrierCallId } = await carrier.placeCall(request);
    expect((await carrier.placeCall(request)).carrierCallId).toBe(carrierCallId);
    expect(stub.calls.size).toBe(before + 1);
    await expect(carrier.speak({ carrierCallId, speakId: 's1', text: 'Hi' })).rejects.toBeInstanceOf(CarrierRejectedError);
    await stub.answer(carrierCallId);
    await carrier.speak({ carrierCallId, speakId: 's1', text: 'Hi', voice: 'nova' });
    expect(stub.calls.get(carrierCallId)!.speeches[0]).toMatchObject({ text: 'Hi', voice: 'Azure.en-GB-AdaMultilingualNeural' });
    await carrier.hangUp({ carrierCallId });
    await carrier.hangUp({ carrierCallId });
    await carrier.stopSpeaking({ carrierCallId });
  });

  it('a dial whose answer was lost is found among the connection’s active calls by its client_state, not dialled twice', async () => {
    const request = callRequest();
    stub.loseNextAnswer('/v2/calls');
    await expect(carrier.placeCall(request)).rejects.not.toBeInstanceOf(CarrierRejectedError);
    const dialled = [...stub.calls.values()].filter((c) => decodeClientState(c.clientState).c === request.callId);
    expect(dialled).toHaveLength(1);
    const before = dials().length;
    expect((await carrier.placeCall(request)).carrierCallId).toBe(dialled[0].id);
    expect(dials()).toHaveLength(before);
    expect(stub.requests.some((r) => r.path === '/v2/connections/conn-1/active_calls')).toBe(true);
  });

  it('a repeated dial Telnyx refuses (its answer to a duplicate command_id is undocumented) never fails the call: a later attempt takes the id the call’s webhook recorded', async () => {
    const request = callRequest();
    stub.loseNextAnswer('/v2/calls');
    await expect(carrier.placeCall(request)).rejects.toThrow();
    const first = [...stub.calls.values()].find((c) => decodeClientState(c.clientState).c === request.callId)!;
    // The call has ended (not among the active calls) before the retry: the repeated dial is refused.
    await stub.hangUpRemote(first.id);
    const retried = carrier.placeCall(request);
    await expect(retried).rejects.not.toBeInstanceOf(CarrierRejectedError);
    expect(dials().filter((r) => r.body.command_id === request.callId)).toHaveLength(2);
    // Its `call.initiated` named the call id: the API records the id (src/main/carrierDecliner.ts `dialled`).
    await postgresCreateAttempts(db).finish('call', dialKey(request.callId), first.id);
    expect((await carrier.placeCall(request)).carrierCallId).toBe(first.id);
    expect([...stub.calls.values()].filter((c) => decodeClientState(c.clientState).c === request.callId)).toHaveLength(1);
  });

  it('send_dtmf carries a command_id from the press: a retried press plays the tones once', async () => {
    const { carrierCallId } = await carrier.placeCall(callRequest());
    await stub.answer(carrierCallId);
    await carrier.sendDigits({ carrierCallId, digits: '12#', pressId: 'wf-1:7' });
    await carrier.sendDigits({ carrierCallId, digits: '12#', pressId: 'wf-1:7' });
    const call = stub.calls.get(carrierCallId)!;
    expect(call.commands.filter((c) => c.action === 'send_dtmf').map((c) => c.body.command_id)).toEqual(['dtmf:wf-1:7', 'dtmf:wf-1:7']);
    expect(call.tones).toEqual(['12#']);
    await carrier.hangUp({ carrierCallId });
  });

  it('transcription follows the line’s language: Google in a pinned one (Hebrew is iw), Whisper auto-detect for multi', async () => {
    const placed = async (language?: string) => {
      const { carrierCallId } = await carrier.placeCall(callRequest(language));
      return stub.calls.get(carrierCallId)!.commands[0].body.transcription_config;
    };
    expect(await placed('he')).toEqual({
      transcription_engine: 'Google',
      transcription_engine_config: { transcription_engine: 'Google', language: 'iw', interim_results: true },
      transcription_tracks: 'inbound',
    });
    expect(await placed('en')).toMatchObject({ transcription_engine_config: { language: 'en', model: 'phone_call' } });
    // `multi`, and a call that names no language (the port's default).
    for (const language of ['multi', undefined])
      expect(await placed(language)).toMatchObject({
        transcription_engine: 'Telnyx',
        transcription_engine_config: { transcription_model: 'openai/whisper-large-v3-turbo', language: 'auto_detect' },
      });
  });

  describe('media streaming', () => {
    // A port nothing takes by chance (test files run in parallel), listened on at once as the worker does.
    let media: MediaSocketServer;
    beforeAll(async () => {
      const port = await listenerPort();
      media = new MediaSocketServer(`ws://127.0.0.1:${port}/telnyx/media`, port, '127.0.0.1');
      await media.start();
    });
    const withMedia = (target: TelnyxStub) =>
      new TelnyxCarrier(
        {
          apiKey: target.apiKey,
          baseUrl: target.baseUrl,
          connectionId: 'conn-1',
          messagingProfileId: 'p',
          webhookUrl: `${target.url}/sink`,
          timeoutMs: 3_000,
        },
        { db, media },
      );
    const answered = async (target: TelnyxStub, adapter: TelnyxCarrier) => {
      const { carrierCallId } = await adapter.placeCall(callRequest());
      await target.answer(carrierCallId);
      return carrierCallId;
    };

    it('streaming_start forces PCMU both ways, and a start in PCMU opens the stream', async () => {
      const adapter = withMedia(stub);
      const carrierCallId = await answered(stub, adapter);
      const stream = await adapter.openMediaStream({ carrierCallId });
      expect(stub.calls.get(carrierCallId)!.commands.find((c) => c.action === 'streaming_start')?.body).toMatchObject({
        stream_codec: 'PCMU',
        stream_bidirectional_codec: 'PCMU',
        stream_bidirectional_mode: 'rtp',
      });
      await stream.close();
      await adapter.hangUp({ carrierCallId });
    });

    it('a start in another encoding (Telnyx could not transcode a G.722 call) is refused as a stream that cannot open', async () => {
      const g722 = await startTelnyxStub({ callCodec: 'G722', transcodes: false });
      try {
        const adapter = withMedia(g722);
        const carrierCallId = await answered(g722, adapter);
        await expect(adapter.openMediaStream({ carrierCallId })).rejects.toThrow(/Telnyx streams G722, not PCMU/);
        await expect(adapter.openMediaStream({ carrierCallId })).rejects.toBeInstanceOf(CarrierRejectedError);
        const socket = g722.calls.get(carrierCallId)!.media!.socket;
        await new Promise<void>((resolve) => (socket.readyState === socket.CLOSED ? resolve() : socket.once('close', () => resolve())));
      } finally {
        await g722.close();
      }
    });
  });

  it('a wrong API key is a refusal; audio lines are not available without a media listener', async () => {
    const wrong = telnyxCarrierOn(stub, db, { apiKey: 'KEY-wrong' });
    await expect(
      wrong.sendSms({ messageId: 'm', from: '+14155550100', to: '+14155550101', text: 'x', statusUrl: '' }),
    ).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.openMediaStream({ carrierCallId: 'v3:none' })).rejects.toBeInstanceOf(CarrierRejectedError);
  });
});
