import crypto from 'node:crypto';
import { encodeClientState, decodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import { telnyxEnvelope } from '../../src/adapters/carrier/callbacks/telnyx/envelope';
import { translateTelnyxEvent, verifyTelnyxWebhook, type TelnyxLookups } from '../../src/adapters/carrier/callbacks/telnyx/webhook';
import recordingSavedExample from '../fixtures/telnyx/call.recording.saved.json';
import messageSentExample from '../fixtures/telnyx/message.sent.json';
import messageReceivedExample from '../fixtures/telnyx/message.received.json';
import type { SpeechReport } from '../../src/adapters/carrier/callbacks/telnyx/speechQueue';
// The detection results these tests send are the ones telnyx's SDK types (resources/webhooks.d.ts) give those events.
import type { CallMachineDetectionEnded, CallMachineGreetingEnded } from 'telnyx/resources/webhooks';

type DetectionResult = NonNullable<CallMachineDetectionEnded.Payload['result']>;
type GreetingResult = NonNullable<CallMachineGreetingEnded.Payload['result']>;

/** Telnyx webhooks → the carrier callbacks Switchboard handles (src/adapters/carrier/callbacks/telnyx/webhook.ts). */
describe('Telnyx webhook translation', () => {
  const callId = crypto.randomUUID();
  /** The shared call state, as the queue and the call records would answer (their SQL is test/integration/telnyxSpeech.test.ts). */
  const shared = {
    language: 'multi' as string | undefined,
    stops: [] as string[],
    stopReports: [] as SpeechReport[],
    endReports: [] as SpeechReport[],
    dialled: [] as Array<[string, string]>,
  };
  const lookups: TelnyxLookups = {
    callByCarrierId: async (id) => (id === 'known' ? { id: callId, direction: 'inbound' } : undefined),
    messageByCarrierId: async (id) => (id === 'tx-1' || id === messageSentExample.data.payload.id ? 'message-1' : undefined),
    // The Recordings API: the documented example's leg has recording rec-1, made on call_control_id `known`.
    recordingOfLeg: async (leg) =>
      leg === recordingSavedExample.data.payload.call_leg_id ? { id: 'rec-1', callControlId: 'known' } : undefined,
    calls: {
      speech: {
        enqueue: async () => undefined,
        stop: async (id) => {
          shared.stops.push(id);
          return shared.stopReports;
        },
        started: async () => undefined,
        ended: async (_id, _at, status) => (status === 'call_hangup' ? [] : shared.endReports),
      },
      languages: { remember: async () => undefined, of: async () => shared.language },
      dialled: async (id, carrierCallId) => void shared.dialled.push([id, carrierCallId]),
    },
  };
  beforeEach(() => {
    shared.language = 'multi';
    shared.stops = [];
    shared.stopReports = [];
    shared.endReports = [];
    shared.dialled = [];
  });
  const occurred = '2026-11-26T12:00:00.000Z';
  const at = Date.parse(occurred);
  const event = (event_type: string, payload: Record<string, unknown>) => ({ data: { event_type, occurred_at: occurred, payload } });
  const outbound = encodeClientState({ c: callId, d: 'o' });
  const inbound = encodeClientState({ c: callId, d: 'i' });
  const hangup = (state: string, cause: string, source: string) =>
    translateTelnyxEvent(
      event('call.hangup', { call_control_id: 'cc', client_state: state, hangup_cause: cause, hangup_source: source }),
      lookups,
    );

  it('announces an incoming call without a call id, and maps an outgoing call.initiated to ringing', async () => {
    expect(
      await translateTelnyxEvent(
        event('call.initiated', { call_control_id: 'cc', direction: 'incoming', from: '+14155550100', to: '+14155550101' }),
        lookups,
      ),
    ).toEqual({
      kind: 'call',
      event: { type: 'call.incoming', carrier_call_id: 'cc', from: '+14155550100', to: '+14155550101', at },
    });
    expect(
      await translateTelnyxEvent(
        event('call.initiated', { call_control_id: 'cc', direction: 'outgoing', client_state: outbound }),
        lookups,
      ),
    ).toEqual({
      kind: 'call',
      event: { type: 'call.ringing', call_id: callId, carrier_call_id: 'cc', at },
    });
  });

  it('machine detection: the answer waits for call.machine.detection.ended, which says who answered', async () => {
    const detecting = encodeClientState({ c: callId, d: 'o', m: 1 });
    expect(await translateTelnyxEvent(event('call.answered', { call_control_id: 'cc', client_state: detecting }), lookups)).toMatchObject({
      kind: 'ignored',
    });
    const ended = (result: DetectionResult) =>
      translateTelnyxEvent(event('call.machine.detection.ended', { call_control_id: 'cc', client_state: detecting, result }), lookups);
    expect(await ended('machine')).toEqual({
      kind: 'call',
      event: { type: 'call.answered', call_id: callId, carrier_call_id: 'cc', at, answered_by: 'machine' },
    });
    expect(await ended('human')).toMatchObject({ event: { answered_by: 'human' } });
    expect(await ended('not_sure')).toMatchObject({ event: { answered_by: 'unknown' } });
    expect(decodeClientState(detecting)).toEqual({ c: callId, d: 'o', m: 1 });
  });

  it('end-of-greeting detection: the answer at once, then who answered, then each report of the greeting’s end', async () => {
    const greeting = encodeClientState({ c: callId, d: 'o', m: 1, g: 1 });
    const ids = { call_id: callId, carrier_call_id: 'cc', at };
    const of = (type: string, extra: Record<string, unknown> = {}) =>
      translateTelnyxEvent(event(type, { call_control_id: 'cc', client_state: greeting, ...extra }), lookups);
    expect(await of('call.answered')).toEqual({ kind: 'call', event: { type: 'call.answered', ...ids } });
    const detected = (result: DetectionResult) => of('call.machine.detection.ended', { result });
    expect(await detected('machine')).toEqual({
      kind: 'call',
      event: { type: 'call.machine_detection', ...ids, answered_by: 'machine' },
    });
    expect(await detected('not_sure')).toMatchObject({ event: { answered_by: 'unknown' } });
    const greetingResults: GreetingResult[] = ['beep_detected', 'ended', 'not_sure'];
    for (const result of greetingResults)
      expect(await of('call.machine.greeting.ended', { result })).toEqual({ kind: 'call', event: { type: 'call.greeting_ended', ...ids } });
    expect(decodeClientState(greeting)).toEqual({ c: callId, d: 'o', m: 1, g: 1 });
  });

  it('a transfer’s new leg: its answer is the transfer’s success, a hang-up before any answer its failure', async () => {
    const leg = encodeClientState({ x: callId });
    const ofLeg = (type: string, extra: Record<string, unknown> = {}) =>
      translateTelnyxEvent(event(type, { call_control_id: 'leg-b', client_state: leg, ...extra }), lookups);
    expect(await ofLeg('call.initiated', { direction: 'outgoing' })).toMatchObject({ kind: 'ignored' });
    expect(await ofLeg('call.answered')).toEqual({
      kind: 'call',
      event: { type: 'call.transfer', call_id: callId, carrier_call_id: 'leg-b', at, answered: true },
    });
    expect(await ofLeg('call.bridged')).toMatchObject({ kind: 'ignored' });
    for (const cause of ['user_busy', 'timeout', 'call_rejected', 'unallocated_number'])
      expect(await ofLeg('call.hangup', { hangup_cause: cause })).toMatchObject({ event: { type: 'call.transfer', answered: false } });
    for (const cause of ['normal_clearing', 'originator_cancel'])
      expect(await ofLeg('call.hangup', { hangup_cause: cause })).toMatchObject({ kind: 'ignored' });
  });

  it('maps hang-up causes and sources to the one end event, by direction', async () => {
    expect(await hangup(outbound, 'normal_clearing', 'callee')).toMatchObject({
      event: { type: 'call.completed', ended_by: 'caller', answered: true },
    });
    expect(await hangup(outbound, 'normal_clearing', 'caller')).toMatchObject({
      event: { type: 'call.completed', ended_by: 'switchboard' },
    });
    expect(await hangup(inbound, 'normal_clearing', 'callee')).toMatchObject({
      event: { type: 'call.completed', ended_by: 'switchboard' },
    });
    expect(await hangup(inbound, 'normal_clearing', 'caller')).toMatchObject({ event: { type: 'call.completed', ended_by: 'caller' } });
    expect(await hangup(outbound, 'originator_cancel', 'caller')).toMatchObject({ event: { type: 'call.completed', answered: false } });
    expect(await hangup(outbound, 'user_busy', 'callee')).toMatchObject({ event: { type: 'call.busy' } });
    expect(await hangup(outbound, 'timeout', 'unknown')).toMatchObject({ event: { type: 'call.no_answer' } });
    expect(await hangup(outbound, 'call_rejected', 'callee')).toMatchObject({ event: { type: 'call.failed' } });
  });

  it('finds the call by its call_control_id when client_state does not name it, and drops events of calls it never took', async () => {
    expect(await translateTelnyxEvent(event('call.answered', { call_control_id: 'known' }), lookups)).toMatchObject({
      event: { type: 'call.answered', call_id: callId },
    });
    expect(
      (await translateTelnyxEvent(event('call.hangup', { call_control_id: 'other', hangup_cause: 'call_rejected' }), lookups)).kind,
    ).toBe('ignored');
  });

  const transcription = (transcript: string, is_final: boolean) =>
    translateTelnyxEvent(
      event('call.transcription', {
        call_control_id: 'known',
        call_leg_id: 'leg',
        call_session_id: 'session',
        connection_id: 'conn',
        transcription_data: { confidence: 0.97, is_final, transcript, transcription_track: 'inbound' },
      }),
      lookups,
    );

  it('a final transcription is an utterance in the line’s pinned language; a multi line’s carries none (Telnyx does not say)', async () => {
    shared.language = 'es';
    expect(await transcription(' hola, buenos días ', true)).toEqual({
      kind: 'calls',
      events: [{ type: 'call.utterance', call_id: callId, carrier_call_id: 'known', at, text: 'hola, buenos días', language: 'es' }],
    });
    shared.language = 'multi';
    const multi = await transcription('hola', true);
    expect(multi).toMatchObject({ kind: 'calls', events: [{ type: 'call.utterance', text: 'hola' }] });
    expect((multi as unknown as { events: Array<Record<string, unknown>> }).events[0]).not.toHaveProperty('language');
  });

  it('any caller speech, interim or final, stops the agent’s speech (barge-in); interim results are no sentence', async () => {
    expect((await transcription('wait', false)).kind).toBe('ignored');
    expect(shared.stops).toEqual(['known']);
    // Speech the queue could only drop (nothing was playing) is reported at once, before the sentence.
    shared.stopReports = [{ speakId: 'sp-1', playedText: '', done: true, stopped: true }];
    expect(await transcription('wait, stop', true)).toMatchObject({
      kind: 'calls',
      events: [
        { type: 'call.playback', speak_id: 'sp-1', played_text: '', done: true, stopped: true },
        { type: 'call.utterance', text: 'wait, stop' },
      ],
    });
    expect((await transcription('   ', true)).kind).toBe('ignored');
  });

  it('call.speak.ended reports what the speech queue says of the speech, with the documented payload', async () => {
    const ended = (status: string) =>
      translateTelnyxEvent(
        event('call.speak.ended', {
          call_control_id: 'known',
          call_leg_id: 'leg',
          call_session_id: 'session',
          client_state: encodeClientState({ s: '17' }),
          connection_id: 'conn',
          status,
        }),
        lookups,
      );
    shared.endReports = [{ speakId: 'sp-1', playedText: 'Hello there', done: true, stopped: false }];
    expect(await ended('completed')).toEqual({
      kind: 'calls',
      events: [
        { type: 'call.playback', call_id: callId, carrier_call_id: 'known', at, speak_id: 'sp-1', played_text: 'Hello there', done: true },
      ],
    });
    expect((await ended('call_hangup')).kind).toBe('ignored');
  });

  it('an outbound call’s first webhook records its id for a dial retried after a lost answer', async () => {
    await translateTelnyxEvent(
      event('call.initiated', { call_control_id: 'cc', direction: 'outgoing', client_state: encodeClientState({ c: callId, d: 'o' }) }),
      lookups,
    );
    expect(shared.dialled).toEqual([[callId, 'cc']]);
  });

  it('maps inbound messages and delivery receipts', async () => {
    expect(
      await translateTelnyxEvent(
        event('message.received', {
          id: 'rx-1',
          from: { phone_number: '+14155550100' },
          to: [{ phone_number: '+14155550101' }],
          text: 'STOP',
        }),
        lookups,
      ),
    ).toEqual({
      kind: 'message',
      event: { type: 'sms.received', carrier_message_id: 'rx-1', from: '+14155550100', to: '+14155550101', text: 'STOP', at },
    });
    const receipt = (status: string, id = 'tx-1') =>
      translateTelnyxEvent(event('message.finalized', { id, to: [{ phone_number: '+1', status }], errors: [{ code: '40008' }] }), lookups);
    expect(await receipt('delivered')).toMatchObject({ event: { type: 'sms.status', message_id: 'message-1', status: 'delivered' } });
    expect(await receipt('delivery_failed')).toMatchObject({ event: { status: 'undelivered', error_code: '40008' } });
    expect(await receipt('sending_failed')).toMatchObject({ event: { status: 'failed' } });
    expect((await receipt('delivered', 'tx-unknown')).kind).toBe('unknown');
  });

  describe('Telnyx’s documented payloads (test/fixtures/telnyx)', () => {
    /** A documented example with a real occurred_at (the examples' is the placeholder "date-time") and `payload` changes. */
    const documented = <T extends { data: { occurred_at: string; payload: object } }>(example: T, payload: object = {}) => ({
      ...example,
      data: { ...example.data, occurred_at: occurred, payload: { ...example.data.payload, ...payload } },
    });

    it('call.recording.saved (no call_control_id, no recording id): the recording is the one the Recordings API lists for its leg', async () => {
      expect(await translateTelnyxEvent(documented(recordingSavedExample), lookups)).toEqual({
        kind: 'recording',
        callId,
        carrierCallId: 'known',
        recordingUrl: 'https://api.telnyx.com/v2/recordings/rec-1',
      });
      // client_state set by dial or answer names the call without a lookup.
      expect(await translateTelnyxEvent(documented(recordingSavedExample, { client_state: outbound }), lookups)).toMatchObject({
        kind: 'recording',
        callId,
      });
      // Not listed yet: tried again from the inbox, never dropped.
      expect(await translateTelnyxEvent(documented(recordingSavedExample, { call_leg_id: 'leg-not-yet' }), lookups)).toMatchObject({
        kind: 'unknown',
      });
    });

    it('message receipts: every final to[].status Telnyx declares becomes a final status, none leaves the message sent', async () => {
      const receipt = (status: string, errors: unknown[] = []) =>
        translateTelnyxEvent(
          {
            data: {
              ...documented(messageSentExample).data,
              event_type: status === 'sent' ? 'message.sent' : 'message.finalized',
              payload: { ...messageSentExample.data.payload, to: [{ ...messageSentExample.data.payload.to[0], status }], errors },
            },
          },
          lookups,
        );
      expect(await receipt('sent')).toMatchObject({ event: { type: 'sms.status', message_id: 'message-1', status: 'sent' } });
      expect(await receipt('delivered')).toMatchObject({ event: { status: 'delivered' } });
      expect(await receipt('read')).toMatchObject({ event: { status: 'delivered' } });
      expect(await receipt('delivery_unconfirmed')).toMatchObject({ event: { status: 'undelivered', error_code: 'delivery_unconfirmed' } });
      expect(await receipt('expired')).toMatchObject({ event: { status: 'undelivered', error_code: 'expired' } });
      expect(await receipt('expired', [{ code: '40006', title: 'Recipient server unavailable' }])).toMatchObject({
        event: { status: 'undelivered', error_code: '40006' },
      });
      expect(await receipt('delivery_failed')).toMatchObject({ event: { status: 'undelivered' } });
      expect(await receipt('sending_failed')).toMatchObject({ event: { status: 'failed' } });
      // Not yet left Telnyx: no receipt.
      for (const status of ['queued', 'sending']) expect(await receipt(status)).toMatchObject({ kind: 'ignored' });
      expect(await receipt('something_new')).toMatchObject({ kind: 'ignored', unhandled: true });
    });

    it('message.received, with to as a list or as the number alone', async () => {
      const { payload } = messageReceivedExample.data;
      const expected = {
        type: 'sms.received',
        carrier_message_id: payload.id,
        from: '+18665550001',
        to: '+18445550001',
        text: 'Hello, World!',
        at,
      };
      expect(await translateTelnyxEvent(documented(messageReceivedExample), lookups)).toEqual({ kind: 'message', event: expected });
      expect(await translateTelnyxEvent(documented(messageReceivedExample, { to: '+18445550001' }), lookups)).toEqual({
        kind: 'message',
        event: expected,
      });
    });

    it('the envelope: the event id a duplicate repeats, and events ordered per call session or message', () => {
      const raw = Buffer.from(JSON.stringify(recordingSavedExample));
      expect(telnyxEnvelope(recordingSavedExample, raw)).toMatchObject({
        eventId: '0ccc7b54-4df3-4bca-a65a-3da1ecc777f0',
        eventType: 'call.recording.saved',
        orderKey: 'call:428c31b6-7af4-4bcb-b7f5-5013ef9657c1',
        callControlId: null,
        callLegId: '428c31b6-7af4-4bcb-b7f5-5013ef9657c1',
      });
      expect(telnyxEnvelope(messageSentExample, raw)).toMatchObject({ orderKey: 'message:40385f64-5717-4562-b3fc-2c963f66afa6' });
      const noId = { data: { event_type: 'call.hangup', payload: {} } };
      expect(telnyxEnvelope(noId, raw).eventId).toBe(telnyxEnvelope(noId, Buffer.from(raw)).eventId);
      expect(telnyxEnvelope(noId, raw).eventId).toMatch(/^sha256:[0-9a-f]{64}$/);
    });
  });

  it('decodes only our own client_state', () => {
    expect(decodeClientState(Buffer.from('not json').toString('base64'))).toEqual({});
    expect(decodeClientState(undefined)).toEqual({});
  });

  it('verifies the Ed25519 signature over "<timestamp>|<body>" within 300 seconds', async () => {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
    const body = Buffer.from('{"data":{}}');
    const headersAt = (ts: number, key = privateKey) => {
      const headers: Record<string, string> = {
        'telnyx-timestamp': String(ts),
        'telnyx-signature-ed25519': crypto.sign(null, Buffer.from(`${ts}|${body.toString()}`), key).toString('base64'),
      };
      return (name: string) => headers[name];
    };
    const now = Math.floor(Date.now() / 1000);
    expect(await verifyTelnyxWebhook({ publicKey: raw, header: headersAt(now), rawBody: body })).toMatchObject({
      valid: true,
      timestamp: now,
    });
    expect((await verifyTelnyxWebhook({ publicKey: raw, header: headersAt(now - 301), rawBody: body })).valid).toBe(false);
    expect(
      (
        await verifyTelnyxWebhook({
          publicKey: raw,
          header: headersAt(now, crypto.generateKeyPairSync('ed25519').privateKey),
          rawBody: body,
        })
      ).valid,
    ).toBe(false);
    expect((await verifyTelnyxWebhook({ publicKey: raw, header: headersAt(now), rawBody: Buffer.from('{"data":{"x":1}}') })).valid).toBe(
      false,
    );
    expect((await verifyTelnyxWebhook({ publicKey: raw, header: () => undefined, rawBody: body })).valid).toBe(false);
  });
});
