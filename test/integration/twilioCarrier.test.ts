import crypto from 'node:crypto';
import { startEchoAudioHandler } from '../support/echoAudioHandler';
import { customer, HOSTED_DESK } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useTwilioLiveSuite } from '../support/twilioHarness';
import { openTwilioSocket, twilioSocketSignature } from '../support/twilioStubSockets';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { runCommand } from '../../src/main/cli';
import { openTwilioRecording } from '../../src/adapters/carrier/twilio/recordings';

/**
 * The live environment on Twilio, end to end, against the contract stub (test/support/twilioStub.ts):
 * numbers bought with our callback URLs, calls and messages through Twilio's REST API, and Twilio's
 * signed webhooks through the API's Twilio routes into the same rules the simulator path uses.
 */
describe('Twilio carrier (live environment, contract stub)', () => {
  // US A2P 10DLC: the registered Messaging Service live numbers join and SMS goes through; the worker's Media Streams listener.
  const { ctx, stub, twilio, stubCallTo, reopenedRelay } = useTwilioLiveSuite({ messagingService: true, media: true });
  const { h, tenant } = ctx;
  const { lines, calls, messages, consent } = customer(ctx, {
    key: () => ctx.tenant.keys.live,
    line: () => webhookLine({ webhook_url: ctx.receiver.url }),
  });
  const path = (url: string) => new URL(url).pathname;

  it('a live line buys a Twilio number with our voice, SMS and status URLs; a test line stays on the simulator', async () => {
    const line = await lines.create();
    const number = [...stub.numbers.values()].find((n) => n.phoneNumber === line.phone_number);
    expect(number).toMatchObject({
      friendlyName: `line:${line.id}`,
      voiceUrl: `${h.apiUrl}/carrier/twilio/voice`,
      smsUrl: `${h.apiUrl}/carrier/twilio/messages`,
      statusCallback: `${h.apiUrl}/carrier/twilio/calls/status`,
    });
    const testLine = await lines.create({}, tenant.keys.test);
    expect([...stub.numbers.values()].some((n) => n.phoneNumber === testLine.phone_number)).toBe(false);

    // Releasing the line gives the number back to Twilio.
    expect((await lines.release(line.id)).status).toBe(200);
    await eventually(async () => (stub.numbers.has(number!.sid) ? undefined : true), 20_000, 'the number to be released at Twilio');
    expect(stub.requests.some((r) => r.method === 'DELETE' && r.path.endsWith(`/IncomingPhoneNumbers/${number!.sid}.json`))).toBe(true);
  });

  it('a live line chooses its Twilio number; nothing matching is 422; a granted owned number is imported, and only detached on release (issue 26)', async () => {
    await runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    expect((await lines.create({ area_code: '415' })).phone_number).toMatch(/^\+1415\d{7}$/);
    expect(await lines.create({ number_type: 'toll_free' })).toMatchObject({
      number_type: 'toll_free',
      phone_number: expect.stringMatching(/^\+1800/),
    });
    const refused = await lines.post({ number_type: 'mobile' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: { code: 'number_unavailable', details: [{ field: 'number_type' }] } });

    const owned = stub.own(`+1564555${2000 + crypto.randomInt(8000)}`);
    await runCommand(h.db, ['number', 'grant'], { workspace: tenant.workspaceId, env: 'live', number: owned.phoneNumber });
    const imported = await lines.create({ phone_number: owned.phoneNumber });
    expect(imported).toMatchObject({ phone_number: owned.phoneNumber, number_source: 'imported' });
    expect(stub.numbers.get(owned.sid)).toMatchObject({
      voiceUrl: `${h.apiUrl}/carrier/twilio/voice`,
      smsUrl: `${h.apiUrl}/carrier/twilio/messages`,
    });
    expect((await lines.release(imported.id)).status).toBe(200);
    await eventually(
      async () => (stub.numbers.get(owned.sid)?.voiceUrl === undefined ? true : undefined),
      20_000,
      'the import to be detached',
    );
    expect(stub.numbers.get(owned.sid)).toMatchObject({ phoneNumber: owned.phoneNumber, smsUrl: undefined });
  });

  it('an outbound call rings, is answered and listens; hanging it up through the API ends it at Twilio', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550101');
    const twilioCall = await stubCallTo('+14155550101');
    expect(twilioCall.url).toBe(`${h.apiUrl}/carrier/twilio/calls/connect?call_id=${call.id}`);
    await stub.ring(twilioCall.sid);
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    // Twilio's `ringing` status callback is when the call's page says it started ringing.
    const rung = await h.db('calls').where({ id: call.id }).first();
    expect(rung.ringing_at).not.toBeNull();
    expect(rung.ringing_at.getTime()).toBeLessThanOrEqual(rung.started_at.getTime());
    // The answered call runs ConversationRelay: Twilio opened its signed WebSocket to the API.
    expect(twilioCall.twiml).toContain('<ConversationRelay');
    // Its URL names the call and a one-time token (security review L13).
    expect(twilioCall.relay?.url).toMatch(new RegExp(`^${h.apiUrl.replace('http', 'ws')}/carrier/twilio/relay/${call.id}/[\\w-]{32}$`));
    expect(twilioCall.relay?.customParameters).toEqual({ call_id: call.id, language: 'en-US' });
    expect(stub.callbacks.filter((c) => c.params.CallSid === twilioCall.sid).map((c) => [path(c.url), c.status])).toEqual([
      ['/carrier/twilio/calls/status', 204],
      ['/carrier/twilio/calls/connect', 200],
    ]);

    // DTMF through live control: ConversationRelay's sendDigits.
    const pressed = await calls.press(call.id, { digits: '12#' });
    expect(pressed.body).toMatchObject({ pressed: true, digits: '12#' });
    await eventually(async () => (twilioCall.relay?.digits.includes('12#') ? true : undefined), 20_000, 'the digits to reach Twilio');

    expect((await calls.hangUp(call.id)).status).toBe(200);
    const ended = await calls.untilStatus(call.id, ['completed']);
    expect(ended.end_cause).toBe('api_hangup');
    expect(twilioCall.status).toBe('completed');
    expect(twilioCall.updates.some((update) => update.Status === 'completed')).toBe(true);
  });

  it('a call whose create answer was lost is dialled once: the retried activity finds it at Twilio', async () => {
    const line = await lines.create();
    stub.loseNextCreateAnswer('Calls');
    const call = await calls.dial(line.id, '+14155550119');
    const twilioCall = await stubCallTo('+14155550119');
    await stub.ring(twilioCall.sid);
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    const row = await h.db('calls').where({ id: call.id }).first();
    expect(row.carrier_call_id).toBe(twilioCall.sid);
    expect([...stub.calls.values()].filter((c) => c.to === '+14155550119')).toHaveLength(1);
    expect(await h.db('carrier_create_attempts').where({ kind: 'call', key: call.id })).toMatchObject([
      { carrier_id: twilioCall.sid, running_until: null },
    ]);
    expect((await calls.hangUp(call.id)).status).toBe(200);
  });

  it('a webhook-mode conversation: the begin message is said, caller speech becomes a message, the reply is said', async () => {
    ctx.receiver.respondWith((req) => {
      if (req.body.event !== 'message') return undefined;
      if (req.body.text === 'I need a table for two') return { status: 200, body: JSON.stringify({ text: 'Sure, for what time?' }) };
      return {
        status: 200,
        stream: [
          { afterMs: 0, line: { text: 'One moment.' } },
          { afterMs: 0, line: { text: 'Your table is booked.' } },
          { afterMs: 0, line: { done: true } },
        ],
      };
    });
    const line = await lines.create({ begin_message: 'Hello from Luigi’s' });
    const call = await calls.dial(line.id, '+14155550109');
    const twilioCall = await stubCallTo('+14155550109');
    await stub.answer(twilioCall.sid);
    const saying = (text: string) =>
      eventually(async () => (twilioCall.relay?.said.includes(text) ? true : undefined), 20_000, `Twilio to say "${text}"`);
    await saying('Hello from Luigi’s');
    await stub.finishSpeech(twilioCall.sid);
    await stub.callerSays(twilioCall.sid, 'I need a table for two');
    await saying('Sure, for what time?');
    const message = ctx.receiver.requests.find((r) => r.body.event === 'message');
    expect(message?.body).toMatchObject({ call_id: call.id, text: 'I need a table for two', detected_language: 'en' });
    await stub.finishSpeech(twilioCall.sid);
    const transcribed = await calls.untilTranscript(call.id, 3);
    expect(transcribed.transcript!.map((t) => [t.role, t.text])).toEqual([
      ['assistant', 'Hello from Luigi’s'],
      ['user', 'I need a table for two'],
      ['assistant', 'Sure, for what time?'],
    ]);

    // A streamed reply is two speeches, sent as they come: ConversationRelay queues them and says them in order.
    await stub.callerSays(twilioCall.sid, 'Eight please');
    await saying('Your table is booked.');
    expect(twilioCall.relay!.said.slice(-2)).toEqual(['One moment.', 'Your table is booked.']);
    expect(twilioCall.relay!.received.filter((m) => m.type === 'text').slice(-2)).toEqual([
      { type: 'text', token: 'One moment.', last: true },
      { type: 'text', token: 'Your table is booked.', last: true },
    ]);
    await stub.finishSpeech(twilioCall.sid);
    await calls.untilTranscript(call.id, 5);
    await calls.hangUp(call.id);
    await calls.untilStatus(call.id, ['completed']);
  });

  it('barge-in: the caller talking over a speech cuts it; the customer gets interrupted, then the message', async () => {
    const long = 'Let me tell you about every dish on our menu, starting with the soups of the day.';
    ctx.receiver.replyTo('Tell me everything', long);
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550113');
    const twilioCall = await stubCallTo('+14155550113');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    await stub.callerSays(twilioCall.sid, 'Tell me everything');
    await eventually(async () => (twilioCall.relay?.said.includes(long) ? true : undefined), 20_000, 'the long reply');
    // The caller talks over it: ConversationRelay sends `interrupt` (what was heard), then the prompt.
    await stub.callerSays(twilioCall.sid, 'Stop, stop');
    const events = () => ctx.receiver.requests.filter((r) => r.body.call_id === call.id).map((r) => r.body.event);
    await eventually(async () => (events().filter((e) => e === 'message').length === 2 ? true : undefined), 20_000, 'the second message');
    const after = events().slice(events().indexOf('message') + 1);
    expect(after).toEqual(['interrupted', 'message']);
    expect(ctx.receiver.requests.find((r) => r.body.event === 'interrupted')?.body).toMatchObject({
      call_id: call.id,
      partial_response_text: 'Let me tell',
    });
    await calls.hangUp(call.id);
  });

  it('a dropped ConversationRelay socket: Twilio reopens the session through <Connect action>, and the conversation goes on', async () => {
    ctx.receiver.replyTo('Still there?', 'Yes, still here.');
    const line = await lines.create({ begin_message: 'Hello.' });
    const call = await calls.dial(line.id, '+14155550115');
    const twilioCall = await stubCallTo('+14155550115');
    await stub.answer(twilioCall.sid);
    await eventually(async () => (twilioCall.relay?.said.includes('Hello.') ? true : undefined), 20_000, 'the greeting');
    await stub.finishSpeech(twilioCall.sid);
    const second = await reopenedRelay(twilioCall);
    const connects = stub.callbacks.filter((c) => c.params.CallSid === twilioCall.sid && path(c.url) === '/carrier/twilio/calls/connect');
    expect(connects.map((c) => new URL(c.url).searchParams.get('resume'))).toEqual([null, '1']);
    expect(connects[1].params).toMatchObject({ SessionStatus: 'ended' });
    await stub.callerSays(twilioCall.sid, 'Still there?');
    await eventually(async () => (second.said.includes('Yes, still here.') ? true : undefined), 20_000, 'the reply on the new session');
    expect(ctx.receiver.requests.filter((r) => r.body.call_id === call.id && r.body.event === 'call_started')).toHaveLength(1);
    expect((await calls.get(call.id)).status).toBe('in_progress');
    await calls.hangUp(call.id);
  });

  it('the hourly maintenance drops ConversationRelay commands nobody took within a day, and relay tokens past their life', async () => {
    const now = Date.now();
    await h.db('twilio_relay_commands').insert([
      { call_sid: 'CAstale', command: JSON.stringify({ kind: 'stop' }), created_at: new Date(now - 25 * 3600_000) },
      { call_sid: 'CAfresh', command: JSON.stringify({ kind: 'stop' }), created_at: new Date(now - 60_000) },
    ]);
    const token = (hash: string, expiresAt: Date) => ({
      token_hash: hash,
      call_id: crypto.randomUUID(),
      call_sid: 'CAtoken',
      environment: 'live',
      expires_at: expiresAt,
    });
    const [expired, live] = [crypto.randomBytes(32).toString('hex'), crypto.randomBytes(32).toString('hex')];
    await h.db('twilio_relay_tokens').insert([token(expired, new Date(now - 60_000)), token(live, new Date(now + 60_000))]);
    const purged = await createMaintenanceActivities({ db: h.db, now: () => new Date() }).purgeExpiredRecords();
    expect(purged.twilioRelayCommands).toBeGreaterThanOrEqual(1);
    expect(purged.twilioRelayTokens).toBeGreaterThanOrEqual(1);
    expect(await h.db('twilio_relay_commands').whereIn('call_sid', ['CAstale', 'CAfresh']).pluck('call_sid')).toEqual(['CAfresh']);
    expect(await h.db('twilio_relay_tokens').whereIn('token_hash', [expired, live]).pluck('token_hash')).toEqual([live]);
    await h.db('twilio_relay_commands').where({ call_sid: 'CAfresh' }).del();
    await h.db('twilio_relay_tokens').where({ token_hash: live }).del();
  });

  it('a hosted line: the model’s reply is said sentence after sentence in the line’s Twilio voice', async () => {
    const line = await lines.create(HOSTED_DESK);
    const call = await calls.dial(line.id, '+14155550111');
    const twilioCall = await stubCallTo('+14155550111');
    await stub.answer(twilioCall.sid);
    const saying = (text: string) =>
      eventually(async () => (twilioCall.relay?.said.includes(text) ? true : undefined), 20_000, `Twilio to say "${text}"`);
    await saying('Bonjour, Chez Marie.');
    // The line's voice is the session's: Amazon Polly's Rémi, speaking French; a hosted line hears any language.
    for (const attribute of ['ttsProvider="Amazon"', 'voice="Remi-Neural"', 'ttsLanguage="fr-FR"', 'transcriptionLanguage="multi"'])
      expect(twilioCall.twiml).toMatch(new RegExp(`<ConversationRelay [^>]*${attribute}`));
    expect(twilioCall.relay!.received.some((m) => m.type === 'language')).toBe(false);
    await stub.finishSpeech(twilioCall.sid);
    await simulator(() => h).model.reply({ match: 'table', reply: 'Certainly. For how many people? And at what time?' });
    await stub.callerSays(twilioCall.sid, 'Do you have a table tonight?');
    await saying('And at what time?');
    expect(twilioCall.relay!.said.slice(-3)).toEqual(['Certainly.', 'For how many people?', 'And at what time?']);
    await stub.finishSpeech(twilioCall.sid);
    await calls.untilTranscript(call.id, 3);
    await calls.hangUp(call.id);
    await calls.untilStatus(call.id, ['completed']);
    expect(await h.db('twilio_relay_commands').where({ call_sid: twilioCall.sid })).toEqual([]);
  });

  it('a recording line records its calls at Twilio; the recording is the call’s recording_url', async () => {
    const line = await lines.create({ recording_enabled: true });
    const call = await calls.dial(line.id, '+14155550112');
    const twilioCall = await stubCallTo('+14155550112');
    expect(twilioCall.record).toBe(true);
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    await calls.hangUp(call.id);
    const ended = await calls.untilStatus(call.id, ['completed']);
    // The call shows Switchboard's URL; Twilio's is kept behind it (the copy reads it there).
    expect(ended.recording_url).toBe(`${h.apiUrl}/api/v1/calls/${call.id}/recording`);
    const row = await h.db('calls').where({ id: call.id }).first();
    expect(row.recording_url).toMatch(new RegExp(`^${stub.url}/2010-04-01/Accounts/${stub.accountSid}/Recordings/RE[0-9a-f]{32}$`));
  });

  it('an answered inbound call on a recording line: its recording reports to recordingStatusCallback and becomes its recording_url', async () => {
    const line = await lines.create({ recording_enabled: true });
    const twilioCall = await stub.incomingCall('+14155550116', line.phone_number);
    const row = await calls.untilInboundRow(line.id);
    await calls.untilStatus(row.id, ['in_progress']);
    // Started through Calls/{sid}/Recordings, which reports only to the recordingStatusCallback it was given.
    const started = await eventually(async () => twilioCall.apiRecordings?.[0], 20_000, 'the recording');
    expect(started).toMatchObject({
      statusCallback: `${h.apiUrl}/carrier/twilio/calls/recording?call_id=${row.id}`,
      statusCallbackEvents: ['completed'],
      channels: 1,
    });
    await stub.remoteHangUp(twilioCall.sid);
    await calls.untilStatus(row.id, ['completed']);
    const reported = stub.callbacks.find((c) => path(c.url) === '/carrier/twilio/calls/recording' && c.params.CallSid === twilioCall.sid)!;
    expect(reported).toMatchObject({ status: 204, params: { RecordingStatus: 'completed', RecordingSource: 'StartCallRecordingAPI' } });
    const recorded = await eventually(
      async () => ((await calls.get(row.id)).recording_url ? calls.get(row.id) : undefined),
      20_000,
      'the recording_url',
    );
    expect(recorded.recording_url).toBe(`${h.apiUrl}/api/v1/calls/${row.id}/recording`);
    const carrierUrl = (await h.db('calls').where({ id: row.id }).first()).recording_url as string;
    expect(carrierUrl).toBe(reported.params.RecordingUrl);
    expect(carrierUrl).toMatch(new RegExp(`^${stub.url}/2010-04-01/Accounts/${stub.accountSid}/Recordings/RE[0-9a-f]{32}$`));
    // The late recording is copied into the store too (its copy asked for when the callback kept it).
    await eventually(
      async () => (await h.db('call_objects').where({ call_id: row.id, kind: 'recording', carrier_url: carrierUrl }).first()) ?? undefined,
      20_000,
      'the late recording to be stored',
    );
    // What the copy reads: the adapter reads it at Twilio as `.wav` with the account's credentials.
    const audio = await openTwilioRecording({ accountSid: stub.accountSid, authToken: stub.authToken }, stub.url, carrierUrl);
    const bytes: Buffer[] = [];
    for await (const chunk of audio.body) bytes.push(chunk as Buffer);
    expect(Buffer.concat(bytes).subarray(0, 4).toString('ascii')).toBe('RIFF');

    // A repeat of the callback, and one forged for another recording, change nothing.
    expect((await stub.post(reported.url, reported.params)).status).toBe(204);
    const forged = {
      ...reported.params,
      RecordingUrl: `${stub.url}/2010-04-01/Accounts/${stub.accountSid}/Recordings/RE${'0'.repeat(32)}`,
    };
    expect((await stub.post(reported.url, forged, stub.sign(reported.url, forged, 'a'.repeat(32)))).status).toBe(403);
    expect((await h.db('calls').where({ id: row.id }).first()).recording_url).toBe(reported.params.RecordingUrl);
  });

  it('the callee hanging up ends the call as a caller hang-up; an unanswered one as Twilio reports it', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550102');
    const twilioCall = await stubCallTo('+14155550102');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    await stub.remoteHangUp(twilioCall.sid);
    expect((await calls.untilStatus(call.id, ['completed'])).end_cause).toBe('caller_hangup');

    const busy = await calls.dial(line.id, '+14155550108');
    const busyCall = await stubCallTo('+14155550108');
    await stub.ring(busyCall.sid);
    await stub.endUnanswered(busyCall.sid, 'busy');
    expect((await calls.untilStatus(busy.id, ['busy'])).status).toBe('busy');
  });

  it('an inbound call is held, answered by its workflow through a redirect, and listens for the caller', async () => {
    const line = await lines.create();
    const twilioCall = await stub.incomingCall('+14155550103', line.phone_number);
    expect(stub.callbacks.find((c) => c.params.CallSid === twilioCall.sid)).toMatchObject({ status: 200 });
    expect(twilioCall.twiml).toContain('<Pause length="60"/>');
    const row = await calls.untilInboundRow(line.id);
    expect(row.carrier_call_id).toBe(twilioCall.sid);
    await calls.untilStatus(row.id, ['in_progress']);
    await eventually(async () => (twilioCall.relay ? true : undefined), 20_000, 'the call’s ConversationRelay session');
    expect(twilioCall.updates[0]).toMatchObject({ Url: `${h.apiUrl}/carrier/twilio/calls/connect?call_id=${row.id}` });
    // The number's status callback (no call id in it) ends the call found by its CallSid.
    await stub.remoteHangUp(twilioCall.sid);
    expect((await calls.untilStatus(row.id, ['completed'])).end_cause).toBe('caller_hangup');
  });

  it('audio: a Media Stream is relayed both ways to the customer’s socket as µ-law frames; a forged upgrade is refused', async () => {
    const handler = await startEchoAudioHandler();
    const fromCaller = handler.received;
    try {
      const handlerUrl = handler.url;
      const line = await lines.create({ mode: 'audio', webhook_url: undefined, audio_handler_url: handlerUrl });
      const call = await calls.dial(line.id, '+14155550114');
      const twilioCall = await stubCallTo('+14155550114');
      await stub.answer(twilioCall.sid);
      await calls.untilStatus(call.id, ['in_progress']);
      // Answered, the call waits (no ConversationRelay) until the worker moves it to its Media Stream.
      expect(
        stub.callbacks.find((c) => path(c.url) === '/carrier/twilio/calls/connect' && c.params.CallSid === twilioCall.sid)?.body,
      ).toContain('<Pause length="60"/>');
      await eventually(
        async () => (twilioCall.media && fromCaller.some((m) => m.event === 'start') ? true : undefined),
        20_000,
        'the stream',
      );
      expect(twilioCall.relay).toBeUndefined();
      expect(twilioCall.twiml).toContain(`<Connect><Stream url="${twilio.mediaUrl}/`);

      const frames = Array.from({ length: 50 }, (_, i) => Buffer.alloc(160, i + 1));
      await stub.talk(twilioCall.sid, frames);
      await eventually(async () => (twilioCall.media!.received.length === 50 ? true : undefined), 20_000, 'every frame to come back');
      expect(twilioCall.media!.received).toEqual(frames);
      expect(fromCaller.filter((m) => m.event === 'media')).toHaveLength(50);

      // The stream's one-time URL, signed with another auth token or opened a second time, is refused.
      const streamUrl = twilioCall.media!.url;
      await expect(openTwilioSocket(streamUrl, twilioSocketSignature('f'.repeat(32), streamUrl))).rejects.toThrow('upgrade refused');
      await expect(openTwilioSocket(streamUrl, twilioSocketSignature(stub.authToken, streamUrl))).rejects.toThrow(
        'upgrade refused with 404',
      );

      handler.socket()!.close(1000);
      const ended = await calls.untilStatus(call.id, ['completed']);
      expect(ended.end_cause).toBe('audio_handler_closed');
      expect(twilioCall.status).toBe('completed');
    } finally {
      await handler.close();
    }
  });

  it('a ConversationRelay socket opens once, for its call, with the signature Twilio made: a replay, a forgery or a second session opens nothing (L13)', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550131');
    const twilioCall = await stubCallTo('+14155550131');
    await stub.ring(twilioCall.sid);
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    const genuine = await eventually(async () => twilioCall.relay, 20_000, 'the call’s ConversationRelay session');
    const refusedWith = (url: string, signature: string) =>
      openTwilioSocket(url, signature).then(
        (ws) => {
          ws.close(1000);
          return 'opened';
        },
        (err: Error) => err.message,
      );
    // Whoever saw the upgrade's URL and signature (a proxy's header log) cannot open it again.
    expect(await refusedWith(genuine.url, twilioSocketSignature(stub.authToken, genuine.url))).toBe('upgrade refused with 403');
    const relay = `${h.apiUrl.replace('http', 'ws')}/carrier/twilio/relay`;
    for (const url of [`${relay}/${call.id}`, `${relay}?call_id=${call.id}`, relay, `${relay}/${call.id}/forged-token`])
      expect(await refusedWith(url, twilioSocketSignature(stub.authToken, url))).toBe('upgrade refused with 403');
    expect(await refusedWith(genuine.url, twilioSocketSignature('f'.repeat(32), genuine.url))).toBe('upgrade refused with 403');

    /** The TwiML Twilio fetches when a session reopens (signed by the account), and the fresh socket URL it names. */
    const freshUrl = async () => {
      const connect = await stub.post(`${h.apiUrl}/carrier/twilio/calls/connect?call_id=${call.id}&resume=1`, {
        AccountSid: stub.accountSid,
        CallSid: twilioCall.sid,
        CallStatus: 'in-progress',
      });
      return /<ConversationRelay [^>]*url="([^"]+)"/.exec(connect.body)![1];
    };
    const setUp = async (url: string, callSid: string) => {
      const ws = await openTwilioSocket(url, twilioSocketSignature(stub.authToken, url));
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      ws.send(
        JSON.stringify({
          type: 'setup',
          sessionId: `VX${crypto.randomBytes(16).toString('hex')}`,
          accountSid: stub.accountSid,
          callSid,
          customParameters: { call_id: call.id, language: 'en-US' },
        }),
      );
      return closed;
    };
    // A session whose setup names another CallSid than the one that fetched its URL is closed.
    expect(await setUp(await freshUrl(), `CA${crypto.randomBytes(16).toString('hex')}`)).toBe(1001);
    // A second session for the call while Twilio's is live is closed; Twilio's keeps the call's speech.
    expect(await setUp(await freshUrl(), twilioCall.sid)).toBe(1001);
    expect(genuine.ws.readyState).toBe(genuine.ws.OPEN);
    expect((await calls.hangUp(call.id)).status).toBe(200);
  });

  it('a call to a number no line holds is rejected; a forged one creates no call', async () => {
    const url = `${h.apiUrl}/carrier/twilio/voice`;
    const ringing = (to: string) => ({
      AccountSid: stub.accountSid,
      ApiVersion: '2010-04-01',
      CallSid: `CA${crypto.randomBytes(16).toString('hex')}`,
      CallStatus: 'ringing',
      Direction: 'inbound',
      From: '+14155550110',
      To: to,
    });
    const nobody = await stub.post(url, ringing('+15555550999'));
    expect(nobody.status).toBe(200);
    expect(nobody.body).toContain('<Reject reason="busy"/>');

    const line = await lines.create();
    const forged = ringing(line.phone_number);
    expect((await stub.post(url, forged, stub.sign(url, forged, 'd'.repeat(32)))).status).toBe(403);
    expect(await h.db('calls').where({ line_id: line.id })).toEqual([]);
  });

  it('an outbound SMS goes through Messages, from the line’s number in the Messaging Service, and its receipts move it to delivered', async () => {
    const line = await lines.create();
    const number = [...stub.numbers.values()].find((n) => n.phoneNumber === line.phone_number)!;
    expect(stub.messagingServices.get(twilio.liveMessagingServiceSid!)?.has(number.sid)).toBe(true);
    const to = '+14155550104';
    expect((await consent.record(line.id, to, 'explicit_outbound', 'api')).status).toBe(201);
    const sent = await messages.send({ line_id: line.id, to, text: 'Your table is ready' });
    expect(sent.status).toBe(201);
    const twilioMessage = await eventually(async () => [...stub.messages.values()].find((m) => m.to === to), 20_000, 'the Twilio message');
    expect(twilioMessage).toMatchObject({
      from: line.phone_number,
      body: 'Your table is ready',
      messagingServiceSid: twilio.liveMessagingServiceSid,
    });
    expect(twilioMessage.statusCallback).toBe(`${h.apiUrl}/carrier/twilio/messages/status?message_id=${sent.body.id}`);
    expect((await stub.messageStatus(twilioMessage.sid, 'sent'))?.status).toBe(204);
    expect((await stub.messageStatus(twilioMessage.sid, 'delivered'))?.status).toBe(204);
    await messages.untilStatus(line.id, to, sent.body.id, 'delivered');
  });

  it('an inbound STOP opts the sender out and is confirmed through Twilio', async () => {
    const line = await lines.create();
    const caller = '+14155550105';
    const received = await stub.incomingSms(caller, line.phone_number, 'STOP');
    expect(received.status).toBe(200);
    expect(received.body).toContain('<Response/>');
    const optOuts = await h.db('opt_outs').where({ workspace_id: tenant.workspaceId, environment: 'live', phone_number: caller });
    expect(optOuts).toHaveLength(1);
    await eventually(
      async () => [...stub.messages.values()].find((m) => m.to === caller && m.from === line.phone_number),
      20_000,
      'the STOP confirmation',
    );
  });

  it('forged and misaddressed Twilio callbacks are 403 and change nothing; a repeated one is acknowledged and changes nothing', async () => {
    const line = await lines.create();
    const caller = '+14155550106';
    const url = `${h.apiUrl}/carrier/twilio/messages`;
    const params = {
      AccountSid: stub.accountSid,
      ApiVersion: '2010-04-01',
      Body: 'STOP',
      From: caller,
      To: line.phone_number,
      MessageSid: `SM${'1'.repeat(32)}`,
      SmsSid: `SM${'1'.repeat(32)}`,
      SmsStatus: 'received',
      NumMedia: '0',
    };
    const optedOut = async () =>
      (await h.db('opt_outs').where({ workspace_id: tenant.workspaceId, environment: 'live', phone_number: caller })).length;
    const forgeries: Array<[string, string, Record<string, string>]> = [
      ['no signature', '', params],
      ['another auth token', stub.sign(url, params, 'f'.repeat(32)), params],
      ['signed for another URL', stub.sign(`${h.apiUrl}/carrier/twilio/voice`, params), params],
      ['signed for another host', stub.sign(url.replace('127.0.0.1', 'localhost'), params), params],
      ['a parameter altered after signing', stub.sign(url, params), { ...params, Body: 'START' }],
      [
        'an account this deployment does not hold',
        stub.sign(url, { ...params, AccountSid: `AC${'0'.repeat(32)}` }),
        { ...params, AccountSid: `AC${'0'.repeat(32)}` },
      ],
    ];
    for (const [what, signature, body] of forgeries) {
      const res = await stub.post(url, body, signature);
      expect({ what, status: res.status }).toEqual({ what, status: 403 });
    }
    expect(await optedOut()).toBe(0);
    expect(await h.db('messages').where({ line_id: line.id, direction: 'inbound' })).toEqual([]);

    // A callback that fails is not remembered: Twilio's retry (the same signature) is handled again.
    const stray = { ...params, To: '+15555550998' };
    const straySignature = stub.sign(url, stray);
    expect((await stub.post(url, stray, straySignature)).status).toBe(404);
    expect((await stub.post(url, stray, straySignature)).status).toBe(404);

    const genuine = stub.sign(url, params);
    expect((await stub.post(url, params, genuine)).status).toBe(200);
    expect(await optedOut()).toBe(1);
    // The same message again (a retry, or a captured request replayed): taken once, by its MessageSid.
    const repeated = await stub.post(url, params, genuine);
    expect([repeated.status, repeated.body]).toEqual([200, expect.stringContaining('<Response/>')]);
    expect(await h.db('messages').where({ line_id: line.id, direction: 'inbound' })).toHaveLength(1);
    expect(await optedOut()).toBe(1);

    // A forged status callback never reaches the call.
    const call = await calls.dial(line.id, '+14155550107');
    const twilioCall = await stubCallTo('+14155550107');
    await stub.answer(twilioCall.sid);
    await calls.untilStatus(call.id, ['in_progress']);
    const statusUrl = `${h.apiUrl}/carrier/twilio/calls/status?call_id=${call.id}`;
    const hangUp = {
      AccountSid: stub.accountSid,
      CallSid: twilioCall.sid,
      CallStatus: 'completed',
      From: twilioCall.from,
      To: twilioCall.to,
    };
    expect((await stub.post(statusUrl, hangUp, stub.sign(statusUrl, hangUp, 'e'.repeat(32)))).status).toBe(403);
    expect((await calls.get(call.id)).status).toBe('in_progress');
    await calls.hangUp(call.id);
  });
});
