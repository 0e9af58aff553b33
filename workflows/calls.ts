import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BillingActivities } from '../activities/billing';
import type { CallActivities, CallFacts } from '../activities/calls';
import type { WebhookActivities } from '../activities/webhooks';
import { callChargeCents, type Zone } from '../src/billing/pricing';
import { callDurationMs, MAX_CALL_DURATION_MS, RING_TIMEOUT_MS, type CallStatus, type EndCause } from '../src/calls/rules';
import type { LineMode } from '../src/lines/rules';

const calls = proxyActivities<CallActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', nonRetryableErrorTypes: ['CarrierRejected'] },
});
/** The `message` event: one attempt, never retried (a late answer would be spoken out of turn). */
const webhooks = proxyActivities<WebhookActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });
const billing = proxyActivities<BillingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

export interface CarrierCallEvent {
  type: 'call.ringing' | 'call.answered' | 'call.completed' | 'call.busy' | 'call.no_answer' | 'call.failed' | 'call.utterance' | 'call.playback';
  /** Epoch milliseconds, from the carrier: billing and turn order are measured on these. */
  at: number;
  ended_by?: 'caller' | 'switchboard';
  answered?: boolean;
  /** call.completed of a recorded call: where the carrier keeps the recording. */
  recording_url?: string;
  /** call.utterance: what the caller said, and the language heard. */
  text?: string;
  language?: string;
  /** call.playback: progress of one speak command. */
  speak_id?: string;
  played_text?: string;
  done?: boolean;
  stopped?: boolean;
}

export const carrierEventSignal = defineSignal<[CarrierCallEvent]>('carrierEvent');
export const hangupSignal = defineSignal('hangup');
export const callStatusQuery = defineQuery<CallStatus>('status');

export interface CallInput extends CallFacts {
  mode: LineMode;
  zone: Zone;
  /**
   * The one-minute reserve. For outbound calls the API already held it (reference
   * `call:<id>`); for inbound calls the workflow holds it before answering.
   */
  reservePerMinuteCents: number;
  /** Inbound calls: the carrier's id of the ringing call to answer. */
  carrierCallId?: string;
  /** Spoken first on compliance-enabled lines (the default disclosure of the line's language). */
  disclosure?: { id: string; message: string } | null;
  /** Spoken when the call connects, after any disclosure. */
  beginMessage?: string | null;
  /** Turns of context sent with each `message` (the line's context_limit). */
  contextLimit?: number | null;
  /** Pinned-language lines omit `detected_language`. */
  languagePinned?: boolean;
}

/** Turns of context when a line sets no context_limit. */
const DEFAULT_CONTEXT_TURNS = 20;

export interface CallResult {
  status: CallStatus;
  endCause: EndCause;
  durationSec: number;
  chargeCents: number;
}

const TERMINAL: ReadonlyArray<CarrierCallEvent['type']> = ['call.completed', 'call.busy', 'call.no_answer', 'call.failed'];
/** After we hang up, how long we wait for the carrier's own end time before using ours. */
const HANGUP_CONFIRMATION = '10 seconds';

/**
 * One outbound call, from dialing to settlement (workflow id = call id). Funds for the first
 * minute are already held; each further minute is held before it starts, and a refused
 * extension ends the call. The end settles the exact per-second charge, once.
 */
export async function callWorkflow(call: CallInput): Promise<CallResult> {
  const reference = `call:${call.callId}`;
  const tenant = { workspaceId: call.workspaceId, environment: call.environment };
  const events: CarrierCallEvent[] = [];
  let hangupRequested = false;
  let status: CallStatus = 'initiated';
  setHandler(carrierEventSignal, (event) => void events.push(event));
  setHandler(hangupSignal, () => void (hangupRequested = true));
  setHandler(callStatusQuery, () => status);
  const seen = (type: CarrierCallEvent['type']) => events.find((e) => e.type === type);
  const utterances = () => events.filter((e) => e.type === 'call.utterance');
  const playback = (speakId: string) => events.filter((e) => e.type === 'call.playback' && e.speak_id === speakId);
  const transcript: Array<{ role: 'user' | 'assistant'; text: string; timestamp: number }> = [];
  let handledUtterances = 0;
  let speakCount = 0;
  /** Speak commands of the agent's current reply, in order (one, or one per streamed chunk). */
  let currentSpeeches: string[] = [];
  const terminal = () => events.find((e) => TERMINAL.includes(e.type));

  const finish = async (final: CallStatus, endCause: EndCause, answeredAt: number | null, endedAt: number): Promise<CallResult> => {
    status = final;
    const durationMs = callDurationMs(answeredAt, endedAt);
    const chargeCents = answeredAt === null ? 0 : callChargeCents(call.mode, call.zone, durationMs);
    const durationSec = Math.ceil(durationMs / 1000);
    await billing.settleReservation({
      tenant,
      reference,
      chargeCents,
      type: 'call_charge',
      description: `Call to ${call.to} (${durationSec} s)`,
      lineId: call.lineId,
      usage: { kind: 'call', seconds: durationSec },
    });
    const recordingUrl = terminal()?.recording_url;
    await calls.recordCallState(call.callId, { status: final, endedAt, durationSec, chargeCents, endCause, ...(recordingUrl ? { recordingUrl } : {}) });
    if (answeredAt !== null) {
      await calls.publishCallEvent(call, 'call_ended', { duration_sec: durationSec, cause: endCause, status: final, recording_url: recordingUrl ?? null });
    }
    return { status: final, endCause, durationSec, chargeCents };
  };

  /** An inbound call that is never answered: nothing was held or charged. */
  const decline = async (final: CallStatus, endCause: EndCause): Promise<CallResult> => {
    status = final;
    await calls.recordCallState(call.callId, { status: final, endedAt: Date.now(), durationSec: 0, chargeCents: 0, endCause });
    return { status: final, endCause, durationSec: 0, chargeCents: 0 };
  };

  const hangUpAndWait = async (carrierCallId: string): Promise<number> => {
    await calls.hangUpCall(carrierCallId);
    await condition(() => terminal() !== undefined, HANGUP_CONFIRMATION);
    return terminal()?.at ?? Date.now();
  };

  const say = async (carrierCallId: string, text: string, at: number): Promise<void> => {
    speakCount += 1;
    const speakId = `${call.callId}:speak-${speakCount}`;
    currentSpeeches.push(speakId);
    await calls.speak(carrierCallId, speakId, text);
    transcript.push({ role: 'assistant', text, timestamp: at });
  };

  /**
   * One caller turn: if the agent was talking, cut it off and tell the customer what was heard
   * (`interrupted`, timed before the turn); then send `message` and speak the `{text}` reply.
   */
  const takeTurn = async (carrierCallId: string, utterance: CarrierCallEvent): Promise<void> => {
    if (currentSpeeches.length > 0) {
      const speeches = currentSpeeches;
      currentSpeeches = [];
      const finished = (id: string) => playback(id).some((e) => e.done);
      const stopped = (id: string) => playback(id).some((e) => e.stopped);
      // Still talking: cut it off now (the carrier may already have, on its own barge-in detection).
      if (!speeches.every(finished)) {
        await calls.stopSpeaking(carrierCallId);
        await condition(() => speeches.some(stopped) || speeches.every(finished), '2 seconds');
      }
      if (!speeches.every(finished) || speeches.some(stopped)) {
        // What the caller actually heard: every chunk's played part, in order.
        const heard = speeches
          .map((id) => playback(id).slice(-1)[0]?.played_text ?? '')
          .filter((text) => text !== '')
          .join(' ');
        const stoppedAt = speeches.flatMap((id) => playback(id).filter((e) => e.stopped).map((e) => e.at));
        await calls.publishCallEvent(
          call,
          'interrupted',
          // Ordered before the message of the turn that interrupted it.
          { partial_response_text: heard, timestamp: Math.min(...stoppedAt, utterance.at - 1) },
          handledUtterances,
        );
      }
    }
    transcript.push({ role: 'user', text: utterance.text ?? '', timestamp: utterance.at });
    const limit = call.contextLimit ?? DEFAULT_CONTEXT_TURNS;
    const { eventId } = await calls.recordMessageEvent(call, handledUtterances, {
      text: utterance.text ?? '',
      timestamp: utterance.at,
      context: transcript.slice(-limit).map((t) => ({ role: t.role, text: t.text, timestamp: t.timestamp })),
      ...(call.languagePinned ? {} : { detected_language: utterance.language ?? 'en' }),
    });
    // A `{text}` reply is spoken here; an NDJSON reply was spoken chunk by chunk by the activity.
    const outcome = await webhooks.attemptDelivery(eventId, 1, { carrierCallId, speakIdPrefix: `${call.callId}:turn-${handledUtterances}` });
    if (outcome.spokenChunks) {
      currentSpeeches.push(...outcome.spokenChunks.map((chunk) => chunk.speakId));
      transcript.push({ role: 'assistant', text: outcome.spokenChunks.map((chunk) => chunk.text).join(' '), timestamp: Date.now() });
    } else if (outcome.replyText) {
      await say(carrierCallId, outcome.replyText, Date.now());
    }
    await calls.recordTranscript(call.callId, transcript);
  };

  let carrierCallId: string;
  let answered: CarrierCallEvent | undefined;
  if (call.direction === 'inbound') {
    // Answer: hold the first minute, tell the status callback, pick up.
    carrierCallId = call.carrierCallId!;
    const hold = await billing.reserveFunds({ tenant, keyId: null, reference, amountCents: call.reservePerMinuteCents });
    if (!hold.ok) {
      await calls.rejectCall(carrierCallId);
      return decline('failed', 'insufficient_funds');
    }
    await calls.publishCallEvent(call, 'call_incoming', { from_number: call.from, to_number: call.to, relay_url: null });
    await calls.answerCall(call.callId, carrierCallId, call.record ?? false);
    await condition(() => seen('call.answered') !== undefined || terminal() !== undefined || hangupRequested, RING_TIMEOUT_MS);
    answered = seen('call.answered');
    if (!answered) {
      if (!terminal()) await calls.hangUpCall(carrierCallId);
      return finish('canceled', hangupRequested ? 'canceled' : 'caller_hangup', null, terminal()?.at ?? Date.now());
    }
  } else {
    // Dial.
    ({ carrierCallId } = await calls.placeCall(call));
    await calls.publishCallEvent(call, 'call_outgoing', { to_number: call.to, from_number: call.from, relay_url: null });

    // Ring: record `ringing` as soon as the carrier says so, then wait for an answer.
    const dialedAt = Date.now();
    const settled = () => seen('call.answered') !== undefined || terminal() !== undefined || hangupRequested;
    await condition(() => seen('call.ringing') !== undefined || settled(), RING_TIMEOUT_MS);
    if (seen('call.ringing') && !settled()) {
      status = 'ringing';
      await calls.recordCallState(call.callId, { status });
    }
    await condition(settled, Math.max(1, RING_TIMEOUT_MS - (Date.now() - dialedAt)));
    answered = seen('call.answered');
    if (!answered) {
      const end = terminal();
      if (end?.type === 'call.busy') return finish('busy', 'busy', null, end.at);
      if (end?.type === 'call.failed') return finish('failed', 'carrier_failed', null, end.at);
      if (end?.type === 'call.no_answer') return finish('no_answer', 'no_answer', null, end.at);
      if (end) return finish('canceled', 'caller_hangup', null, end.at);
      const endedAt = await hangUpAndWait(carrierCallId);
      return hangupRequested ? finish('canceled', 'canceled', null, endedAt) : finish('no_answer', 'ring_timeout', null, Math.max(endedAt, dialedAt));
    }
  }

  // Talk, holding each next minute before it starts.
  status = 'in_progress';
  await calls.recordCallState(call.callId, { status, startedAt: answered.at });
  await calls.publishCallEvent(call, 'call_started', { direction: call.direction, from_number: call.from, to_number: call.to });
  if (call.disclosure) {
    await say(carrierCallId, call.disclosure.message, answered.at);
    await calls.recordDisclosurePlayed(call, call.disclosure.id);
  }
  if (call.beginMessage) await say(carrierCallId, call.beginMessage, answered.at);
  if (call.disclosure || call.beginMessage) await calls.recordTranscript(call.callId, transcript);
  const answeredAt = answered.at;
  const answeredLocally = Date.now();
  let minutesHeld = 1;
  for (;;) {
    const elapsed = Date.now() - answeredLocally;
    const untilNextMinute = minutesHeld * 60_000 - elapsed;
    const untilMax = MAX_CALL_DURATION_MS - elapsed;
    const woke = await condition(
      () => terminal() !== undefined || hangupRequested || utterances().length > handledUtterances,
      Math.max(1, Math.min(untilNextMinute, untilMax)),
    );
    if (terminal() !== undefined || hangupRequested) {
      const end = terminal();
      if (end) return finish('completed', end.ended_by === 'switchboard' ? 'api_hangup' : 'caller_hangup', answeredAt, end.at);
      return finish('completed', 'api_hangup', answeredAt, await hangUpAndWait(carrierCallId));
    }
    if (woke) {
      const utterance = utterances()[handledUtterances];
      handledUtterances += 1;
      await takeTurn(carrierCallId, utterance);
      continue;
    }
    if (Date.now() - answeredLocally >= MAX_CALL_DURATION_MS) {
      return finish('completed', 'max_duration', answeredAt, await hangUpAndWait(carrierCallId));
    }
    const extended = await billing.extendReservation({ tenant, reference, totalCents: call.reservePerMinuteCents * (minutesHeld + 1) });
    if (!extended.ok) return finish('completed', 'insufficient_funds', answeredAt, await hangUpAndWait(carrierCallId));
    minutesHeld += 1;
  }
}

