import crypto from 'node:crypto';
import { startEchoAudioHandler } from '../support/echoAudioHandler';
import WebSocket from 'ws';
import { decodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import { MAX_NUMBER_ORDERS } from '../../src/adapters/carrier/telnyx/numbers';
import { KEYWORD_REPLIES } from '../../src/domain/messages/rules';
import { runCommand } from '../../src/main/cli';
import { eventually, webhookLine } from '../support/harness';
import { customer, type Line } from '../support/customer';
import { useTelnyxLiveSuite } from '../support/telnyxHarness';
import type { StubCall } from '../support/telnyxStub';
import { telnyxEventBody } from '../support/telnyxStubWebhooks';

/**
 * The simulator's scenarios on the Telnyx carrier (CARRIER_PROVIDER_LIVE=telnyx): the worker drives a
 * local contract stub of Telnyx's API through the `telnyx` package, and the stub's signed webhooks come
 * back through `/carrier/telnyx/events`. Telnyx has no test mode, so live keys (test keys run on the
 * simulator: ./telnyxTestEnvironment.test.ts).
 */
describe('Telnyx carrier', () => {
  const { ctx, stub, receiver } = useTelnyxLiveSuite({ campaignId: 'stub-campaign' }, { mediaListener: true });
  const replies = new Map<string, string>();
  // The receiver is emptied before each test (useTelnyxLiveSuite).
  beforeEach(() => {
    replies.clear();
    receiver.respondWith((req) => {
      if (req.body.event !== 'message') return undefined;
      const reply = replies.get(String(req.body.text));
      return { status: 200, body: reply === undefined ? '{}' : JSON.stringify({ text: reply }) };
    });
  });
  const live = () => ctx.tenant.keys.live;
  const { lines, calls, messages } = customer(ctx, { key: live, line: () => webhookLine({ webhook_url: receiver.url }) });
  const callOf = (callId: string): StubCall | undefined =>
    [...stub.calls.values()].find(
      (c) => decodeClientState(c.commands.find((x) => x.action === 'dial' || x.action === 'answer')?.body.client_state).c === callId,
    );
  const speeches = (callId: string) => callOf(callId)?.speeches ?? [];
  const actions = (callId: string) => (callOf(callId)?.commands ?? []).map((c) => c.action);
  const events = (name: string) => receiver.requests.filter((r) => r.body.event === name);

  it('a live line gets its number from a Telnyx number order, assigned to the connection, the messaging profile and the 10DLC campaign', async () => {
    const line = await lines.create();
    const order = stub.requests.find(
      (r) => r.path === '/v2/number_orders' && r.method === 'POST' && r.body.customer_reference === `line:${line.id}`,
    );
    expect(order?.body).toMatchObject({ connection_id: 'stub-connection', messaging_profile_id: 'stub-profile' });
    expect(line.phone_number).toBe((order!.body.phone_numbers as Array<{ phone_number: string }>)[0].phone_number);
    expect(stub.numbers.some((n) => n.phone_number === line.phone_number)).toBe(true);
    // A US local number texts US phones only within a 10DLC campaign: the configured one (TELNYX_10DLC_CAMPAIGN_ID).
    expect(stub.campaigns.get(line.phone_number)).toMatchObject({ phoneNumber: line.phone_number, campaignId: 'stub-campaign' });
  });

  describe('number orders are read by their status (defect 7)', () => {
    const ordersOf = (lineId: string) => stub.orders.filter((o) => o.customer_reference?.startsWith(`line:${lineId}`));

    it('a pending order becomes an active line once Telnyx completes it', async () => {
      stub.scriptOrders({ outcome: 'success', pendingReads: 2 });
      const created = await lines.post();
      expect(created.status).toBe(201);
      const line = await lines.untilActive(created.body.line.id, live());
      const [order] = ordersOf(line.id);
      expect(order).toMatchObject({ status: 'success', customer_reference: `line:${line.id}` });
      expect(line.phone_number).toBe(order.phone_numbers![0].phone_number);
      expect(ordersOf(line.id)).toHaveLength(1);
    });

    it('a failed order never becomes an active line: once every order fails the line is released with Telnyx’s answer', async () => {
      stub.scriptOrders(...Array.from({ length: MAX_NUMBER_ORDERS }, () => ({ outcome: 'failure' as const, pendingReads: 0 })));
      const id = (await lines.post()).body.line.id as string;
      const line = await lines.untilReleased(id, live());
      expect(line.phone_number).toBeNull();
      const orders = ordersOf(id);
      expect(orders.map((o) => o.status)).toEqual(Array.from({ length: MAX_NUMBER_ORDERS }, () => 'failure'));
      expect((await ctx.h.db('lines').where({ id }).first()).failure_reason).toBe(
        `carrier refused: Telnyx number order ${orders.at(-1)!.id} failed (after ${MAX_NUMBER_ORDERS} orders for this line)`,
      );
      const ordered = orders.map((o) => o.phone_numbers![0].phone_number);
      expect(stub.numbers.filter((n) => ordered.includes(n.phone_number))).toEqual([]);
    });
  });

  it('a live line chooses its Telnyx number; nothing matching is 422; a granted owned number is imported, and only detached on release (issue 26)', async () => {
    const tenant = ctx.tenant;
    await runCommand(ctx.h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    expect((await lines.create({ area_code: '415' })).phone_number).toMatch(/^\+1415555\d{4}$/);
    expect(await lines.create({ country: 'GB', number_type: 'mobile' })).toMatchObject({
      phone_number: expect.stringMatching(/^\+447400/),
    });
    const refused = await lines.post({ area_code: '564' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: { code: 'number_unavailable', details: [{ field: 'area_code' }] } });

    const owned = stub.own(`+1564555${2000 + crypto.randomInt(8000)}`);
    await runCommand(ctx.h.db, ['number', 'grant'], { workspace: tenant.workspaceId, env: 'live', number: owned.phone_number });
    const imported = await lines.create({ phone_number: owned.phone_number });
    expect(imported).toMatchObject({ phone_number: owned.phone_number, number_source: 'imported' });
    expect(owned).toMatchObject({ connection_id: 'stub-connection', messaging_profile_id: 'stub-profile' });
    expect((await lines.release(imported.id)).status).toBe(200);
    // Detaching is two updates (voice connection, messaging profile): wait for both.
    await eventually(
      async () => (owned.connection_id === '' && owned.messaging_profile_id === '' ? true : undefined),
      20_000,
      'the import to be detached',
    );
    expect(stub.numbers).toContain(owned);
    expect(owned.messaging_profile_id).toBe('');
  });

  it('a recording line records at Telnyx; the recording saved after the hang-up becomes the call’s recording_url', async () => {
    const line = await lines.create({ recording_enabled: true });
    const id = (await calls.place(line.id, '+14155550177')).body.call.id;
    const call = await eventually(async () => callOf(id));
    expect(call.commands[0].body).toMatchObject({ record: 'record-from-answer', record_format: 'wav' });
    await stub.answer(call.id);
    await calls.untilStatus(id, ['in_progress']);
    await stub.hangUpRemote(call.id);
    await calls.untilStatus(id, ['completed']);
    const recorded = await eventually(async () => {
      const got = (await calls.get(id)) as { recording_url: string | null };
      return got.recording_url ?? undefined;
    });
    expect(recorded).toBe(`${ctx.h.apiUrl}/api/v1/calls/${id}/recording`);
    // Telnyx's recording is kept behind Switchboard's URL, and copied into the store from there.
    const carrierUrl = (await ctx.h.db('calls').where({ id }).first()).recording_url;
    expect(carrierUrl).toMatch(/^https:\/\/api\.telnyx\.com\/v2\/recordings\/[0-9a-f-]{36}$/);
    await eventually(
      async () => (await ctx.h.db('call_objects').where({ call_id: id, kind: 'recording', carrier_url: carrierUrl }).first()) ?? undefined,
      20_000,
      'the late recording to be stored',
    );
  });

  it('an outbound webhook-mode call: dial, answer, begin message, caller sentence → message → reply, hang-up', async () => {
    const line = await lines.create({ begin_message: 'Hello, Luigi’s, how can I help?' });
    const placed = await calls.place(line.id);
    expect(placed.status).toBe(201);
    const id = placed.body.call.id;
    const call = await eventually(async () => callOf(id));
    expect(call.commands[0].body).toMatchObject({
      connection_id: 'stub-connection',
      from: line.phone_number,
      webhook_url: `${ctx.h.config.publicBaseUrl}/carrier/telnyx/events`,
      transcription: true,
    });
    await stub.answer(call.id);
    await calls.untilStatus(id, ['in_progress']);
    // Telnyx's `call.initiated` (it sends no ringing event for a dial) is when the call's page says it started ringing.
    expect((await ctx.h.db('calls').where({ id }).first()).ringing_at).not.toBeNull();
    await eventually(async () => (speeches(id).length === 1 ? true : undefined));
    expect(speeches(id)[0]).toMatchObject({ text: 'Hello, Luigi’s, how can I help?' });
    await stub.finishSpeech(call.id);

    replies.set('I need a table for two', 'Sure, for what time?');
    await stub.say(call.id, 'I need a table for two');
    await eventually(async () => (speeches(id).length === 2 ? true : undefined));
    expect(speeches(id)[1].text).toBe('Sure, for what time?');
    expect(events('message')[0].body).toMatchObject({ call_id: id, text: 'I need a table for two' });
    // A `multi` line: Telnyx's engine detects the language but never says which, so none is reported (never a guessed `en`).
    expect(events('message')[0].body).not.toHaveProperty('detected_language');
    await stub.finishSpeech(call.id);
    const transcript = await calls.untilTranscript(id, 3);
    expect(transcript.transcript!.map((t) => t.text)).toEqual([
      'Hello, Luigi’s, how can I help?',
      'I need a table for two',
      'Sure, for what time?',
    ]);

    const startedAt = Date.now();
    const pressed = await calls.press(id, { digits: '12#w9' });
    expect(pressed.body).toMatchObject({ pressed: true, digits: '12#w9' });
    // Answered once played: four tones and a half-second pause.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_500);
    expect(call.commands.find((c) => c.action === 'send_dtmf')?.body).toMatchObject({ digits: '12#w9' });

    expect((await calls.hangUp(id)).status).toBe(200);
    const ended = await calls.untilStatus(id, ['completed']);
    expect(ended.end_cause).toBe('api_hangup');
    expect(actions(id)).toContain('hangup');
  });

  /** An outbound call on a new line, answered at Telnyx and in progress. */
  const answeredCall = async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id as string;
    const call = await eventually(async () => callOf(id));
    await stub.answer(call.id);
    await calls.untilStatus(id, ['in_progress']);
    return { id, call };
  };

  it('barge-in: a caller talking over the reply stops Telnyx playback, `interrupted` says what was heard, and the new sentence is taken', async () => {
    const { id, call } = await answeredCall();
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    replies.set('Tell me everything', long);
    replies.set('Stop, stop', 'Okay.');
    await stub.say(call.id, 'Tell me everything');
    await eventually(async () => (speeches(id)[0]?.state === 'speaking' ? true : undefined));
    // pacing: the caller listens for about 1.5 s before talking over the reply, what they heard is estimated from it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Google's interim result comes first: the playback stops before the sentence is over.
    await stub.say(call.id, 'Stop, stop', ['Stop']);
    await eventually(async () => (actions(id).includes('playback_stop') ? true : undefined));
    await eventually(async () => (speeches(id)[1]?.text === 'Okay.' ? true : undefined));
    expect(speeches(id)[0].state).toBe('stopped');
    expect(events('message').map((m) => m.body.text)).toEqual(['Tell me everything', 'Stop, stop']);
    const interrupted = await eventually(async () => events('interrupted').find((e) => e.body.call_id === id));
    const heard = String(interrupted.body.partial_response_text).split(' ');
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(heard.length).toBeLessThan(60);
    expect(heard).toEqual(long.split(' ').slice(0, heard.length));
    const stopMessage = events('message').find((m) => m.body.text === 'Stop, stop')!;
    expect(Number(interrupted.body.timestamp)).toBeLessThan(Number(stopMessage.body.timestamp));
    await stub.hangUpRemote(call.id);
    expect((await calls.untilStatus(id, ['completed'])).end_cause).toBe('caller_hangup');
  });

  it('a speech of 5,000 characters (the API’s limit) is spoken through Telnyx’s 3,000-character speak as one speech', async () => {
    const { id, call } = await answeredCall();
    let text = '';
    for (let i = 0; text.length < 4_990; i += 1) text += `Item ${i} of the menu is ready. `;
    text = text.slice(0, 5_000).replace(/\S*$/, '').trim();
    const spoken = calls.speak(id, { text });
    await eventually(async () => (speeches(id).length === 1 ? true : undefined));
    await stub.finishSpeech(call.id);
    await eventually(async () => (speeches(id).length === 2 ? true : undefined));
    await stub.finishSpeech(call.id);
    const result = await spoken;
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ spoke: true, interrupted: false });
    expect(speeches(id).every((s) => s.text.length <= 3_000)).toBe(true);
    expect(
      speeches(id)
        .map((s) => s.text)
        .join(' '),
    ).toBe(text);
    await calls.hangUp(id);
  });

  it('a line pinned to Spanish: Telnyx transcribes in Spanish, speaks with a Spanish voice, and no detected_language is invented', async () => {
    const line = await lines.create({ begin_message: 'Hola, ¿en qué puedo ayudarle?' });
    expect((await ctx.h.request('PATCH', `/api/v1/lines/${line.id}`, { key: live(), body: { language: 'es' } })).status).toBe(200);
    const id = (await calls.place(line.id)).body.call.id;
    const call = await eventually(async () => callOf(id));
    expect(call.commands[0].body.transcription_config).toMatchObject({
      transcription_engine: 'Google',
      transcription_engine_config: { language: 'es', interim_results: true },
    });
    await stub.answer(call.id);
    await eventually(async () => (speeches(id).length === 1 ? true : undefined));
    expect(speeches(id)[0].voice).toBe('Azure.es-ES-ElviraNeural');
    await stub.finishSpeech(call.id);
    await stub.say(call.id, 'Quiero una mesa');
    const message = await eventually(async () => events('message').find((m) => m.body.call_id === id));
    expect(message.body.text).toBe('Quiero una mesa');
    expect(message.body).not.toHaveProperty('detected_language');
    await calls.hangUp(id);
  });

  it('an inbound call is answered through Call Control, announced, and settled when the caller hangs up', async () => {
    const line = await lines.create();
    const carrierCallId = await stub.incomingCall('+14155553333', line.phone_number!);
    const row = await calls.untilInboundRow(line.id);
    await calls.untilStatus(row.id, ['in_progress']);
    const answer = stub.calls.get(carrierCallId)!.commands.find((c) => c.action === 'answer')!;
    expect(decodeClientState(answer.body.client_state)).toEqual({ c: row.id, d: 'i' });
    await stub.hangUpRemote(carrierCallId);
    const ended = await calls.untilStatus(row.id, ['completed']);
    expect(ended.end_cause).toBe('caller_hangup');
    await eventually(async () => (events('call_ended').length === 1 ? true : undefined));
  });

  it('an inbound call to a number no line owns is rejected through Call Control', async () => {
    const carrierCallId = await stub.incomingCall('+14155553333', '+16505559876');
    await eventually(async () => (stub.calls.get(carrierCallId)!.commands.some((c) => c.action === 'reject') ? true : undefined));
    expect(stub.calls.get(carrierCallId)!.state).toBe('ended');
  });

  it('an inbound STOP opts the number out with one confirmation sent through the Messages API, receipts included', async () => {
    const line = await lines.create();
    const number = '+14155550145';
    await stub.inboundSms(number, line.phone_number!, 'Hi there');
    // Answered 200 once stored; taken right after (src/domain/telnyxInbox/).
    await eventually(async () => ((await messages.conversation(line.id, number)).body.messages?.length ? true : undefined));
    const sent = await messages.send({ line_id: line.id, to: number, text: 'Hello back' });
    expect(sent.status).toBe(201);
    await messages.untilStatus(line.id, number, sent.body.id, 'delivered');
    await stub.inboundSms(number, line.phone_number!, '  stop ');
    await eventually(async () => (stub.messages.some((m) => m.to === number && m.text === KEYWORD_REPLIES.opt_out) ? true : undefined));
    expect(stub.messages.find((m) => m.to === number)).toMatchObject({ from: line.phone_number, messagingProfileId: 'stub-profile' });
    const refused = await messages.send({ line_id: line.id, to: number, text: 'One more thing' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('number_opted_out');
  });

  it('audio: Telnyx media streaming is relayed both ways to the customer’s socket, in order; the customer closing it ends the call', async () => {
    const handler = await startEchoAudioHandler();
    const fromCaller = handler.received;
    try {
      const handlerUrl = handler.url;
      const line = await lines.create({ mode: 'audio', webhook_url: undefined, audio_handler_url: handlerUrl });
      const id = (await calls.place(line.id)).body.call.id;
      const call = await eventually(async () => callOf(id));
      await stub.answer(call.id);
      await calls.untilStatus(id, ['in_progress']);
      const start = await eventually(async () => call.commands.find((c) => c.action === 'streaming_start'));
      expect(start.body).toMatchObject({
        stream_track: 'inbound_track',
        stream_bidirectional_mode: 'rtp',
        stream_bidirectional_codec: 'PCMU',
      });
      await eventually(async () =>
        call.media?.socket.readyState === WebSocket.OPEN && fromCaller.some((m) => m.event === 'start') ? true : undefined,
      );

      const frames = Array.from({ length: 50 }, (_, i) => Buffer.alloc(160, i + 1));
      await stub.talk(call.id, frames);
      await eventually(async () => (call.media!.received.length === 50 ? true : undefined), 20_000, 'every frame to come back');
      expect(call.media!.received).toEqual(frames);
      const media = fromCaller.filter((m) => m.event === 'media');
      expect(media).toHaveLength(50);

      handler.socket()!.close(1000);
      const ended = await calls.untilStatus(id, ['completed']);
      expect(ended.end_cause).toBe('audio_handler_closed');
      expect(actions(id)).toContain('hangup');
    } finally {
      await handler.close();
    }
  });

  describe('transfer and machine detection', () => {
    const transfer = (id: string, to: string) =>
      ctx.h.request('POST', `/api/v1/calls/${id}/transfer`, { key: live(), body: { to_number: to } });
    /** A call on `line` (a new one unless given: a tenant's second live line needs a payment method). */
    const answered = async (fields: Record<string, unknown> = {}, existing?: Line) => {
      const line = existing ?? (await lines.create());
      const placed = await ctx.h.request('POST', '/api/v1/calls', {
        key: live(),
        body: { line_id: line.id, to_number: '+14155552671', ...fields },
      });
      expect(placed.status).toBe(201);
      const id = placed.body.call.id as string;
      return { id, line, call: await eventually(async () => callOf(id)) };
    };

    it('machine detection: dial asks Telnyx to detect, and the answer is reported once call.machine.detection.ended says who', async () => {
      const { id, line, call } = await answered({ machine_detection: 'detect' });
      expect(call.commands[0].body).toMatchObject({ answering_machine_detection: 'detect' });
      await stub.answer(call.id, 'machine');
      expect((await calls.untilStatus(id, ['in_progress'])).answered_by).toBe('machine');
      const started = await eventually(async () => events('call_started').find((e) => e.body.call_id === id));
      expect(started.body.answered_by).toBe('machine');
      await calls.hangUp(id);

      await calls.untilStatus(id, ['completed']);
      const plain = await answered({}, line);
      expect(plain.call.commands[0].body.answering_machine_detection).toBeUndefined();
      await stub.answer(plain.call.id);
      expect((await calls.untilStatus(plain.id, ['in_progress'])).answered_by).toBeNull();
      await calls.hangUp(plain.id);
    });

    it('a campaign’s voicemail: dial asks greeting_end; answered at once, the message only after call.machine.greeting.ended, once though repeated', async () => {
      const VOICEMAIL = 'This is the clinic: please call us back about tomorrow.';
      const to = '+14155552672';
      const line = await lines.create();
      // Telnyx may deliver identical webhooks twice: the greeting's end and the verdict come twice here.
      stub.webhooks.duplicate(['call.machine.greeting.ended', 'call.machine.detection.ended']);
      try {
        const created = await ctx.h.request('POST', '/api/v1/campaigns', {
          key: live(),
          body: {
            line_ids: [line.id],
            contacts: [{ to_number: to }],
            answering_machine: { action: 'voicemail', voicemail_message: VOICEMAIL },
          },
        });
        expect(created.status).toBe(201);
        const call = await eventually(async () => [...stub.calls.values()].find((c) => c.to === to && c.direction === 'outgoing'));
        expect(call.commands[0].body).toMatchObject({ answering_machine_detection: 'greeting_end' });
        const id = decodeClientState(call.commands[0].body.client_state).c!;

        // A machine: the call starts (who answered is known), and nothing is said over its greeting.
        await stub.answer(call.id, 'machine');
        expect((await calls.untilStatus(id, ['in_progress'])).answered_by).toBe('machine');
        await eventually(async () => events('call_started').find((e) => e.body.call_id === id));
        expect(call.speeches).toEqual([]);

        await stub.greetingEnds(call.id, 'beep_detected');
        await eventually(async () => (call.speeches.length > 0 ? true : undefined), 20_000, 'the voicemail message');
        await stub.finishSpeech(call.id);
        const ended = await calls.untilStatus(id, ['completed']);
        expect(ended).toMatchObject({ answered_by: 'machine', end_cause: 'answering_machine' });
        expect(ended.transcript).toEqual([expect.objectContaining({ role: 'assistant', text: VOICEMAIL })]);
        expect(call.speeches.map((speech) => speech.text)).toEqual([VOICEMAIL]);
        const campaignId = created.body.campaign.id as string;
        const result = await eventually(async () => {
          const res = await ctx.h.request('GET', `/api/v1/campaigns/${campaignId}/results`, { key: live() });
          return res.body.results?.[0]?.status === 'done' ? res.body.results[0] : undefined;
        });
        expect(result).toMatchObject({ outcome: 'voicemail', attempts: 1, call_ids: [id] });
      } finally {
        stub.webhooks.duplicate([]);
      }
    });

    it('a transfer: Telnyx dials the destination from the line’s number; once it answers the call is transferred until it hangs up', async () => {
      const { id, line, call } = await answered();
      await stub.answer(call.id);
      await calls.untilStatus(id, ['in_progress']);
      const pending = transfer(id, '+14155552690');
      const leg = await eventually(async () => stub.transferLeg(call.id));
      expect(call.commands.find((c) => c.action === 'transfer')?.body).toMatchObject({
        to: '+14155552690',
        from: line.phone_number,
        timeout_secs: 30,
        webhook_url: `${ctx.h.config.publicBaseUrl}/carrier/telnyx/events`,
      });
      expect(decodeClientState(leg.clientState)).toEqual({ x: id });
      await stub.answerTransfer(leg.id);
      const result = await pending;
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ transferred: true, to_number: '+14155552690' });
      expect((await calls.get(id)).transferred_to).toBe('+14155552690');
      await eventually(async () => events('call_transferred').find((e) => e.body.call_id === id));

      // The destination hangs up: Telnyx ends the bridge and the call's own leg.
      await stub.hangUpRemote(leg.id);
      const ended = await calls.untilStatus(id, ['completed']);
      expect(ended.end_cause).toBe('transferred');
      expect(call.state).toBe('ended');
    });

    it('a transfer the destination never answers: the new leg hangs up busy and the call is back with the agent', async () => {
      const { id, call } = await answered();
      await stub.answer(call.id);
      await calls.untilStatus(id, ['in_progress']);
      const pending = transfer(id, '+14155552691');
      const leg = await eventually(async () => stub.transferLeg(call.id));
      await stub.failTransfer(leg.id, 'user_busy');
      const result = await pending;
      expect(result.body).toMatchObject({ transferred: false, failure_reason: 'not_answered' });
      const spoken = calls.speak(id, { text: 'Nobody is free right now.' });
      await eventually(async () => (speeches(id).some((s) => s.text === 'Nobody is free right now.') ? true : undefined));
      await stub.finishSpeech(call.id);
      expect((await spoken).body.spoke).toBe(true);
      expect((await transfer('00000000-0000-4000-8000-000000000000', '+14155552691')).status).toBe(404);
      expect((await transfer(id, 'not a number')).status).toBe(422);
      await calls.hangUp(id);
      expect((await calls.untilStatus(id, ['completed'])).end_cause).toBe('api_hangup');
      const ended = await transfer(id, '+14155552691');
      expect([ended.status, ended.body.error.code]).toEqual([409, 'call_not_active']);
      expect(call.commands.filter((c) => c.action === 'transfer')).toHaveLength(1);
    });
  });

  describe('webhook verification', () => {
    const url = () => `${ctx.h.config.publicBaseUrl}/carrier/telnyx/events`;
    const body = (to: string) =>
      JSON.stringify(
        telnyxEventBody('message.received', {
          id: crypto.randomUUID(),
          from: { phone_number: '+14155550146' },
          to: [{ phone_number: to }],
          text: 'forged',
        }),
      );
    const post = (raw: string, headers: Record<string, string>) =>
      fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
    const stored = async (lineId: string) => ctx.h.db('messages').where({ line_id: lineId }).count<Array<{ count: string }>>('* as count');

    it('refuses forged, stale, unsigned and replayed webhooks with 401 and changes nothing', async () => {
      const line = await lines.create();
      const raw = body(line.phone_number!);
      const { privateKey } = crypto.generateKeyPairSync('ed25519');
      const ts = Math.floor(Date.now() / 1000);
      const forged = {
        'telnyx-timestamp': String(ts),
        'telnyx-signature-ed25519': crypto.sign(null, Buffer.from(`${ts}|${raw}`), privateKey).toString('base64'),
      };
      expect((await post(raw, forged)).status).toBe(401);
      expect((await post(raw, stub.sign(raw, ts - 301))).status).toBe(401);
      expect((await post(raw, {})).status).toBe(401);
      const tampered = stub.sign(raw);
      expect((await post(raw.replace('forged', 'f0rged'), tampered)).status).toBe(401);
      expect(Number((await stored(line.id))[0].count)).toBe(0);

      const signed = stub.sign(raw);
      expect((await post(raw, signed)).status).toBe(200);
      expect((await post(raw, signed)).status).toBe(401);
      await eventually(async () => (Number((await stored(line.id))[0].count) === 1 ? true : undefined));
    });
  });
});
