import type Koa from 'koa';
import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { CallbackSender } from '../delivery';
import { answer, badRequest, E164, readJson } from '../http';
import type { CallSimulatorState } from './calls';
import { wavRecording } from './recording';
import { ANSWERERS, DEFAULT_RING_MS, type Answerer, type DestinationSetting } from './destinations';

/** The carrier's call API (`/carrier/v1/calls...`), its recordings, and its control API (`/control/calls...`). */

const MAX_RING_MS = 10 * 60_000;
const MAX_WORDS_PER_SECOND = 1_000;
const MAX_SPEECH_TEXT = 10_000;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
const NOT_ANSWERED = 'call is not answered';

function isSpeechText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_SPEECH_TEXT;
}

/** `language` from a body: absent means `en`; null when it is not a language tag. */
function languageOf(value: unknown): string | null {
  if (value === undefined) return 'en';
  return typeof value === 'string' && LANGUAGE.test(value) && value.length <= 35 ? value : null;
}

export function callRoutes(router: Router, calls: CallSimulatorState, requireCarrierAuth: Koa.Middleware, callbacks: CallbackSender): void {
  carrierCallRoutes(router, calls, requireCarrierAuth, callbacks);
  controlCallRoutes(router, calls, callbacks);
}

/** What a Switchboard adapter calls (carrier bearer), and the media store's recordings. */
function carrierCallRoutes(router: Router, calls: CallSimulatorState, requireCarrierAuth: Koa.Middleware, callbacks: CallbackSender): void {
  router.post('/carrier/v1/calls', requireCarrierAuth, async (ctx) => {
    const body = await readJson(ctx);
    const { call_id: callId, from, to, events_url: eventsUrl, record, machine_detection: machineDetection } = body;
    const { greeting_end_detection: greetingEndDetection } = body;
    if (typeof callId !== 'string' || callId === '' || callId.length > 200) return badRequest(ctx, 'call_id is required');
    if (typeof from !== 'string' || !E164.test(from)) return badRequest(ctx, 'from must be an E.164 number');
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    const target = callbacks.resolve(eventsUrl, '/carrier/events');
    if ('error' in target) return badRequest(ctx, `events_url ${target.error}`);
    if (record !== undefined && typeof record !== 'boolean') return badRequest(ctx, 'record must be a boolean');
    if (machineDetection !== undefined && typeof machineDetection !== 'boolean')
      return badRequest(ctx, 'machine_detection must be a boolean');
    if (
      greetingEndDetection !== undefined &&
      (typeof greetingEndDetection !== 'boolean' || (greetingEndDetection && machineDetection !== true))
    )
      return badRequest(ctx, 'greeting_end_detection must be a boolean, true only with machine_detection');
    const placed = calls.place({ callId, from, to, eventsUrl: target.url, record, machineDetection, greetingEndDetection });
    const refusals = { refused: { status: 403, body: { error: 'destination_not_permitted' } }, call_id_reused: 'call_id_reused' };
    answer(ctx, placed, refusals, (call) => ({ carrier_call_id: call.carrier_call_id }), 201);
  });

  router.post('/carrier/v1/calls/:carrier_call_id/answer', requireCarrierAuth, async (ctx) => {
    const { call_id: callId, record } = await readJson(ctx);
    if (typeof callId !== 'string' || callId === '' || callId.length > 200) return badRequest(ctx, 'call_id is required');
    if (record !== undefined && typeof record !== 'boolean') return badRequest(ctx, 'record must be a boolean');
    const result = calls.answer(ctx.params.carrier_call_id, callId, record === true);
    const refusals = { not_inbound: 'not_inbound', call_id_mismatch: 'call_id_mismatch', call_id_reused: 'call_id_reused', ended: 'ended' };
    answer(ctx, result, refusals, (call) => ({ carrier_call_id: call.carrier_call_id, call_id: call.call_id, state: call.state }));
  });

  router.post('/carrier/v1/calls/:carrier_call_id/reject', requireCarrierAuth, async (ctx) => {
    const result = calls.reject(ctx.params.carrier_call_id);
    const refusals = { answered: 'call is answered', not_inbound: 'not_inbound' };
    answer(ctx, result, refusals, (call) => ({ carrier_call_id: call.carrier_call_id, state: call.state }));
  });

  router.post('/carrier/v1/calls/:carrier_call_id/hangup', requireCarrierAuth, async (ctx) => {
    const record = calls.hangUpBySwitchboard(ctx.params.carrier_call_id);
    answer(ctx, record, {}, (call) => ({ carrier_call_id: call.carrier_call_id, state: call.state }));
  });

  router.post('/carrier/v1/calls/:carrier_call_id/speak', requireCarrierAuth, async (ctx) => {
    const { text, speak_id: speakId, voice } = await readJson(ctx);
    if (typeof speakId !== 'string' || speakId === '' || speakId.length > 200) return badRequest(ctx, 'speak_id is required');
    if (!isSpeechText(text)) return badRequest(ctx, `text must be a non-blank string of at most ${MAX_SPEECH_TEXT} characters`);
    if (voice !== undefined && voice !== null && !(typeof voice === 'string' && /^[a-z0-9-]{1,64}$/.test(voice)))
      return badRequest(ctx, 'voice must be a voice slug');
    const result = calls.speak(ctx.params.carrier_call_id, speakId, text, typeof voice === 'string' ? voice : null);
    const refusals = { not_answered: NOT_ANSWERED, speak_id_reused: 'speak_id_reused' };
    answer(ctx, result, refusals, (speech) => ({ speak_id: speech.speak_id }), 202);
  });

  router.post('/carrier/v1/calls/:carrier_call_id/dtmf', requireCarrierAuth, async (ctx) => {
    const { digits } = await readJson(ctx);
    if (typeof digits !== 'string' || !/^[0-9*#w]{1,64}$/.test(digits)) return badRequest(ctx, 'digits must be 1 to 64 of 0-9, *, # and w');
    const result = await calls.sendDigits(ctx.params.carrier_call_id, digits);
    answer(ctx, result, { not_answered: NOT_ANSWERED }, (dtmf) => dtmf);
  });

  router.post('/carrier/v1/calls/:carrier_call_id/transfer', requireCarrierAuth, async (ctx) => {
    const { transfer_id: transferId, to, from } = await readJson(ctx);
    if (typeof transferId !== 'string' || transferId === '' || transferId.length > 200) return badRequest(ctx, 'transfer_id is required');
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    if (typeof from !== 'string' || !E164.test(from)) return badRequest(ctx, 'from must be an E.164 number');
    const result = calls.transfer(ctx.params.carrier_call_id, { transferId, to, from });
    const refusals = {
      not_answered: NOT_ANSWERED,
      transfer_in_progress: 'transfer_in_progress',
      transfer_id_reused: 'transfer_id_reused',
    };
    answer(ctx, result, refusals, (transfer) => transfer, 202);
  });

  router.post('/carrier/v1/calls/:carrier_call_id/stop', requireCarrierAuth, async (ctx) => {
    const result = calls.stopSpeaking(ctx.params.carrier_call_id);
    answer(ctx, result, {}, ({ stopped, dropped }) => ({ carrier_call_id: ctx.params.carrier_call_id, stopped, dropped }));
  });

  // The carrier's media store: recordings of ended calls, generated on request (bearer checked by `requireControlToken`).
  router.get('/recordings/:file', async (ctx) => {
    const match = /^(.+)\.wav$/.exec(ctx.params.file);
    const recording = match ? calls.recording(match[1]) : null;
    if (!recording) {
      ctx.status = 404;
      ctx.body = { error: 'no such recording' };
      return;
    }
    const wav = wavRecording(recording.endedAt - recording.answeredAt);
    ctx.type = 'audio/wav';
    ctx.length = wav.length;
    ctx.body = wav.body;
  });

  // The customer deletes a recording (as Twilio's and Telnyx's recording DELETE): 204, then it is gone; 404 for one the
  // store does not have (deleted before included); 409 while its call goes on (bearer checked by `requireControlToken`).
  router.delete('/recordings/:file', async (ctx) => {
    const match = /^(.+)\.wav$/.exec(ctx.params.file);
    const outcome = match ? calls.deleteRecording(match[1]) : 'not_found';
    if (outcome === 'deleted') {
      ctx.status = 204;
      return;
    }
    const fault = {
      unauthorized: [401, 'the credentials are refused'],
      error: [503, 'the media store is unavailable'],
      reject: [400, 'the deletion is refused'],
    } as const;
    if (outcome in fault) {
      const [status, error] = fault[outcome as keyof typeof fault];
      ctx.status = status;
      ctx.body = { error };
      return;
    }
    ctx.status = outcome === 'not_ended' ? 409 : 404;
    ctx.body = { error: outcome === 'not_ended' ? 'the call is not ended' : 'no such recording' };
  });
}

/** How many `then` settings a destination may chain (busy, busy, then answer...). */
const MAX_THEN_DEPTH = 10;

/** A destination's setting as the control API reads it, or why it is not valid. */
function parseSetting(body: Record<string, unknown>, depth: number): DestinationSetting | string {
  const { outcome, ring_ms: ringMs, answered_by: answeredBy, hang_up_after_ms: hangUpAfterMs, then } = body;
  if (outcome !== 'answer' && outcome !== 'busy' && outcome !== 'no_answer' && outcome !== 'fail' && outcome !== 'reject')
    return 'outcome must be answer, busy, no_answer, fail or reject';
  const inRange = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_RING_MS;
  if (ringMs !== undefined && !inRange(ringMs)) return `ring_ms must be an integer from 0 to ${MAX_RING_MS}`;
  if (hangUpAfterMs !== undefined && !inRange(hangUpAfterMs)) return `hang_up_after_ms must be an integer from 0 to ${MAX_RING_MS}`;
  if (answeredBy !== undefined && !(ANSWERERS as readonly unknown[]).includes(answeredBy))
    return `answered_by must be one of ${ANSWERERS.join(', ')}`;
  let next: DestinationSetting | undefined;
  if (then !== undefined) {
    if (depth >= MAX_THEN_DEPTH) return `then may be nested at most ${MAX_THEN_DEPTH} deep`;
    if (typeof then !== 'object' || then === null || Array.isArray(then)) return 'then must be an object';
    const parsed = parseSetting(then as Record<string, unknown>, depth + 1);
    if (typeof parsed === 'string') return `then: ${parsed}`;
    next = parsed;
  }
  return {
    outcome,
    ringMs: (ringMs as number | undefined) ?? DEFAULT_RING_MS,
    ...(answeredBy !== undefined ? { answeredBy: answeredBy as Answerer } : {}),
    ...(hangUpAfterMs !== undefined ? { hangUpAfterMs: hangUpAfterMs as number } : {}),
    ...(next ? { then: next } : {}),
  };
}

type SettingOnWire = {
  outcome: string;
  ring_ms: number;
  answered_by: Answerer | null;
  hang_up_after_ms: number | null;
  then?: SettingOnWire;
};

function settingOnWire(setting: DestinationSetting): SettingOnWire {
  return {
    outcome: setting.outcome,
    ring_ms: setting.ringMs,
    answered_by: setting.answeredBy ?? null,
    hang_up_after_ms: setting.hangUpAfterMs ?? null,
    ...(setting.then ? { then: settingOnWire(setting.then) } : {}),
  };
}

/** What tests and the demo call to steer calls (control token, checked for the whole app). */
function controlCallRoutes(router: Router, calls: CallSimulatorState, callbacks: CallbackSender): void {
  router.get('/control/calls', async (ctx) => {
    ctx.body = { calls: calls.list() };
  });
  router.get('/control/calls/outcomes', async (ctx) => {
    ctx.body = { outcomes: [...calls.outcomes].map(([to, setting]) => ({ to, ...settingOnWire(setting) })) };
  });
  router.post('/control/calls/outcomes', async (ctx) => {
    const body = await readJson(ctx);
    if (typeof body.to !== 'string' || !E164.test(body.to)) return badRequest(ctx, 'to must be an E.164 number');
    const setting = parseSetting(body, 0);
    if (typeof setting === 'string') return badRequest(ctx, setting);
    calls.setDestination(body.to, setting);
    ctx.body = { to: body.to, ...settingOnWire(setting) };
  });
  router.delete('/control/calls/outcomes', async (ctx) => {
    calls.outcomes.clear();
    ctx.body = { reset: true };
  });
  router.post('/control/calls/inbound', async (ctx) => {
    const { from, to, events_url: eventsUrl } = await readJson(ctx);
    if (typeof from !== 'string' || !E164.test(from)) return badRequest(ctx, 'from must be an E.164 number');
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    const target = callbacks.resolve(eventsUrl, '/carrier/events');
    if ('error' in target) return badRequest(ctx, `events_url ${target.error}`);
    const record = calls.incoming({ from, to, eventsUrl: target.url });
    ctx.status = 201;
    ctx.body = { carrier_call_id: record.carrier_call_id };
  });
  router.post('/control/recordings/faults', async (ctx) => {
    const { mode, count } = await readJson(ctx);
    if (mode !== 'normal' && mode !== 'unauthorized' && mode !== 'error' && mode !== 'reject')
      return badRequest(ctx, 'mode must be normal, unauthorized, error or reject');
    if (count !== undefined && !(typeof count === 'number' && Number.isSafeInteger(count) && count > 0))
      return badRequest(ctx, 'count must be a positive integer');
    calls.recordingDeleteFault = { mode, remaining: mode === 'normal' || count === undefined ? null : count };
    ctx.body = { mode, remaining: calls.recordingDeleteFault.remaining };
  });
  router.post('/control/calls/reset', async (ctx) => {
    calls.reset();
    ctx.body = { reset: true };
  });
  router.get('/control/speech', async (ctx) => {
    ctx.body = { words_per_second: calls.wordsPerSecond };
  });
  router.post('/control/speech', async (ctx) => {
    const { words_per_second: wordsPerSecond } = await readJson(ctx);
    if (!(
      typeof wordsPerSecond === 'number' &&
      Number.isFinite(wordsPerSecond) &&
      wordsPerSecond > 0 &&
      wordsPerSecond <= MAX_WORDS_PER_SECOND
    )) {
      return badRequest(ctx, `words_per_second must be a number above 0 and at most ${MAX_WORDS_PER_SECOND}`);
    }
    calls.wordsPerSecond = wordsPerSecond;
    ctx.body = { words_per_second: calls.wordsPerSecond };
  });
  router.get('/control/calls/:call_id/dtmf', async (ctx) => {
    answer(ctx, calls.dtmfFor(ctx.params.call_id), {}, (dtmf) => ({ dtmf }));
  });
  router.get('/control/calls/:call_id/speech', async (ctx) => {
    answer(ctx, calls.speechFor(ctx.params.call_id), {}, (speech) => ({ speech }));
  });
  /** A refused caller action also says what state the call is in. */
  const notAnswered = (ctx: RouterContext) => ({ status: 409, body: { error: NOT_ANSWERED, state: calls.get(ctx.params.call_id)?.state } });
  /** After a transfer the caller talks with its destination: the carrier reports nothing of it. */
  const transferred = { status: 409, body: { error: 'call is transferred' } };
  const callerSpeaks = async (ctx: RouterContext, bargeIn: boolean) => {
    const body = await readJson(ctx);
    if (!isSpeechText(body.text)) return badRequest(ctx, `text must be a non-blank string of at most ${MAX_SPEECH_TEXT} characters`);
    const language = languageOf(body.language);
    if (language === null) return badRequest(ctx, 'language must be a language tag such as en or pt-BR');
    const said = { call_id: ctx.params.call_id, text: body.text, language };
    if (bargeIn) {
      const result = calls.bargeIn(ctx.params.call_id, body.text, language);
      answer(ctx, result, { not_answered: notAnswered(ctx), transferred }, ({ stopped }) => ({ ...said, stopped }), 202);
    } else {
      answer(ctx, calls.say(ctx.params.call_id, body.text, language), { not_answered: notAnswered(ctx), transferred }, () => said, 202);
    }
  };
  router.post('/control/calls/:call_id/say', (ctx) => callerSpeaks(ctx, false));
  router.post('/control/calls/:call_id/barge-in', (ctx) => callerSpeaks(ctx, true));
  router.post('/control/calls/:call_id/hangup', async (ctx) => {
    const result = calls.hangUpByCaller(ctx.params.call_id);
    answer(ctx, result, { not_answered: notAnswered(ctx) }, (call) => call);
  });
}
