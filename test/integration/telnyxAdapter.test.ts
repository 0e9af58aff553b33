import { CarrierRejectedError } from '../../src/adapters/carrier/port';
import { decodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import { MediaSocketServer } from '../../src/adapters/carrier/mediaSocketServer';
import { dialKey } from '../../src/adapters/carrier/telnyx/dial';
import { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
import { postgresCreateAttempts } from '../../src/adapters/carrier/twilio/createAttempts';
import { createDb, type Db } from '../../src/platform/db/knex';
import { startTelnyxStub, telnyxCarrierOn, type TelnyxStub } from '../support/telnyxStub';

/** The Telnyx adapter on its own against the contract stub: idempotency, release, refusals, codec, DTMF, dial safety. */
describe('TelnyxCarrier', () => {
  let stub: TelnyxStub;
  let carrier: TelnyxCarrier;
  let db: Db;
  beforeAll(async () => {
    db = createDb(process.env.DATABASE_URL!, { max: 4 });
    stub = await startTelnyxStub();
    // Webhooks go to the stub's own sink here: the adapter's answers are what is tested.
    stub.setConnectionWebhookUrl(`${stub.url}/sink`);
    carrier = telnyxCarrierOn(stub, db);
  });
  afterAll(async () => {
    await stub.close();
    await db.destroy();
  });
  const orders = () => stub.requests.filter((r) => r.method === 'POST' && r.path === '/v2/number_orders');
  const dials = () => stub.requests.filter((r) => r.method === 'POST' && r.path === '/v2/calls');
  const callRequest = (language?: string) => ({
    callId: crypto.randomUUID(),
    from: '+14155550100',
    to: '+14155550101',
    eventsUrl: 'http://x/carrier/events',
    ...(language ? { language } : {}),
  });

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
    const multi = {
      transcription_engine: 'Telnyx',
      transcription_engine_config: {
        transcription_engine: 'Telnyx',
        transcription_model: 'openai/whisper-large-v3-turbo',
        language: 'auto_detect',
      },
      transcription_tracks: 'inbound',
    };
    expect(await placed('multi')).toEqual(multi);
    expect(await placed()).toEqual(multi);
  });

  describe('media streaming', () => {
    const port = 56_700 + (process.pid % 90);
    const media = new MediaSocketServer(`ws://127.0.0.1:${port}/telnyx/media`, port, '127.0.0.1');
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
