import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Telnyx from 'telnyx';
import { decodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import type { TelnyxWebhookBody } from '../../src/adapters/carrier/callbacks/telnyx/envelope';
import { receiveTelnyxEvent } from '../../src/domain/telnyxInbox/receive';
import { findInboxEvent } from '../../src/domain/telnyxInbox/store';
import { createLogger } from '../../src/platform/logger';
import { eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { checkTelnyxWebhookSettings } from '../../src/main/telnyxInbox';
import { useTelnyxLiveSuite } from '../support/telnyxHarness';
import { telnyxCarrierOn, type StubCall } from '../support/telnyxStub';
import { telnyxEventBody } from '../support/telnyxStubWebhooks';

/**
 * Telnyx's webhooks as Telnyx delivers them (issue 26, defect 5; the stub: test/support/telnyxStubWebhooks.ts): a
 * voice webhook once to the primary URL, then once to the failover URL, never again; sometimes twice; messaging
 * webhooks up to 3 times per URL, to be answered within 2 s. Switchboard stores each in its inbox keyed by the event
 * id, answers 200 at once, and processes it from there (src/domain/telnyxInbox/).
 */
describe('Telnyx webhook delivery', () => {
  const { ctx, stub, receiver, eventsUrl } = useTelnyxLiveSuite();
  afterEach(() => {
    stub.webhooks.duplicate([]);
    stub.setConnectionWebhookUrl(eventsUrl());
    stub.setConnectionFailoverUrl(undefined);
  });
  beforeEach(() => {
    receiver.respondWith((req) => (req.body.event === 'message' ? { status: 200, body: '{}' } : undefined));
  });
  const live = () => ctx.tenant.keys.live;
  const { lines, calls, messages } = customer(ctx, { key: live, line: () => webhookLine({ webhook_url: receiver.url }) });
  const callOf = (callId: string): StubCall | undefined =>
    [...stub.calls.values()].find((c) => decodeClientState(c.commands[0]?.body.client_state).c === callId);
  const events = (name: string, callId: string) => receiver.requests.filter((r) => r.body.event === name && r.body.call_id === callId);
  /** The stub's delivery attempts of `eventType` about a call or message. */
  const deliveriesOf = (eventType: string, about: string) =>
    stub.webhooks.deliveries.filter((d) => d.eventType === eventType && d.about === about);
  /** One pass of the inbox sweeper, as its schedule starts it every 5 s on a deployment with Telnyx. */
  const sweep = () =>
    ctx.h.temporal.workflow.execute('sweepTelnyxInboxWorkflow', {
      taskQueue: ctx.h.config.taskQueue,
      workflowId: `telnyx-inbox-sweep-${crypto.randomUUID()}`,
    });
  /** Telnyx answered 200 once the message was stored; it is taken right after. */
  const texted = async (lineId: string, from: string, to: string) => {
    await stub.inboundSms(from, to, 'Hi');
    await eventually(async () => ((await messages.conversation(lineId, from)).body.messages?.length ? true : undefined));
  };
  const inboxOf = (callControlId: string): Promise<Array<{ event_id: string; event_type: string; outcome: string | null }>> =>
    ctx.h.db('telnyx_inbox').where({ call_control_id: callControlId }).orderBy('received_at');
  /** An outbound call on a new line, once Telnyx has it. */
  const placedCall = async (): Promise<{ id: string; call: StubCall }> => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id as string;
    return { id, call: await eventually(async () => callOf(id)) };
  };
  /** An outbound call on a new line, answered at Telnyx and in progress. */
  const answeredCall = async (): Promise<{ id: string; call: StubCall }> => {
    const placed = await placedCall();
    await stub.answer(placed.call.id);
    await calls.untilStatus(placed.id, ['in_progress']);
    return placed;
  };
  /** Stores a webhook's body in the inbox as the API does when it receives it, and processes nothing (an API that died then). */
  const storedOnly = (body: TelnyxWebhookBody) =>
    receiveTelnyxEvent({ db: ctx.h.db, log: createLogger('test', 'silent') }, body, Buffer.from(JSON.stringify(body)));

  it('a duplicated delivery (re-signed) is stored once and acted on once: one caller sentence is one message event', async () => {
    const { id, call } = await placedCall();
    stub.webhooks.duplicate('all');
    await stub.answer(call.id);
    await calls.untilStatus(id, ['in_progress']);
    await stub.say(call.id, 'One table for two, please');
    await eventually(async () => (events('message', id).length === 1 ? true : undefined));
    await stub.hangUpRemote(call.id);
    await calls.untilStatus(id, ['completed']);
    await eventually(async () => (events('call_ended', id).length === 1 ? true : undefined));

    const rows = await inboxOf(call.id);
    const transcription = rows.filter((r) => r.event_type === 'call.transcription');
    expect(transcription).toHaveLength(1);
    // Both deliveries were answered 200 (the second a second later, signed again), and the event was kept once.
    expect(deliveriesOf('call.transcription', call.id).map((d) => [d.duplicate, d.status])).toEqual([
      [false, 200],
      [true, 200],
    ]);
    // A pause proving no second `message` event follows the duplicate (it would within the processing of one event):
    // waits out that second event.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(events('message', id)).toHaveLength(1);
    expect(events('call_ended', id)).toHaveLength(1);
  });

  it('a captured webhook replayed under the 15 other base64 spellings of its signature is refused each time: one sentence, one turn (L14)', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id;
    const call = await eventually(async () => callOf(id));
    await stub.answer(call.id);
    await calls.untilStatus(id, ['in_progress']);
    await stub.say(call.id, 'A table by the window');
    await eventually(async () => (events('message', id).length === 1 ? true : undefined));
    const [captured] = deliveriesOf('call.transcription', call.id);
    const signature = captured.sent.headers['telnyx-signature-ed25519'];
    // 64 bytes are 86 base64 characters and "==": the last character's four low bits carry nothing.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const last = alphabet.indexOf(signature[85]);
    const spellings = Array.from({ length: 16 }, (_, low) => `${signature.slice(0, 85)}${alphabet[(last & ~15) | low]}==`).filter(
      (spelling) => spelling !== signature,
    );
    expect(spellings).toHaveLength(15);
    for (const spelling of spellings) expect(Buffer.from(spelling, 'base64')).toEqual(Buffer.from(signature, 'base64'));
    const replayed = [];
    for (const spelling of spellings) {
      const response = await fetch(eventsUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...captured.sent.headers, 'telnyx-signature-ed25519': spelling },
        body: captured.sent.body,
      });
      replayed.push(response.status);
    }
    expect(replayed).toEqual(spellings.map(() => 401));
    // A 401 is answered before anything is stored: the inbox, from which alone a turn is taken, holds the one sentence.
    expect((await inboxOf(call.id)).filter((r) => r.event_type === 'call.transcription')).toHaveLength(1);
    expect(events('message', id)).toHaveLength(1);
    await stub.hangUpRemote(call.id);
    await calls.untilStatus(id, ['completed']);
  });

  it('a voice webhook the primary URL refuses goes once to the failover URL, never again to the primary; the call is settled', async () => {
    // The primary answers 503 (an instance being deployed); the failover URL is this API.
    const down = http.createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    try {
      const { id, call } = await answeredCall();
      // From now on Telnyx posts the call's webhooks to the primary that is down, and fails over.
      call.webhookUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}/carrier/telnyx/events`;
      stub.setConnectionFailoverUrl(eventsUrl());
      await stub.hangUpRemote(call.id);
      expect((await calls.untilStatus(id, ['completed'])).end_cause).toBe('caller_hangup');
      expect(deliveriesOf('call.hangup', call.id).map((d) => [d.failover, d.attempt, d.status])).toEqual([
        [false, 1, 503],
        [true, 1, 200],
      ]);
    } finally {
      await new Promise((resolve) => down.close(resolve));
    }
  });

  it('a voice webhook nobody takes is lost at Telnyx (no retry): the stub makes exactly one attempt', async () => {
    const { id, call } = await placedCall();
    // The dial's call.initiated is delivered on its own schedule: count from after it.
    await eventually(
      async () => stub.webhooks.deliveries.some((d) => d.about === call.id && d.eventType === 'call.initiated') || undefined,
    );
    const before = stub.webhooks.deliveries.length;
    call.webhookUrl = `${ctx.h.config.publicBaseUrl}/carrier/telnyx/nowhere`;
    await stub.answer(call.id);
    expect(
      stub.webhooks.deliveries
        .slice(before)
        .filter((d) => d.about === call.id)
        .map((d) => [d.eventType, d.attempt, d.status]),
    ).toEqual([['call.answered', 1, 404]]);
    call.webhookUrl = eventsUrl();
    await calls.hangUp(id);
  });

  it('a crash between storing an event and processing it loses nothing: the sweeper processes the stored call.hangup', async () => {
    const { id, call } = await answeredCall();
    // The API stored Telnyx's call.hangup, answered 200, and died before processing it.
    const stored = await storedOnly(
      telnyxEventBody('call.hangup', {
        call_control_id: call.id,
        call_leg_id: `leg-${call.id}`,
        call_session_id: `session-${call.id}`,
        client_state: call.clientState,
        hangup_cause: 'normal_clearing',
        hangup_source: 'callee',
      }),
    );
    expect((await findInboxEvent(ctx.h.db, stored.eventId)).processed_at).toBeNull();
    // The sweeper's pass, as its schedule starts it every 5 s.
    const swept = await sweep();
    expect(swept).toMatchObject({ processed: expect.any(Number) });
    expect((await calls.untilStatus(id, ['completed'])).end_cause).toBe('caller_hangup');
    expect(await findInboxEvent(ctx.h.db, stored.eventId)).toMatchObject({ outcome: 'done' });
  });

  it('an event retried after it was translated is applied from its stored translation, never translated (and its state moved) twice', async () => {
    const { id, call } = await answeredCall();
    const stored = await storedOnly(
      telnyxEventBody('call.speak.ended', {
        call_control_id: call.id,
        call_leg_id: `leg-${call.id}`,
        call_session_id: `session-${call.id}`,
        status: 'completed',
      }),
    );
    // Translated once (it could have moved the call's speech queue) before applying it failed: what it became is kept.
    const translated = {
      kind: 'call',
      event: { type: 'call.completed', call_id: id, carrier_call_id: call.id, at: Date.now(), ended_by: 'caller', answered: true },
    };
    await ctx.h
      .db('telnyx_inbox')
      .where({ event_id: stored.eventId })
      .update({ translation: JSON.stringify(translated) });
    await sweep();
    // The stored translation was applied (the call ended), the body not translated again.
    expect((await calls.untilStatus(id, ['completed'])).end_cause).toBe('caller_hangup');
    expect(await findInboxEvent(ctx.h.db, stored.eventId)).toMatchObject({ outcome: 'done', translation: translated });
  });

  it('call.recording.saved as documented, after a speak replaced client_state: the recording is found by its leg', async () => {
    const line = await lines.create({ recording_enabled: true, begin_message: 'This call is recorded.' });
    const id = (await calls.place(line.id)).body.call.id;
    const call = await eventually(async () => callOf(id));
    await stub.answer(call.id);
    await eventually(async () => (call.speeches.length === 1 ? true : undefined));
    await stub.finishSpeech(call.id);
    await stub.hangUpRemote(call.id);
    const recorded = await eventually(async () => (await calls.get(id)).recording_url ?? undefined);
    expect(recorded).toBe(`${ctx.h.apiUrl}/api/v1/calls/${id}/recording`);
    // Telnyx's recording is kept behind Switchboard's URL.
    const [recordingId] = [...stub.recordings.entries()].find(([, r]) => r.callControlId === call.id)!;
    expect((await ctx.h.db('calls').where({ id }).first()).recording_url).toBe(`https://api.telnyx.com/v2/recordings/${recordingId}`);
    // The webhook named no call of ours (its client_state was the speak's) and neither the call_control_id nor the recording.
    const saved = stub.webhooks.deliveries.find((d) => d.eventType === 'call.recording.saved' && d.about === `leg-${call.id}`)!;
    const row = await findInboxEvent(ctx.h.db, saved.eventId);
    expect(decodeClientState(row.body.data.payload.client_state).c).toBeUndefined();
    expect(Object.keys(row.body.data.payload).sort()).toEqual([
      'call_leg_id',
      'call_session_id',
      'channels',
      'client_state',
      'connection_id',
      'public_recording_urls',
      'recording_ended_at',
      'recording_started_at',
      'recording_urls',
    ]);
    expect(stub.requests.some((r) => r.path === '/v2/recordings' && r.method === 'GET')).toBe(true);
  });

  it('receipts that arrive before the send is answered are answered 200, wait in the inbox, and are taken once the message is recorded', async () => {
    const line = await lines.create();
    const number = '+14155550181';
    await texted(line.id, number, line.phone_number!);
    stub.scriptMessages({ receiptsFirst: true, status: 'delivered' });
    const sent = await messages.send({ line_id: line.id, to: number, text: 'Before you knew it' });
    expect(sent.status).toBe(201);
    // They wait in the inbox (no message has their id yet) and are taken once the send activity records it (no sweeper runs here).
    const delivered = await messages.untilStatus(line.id, number, sent.body.id, 'delivered');
    expect(delivered.error_code).toBeNull();
    const carrierId = stub.messages.find((m) => m.text === 'Before you knew it')!.id;
    const receipts = stub.webhooks.deliveries.filter((d) => d.about === carrierId);
    // One attempt each, answered 200 at once (before: 404, 3 attempts, then lost).
    expect(receipts.map((d) => [d.eventType, d.attempt, d.status])).toEqual([
      ['message.sent', 1, 200],
      ['message.finalized', 1, 200],
    ]);
  });

  it('delivery_unconfirmed and expired end a message undelivered (charged), with Telnyx’s status as the error code', async () => {
    const line = await lines.create();
    const number = '+14155550182';
    await texted(line.id, number, line.phone_number!);
    stub.scriptMessages({ status: 'delivery_unconfirmed' }, { status: 'expired' });
    const first = await messages.send({ line_id: line.id, to: number, text: 'Are you there?' });
    // The stub scripts outcomes in the order sends reach it, and each send is its own activity: the second starts once the first is there.
    await eventually(async () => stub.messages.find((m) => m.text === 'Are you there?'));
    const second = await messages.send({ line_id: line.id, to: number, text: 'Still there?' });
    const unconfirmed = await messages.untilStatus(line.id, number, first.body.id, 'undelivered');
    const expired = await messages.untilStatus(line.id, number, second.body.id, 'undelivered');
    expect([unconfirmed.error_code, expired.error_code]).toEqual(['delivery_unconfirmed', 'expired']);
    const charged = await eventually(async () => {
      const got = await messages.get(line.id, number, first.body.id);
      return got?.charge_cents ? got : undefined;
    });
    expect(charged.charge_cents).toBeGreaterThan(0);
  });

  it('a message’s webhooks go to TELNYX_WEBHOOK_FAILOVER_URL after 3 attempts at the primary (sent with the message)', async () => {
    const down = http.createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    try {
      const adapter = telnyxCarrierOn(stub, ctx.h.db, {
        webhookUrl: `http://127.0.0.1:${(down.address() as AddressInfo).port}/carrier/telnyx/events`,
        webhookFailoverUrl: `${stub.url}/sink`,
      });
      const { carrierMessageId } = await adapter.sendSms({
        messageId: crypto.randomUUID(),
        from: '+14155550190',
        to: '+14155550191',
        text: 'Failing over',
        statusUrl: '',
      });
      const send = stub.requests.find((r) => r.path === '/v2/messages' && r.body.text === 'Failing over');
      expect(send?.body).toMatchObject({ webhook_failover_url: `${stub.url}/sink` });
      await eventually(async () => (deliveriesOf('message.finalized', carrierMessageId).some((d) => d.status === 200) ? true : undefined));
      expect(deliveriesOf('message.sent', carrierMessageId).map((d) => [d.failover, d.attempt, d.status])).toEqual([
        [false, 1, 503],
        [false, 2, 503],
        [false, 3, 503],
        [true, 1, 200],
      ]);
    } finally {
      await new Promise((resolve) => down.close(resolve));
    }
  });

  it('at start the worker reads where Telnyx sends webhooks and warns of a missing failover URL (voice: the application only)', async () => {
    const warnings: string[] = [];
    const log = createLogger('test', 'silent');
    log.warn = ((_: unknown, message: string) => void warnings.push(message)) as typeof log.warn;
    const problems = await checkTelnyxWebhookSettings(ctx.h.config, log);
    expect(problems).toEqual([
      expect.stringMatching(
        /^the Call Control application \(TELNYX_CONNECTION_ID\) has no failover URL: a webhook its primary URL does not take is lost/,
      ),
      expect.stringMatching(/^the messaging profile \(TELNYX_MESSAGING_PROFILE_ID\) has no failover URL/),
    ]);
    expect(warnings).toEqual(problems.map((p) => `telnyx webhooks: ${p}`));
    const failover = 'https://failover.example.com/carrier/telnyx/events';
    stub.setConnectionFailoverUrl(failover);
    const configured = { ...ctx.h.config, telnyx: { ...ctx.h.config.telnyx, webhookFailoverUrl: failover } };
    expect(await checkTelnyxWebhookSettings(configured, log)).toEqual([]);
    stub.setConnectionWebhookUrl('https://elsewhere.example.com/hooks');
    expect(await checkTelnyxWebhookSettings(configured, log)).toEqual([
      `the Call Control application (TELNYX_CONNECTION_ID) sends webhooks to https://elsewhere.example.com/hooks, not ${eventsUrl()}: inbound calls never reach Switchboard`,
      `the messaging profile (TELNYX_MESSAGING_PROFILE_ID) sends webhooks to https://elsewhere.example.com/hooks, not ${eventsUrl()}: inbound messages never reach Switchboard`,
    ]);
  });

  it('an event Switchboard does not act on is answered 200, stored with its outcome and logged, never dropped', async () => {
    const raw = JSON.stringify(
      telnyxEventBody('call.dtmf.received', {
        call_control_id: 'v3:not-ours',
        call_leg_id: 'leg-x',
        call_session_id: 'session-x',
        digit: '5',
      }),
    );
    const response = await fetch(eventsUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...stub.sign(raw) },
      body: raw,
    });
    expect(response.status).toBe(200);
    const eventId = (JSON.parse(raw) as { data: { id: string } }).data.id;
    const row = await eventually(async () => {
      const stored = await findInboxEvent(ctx.h.db, eventId);
      return stored?.processed_at ? stored : undefined;
    });
    expect(row).toMatchObject({ event_type: 'call.dtmf.received', outcome: 'unhandled', reason: 'event call.dtmf.received' });
    expect(row.body).toEqual(JSON.parse(raw));
  });

  it('the package’s own verification (the oracle) and Switchboard agree on what a valid signature is', async () => {
    const sdk = new Telnyx({ apiKey: stub.apiKey, publicKey: stub.publicKey, maxRetries: 0 });
    const raw = JSON.stringify(telnyxEventBody('call.bridged', {}));
    const { privateKey } = crypto.generateKeyPairSync('ed25519');
    const now = Math.floor(Date.now() / 1000);
    const forged = {
      'telnyx-timestamp': String(now),
      'telnyx-signature-ed25519': crypto.sign(null, Buffer.from(`${now}|${raw}`), privateKey).toString('base64'),
    };
    for (const [headers, valid] of [
      [stub.sign(raw), true],
      [stub.sign(raw, now - 301), false],
      [forged, false],
    ] as const) {
      const sdkAccepts = await sdk.webhooks.unwrap(raw, { headers }).then(
        () => true,
        () => false,
      );
      const response = await fetch(eventsUrl(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
      expect([sdkAccepts, response.status === 200]).toEqual([valid, valid]);
    }
  });
});
