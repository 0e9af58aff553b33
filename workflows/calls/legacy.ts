import {
  ActivityFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { BillingActivities } from '../../activities/billing';
import type { CallActivities, MessageTurnOutcome } from '../../activities/calls';
import type { WebhookActivities } from '../../activities/webhooks';
import type { AudioActivities, RelayCallAudioResult } from '../../activities/audio/activities';
import type { HostedActivities, HostedTurnOutcome } from '../../activities/hosted';
import {
  CALL_NOT_ACTIVE,
  DTMF_DIGITS,
  pressUpdate,
  speakUpdate,
  waitUpdate,
  type PressRequest,
  type SpeakRequest,
  type SpeakResult,
  type WaitRequest,
  type WaitResult,
} from '../definitions/callControl';
import { callChargeCents } from '../../src/domain/billing/pricing';
import {
  callDurationMs,
  hostedSpeakIdPrefix,
  MAX_CALL_DURATION_MS,
  RING_TIMEOUT_MS,
  type CallStatus,
  type EndCause,
} from '../../src/domain/calls/rules';
import {
  callStatusQuery,
  carrierEventSignal,
  hangupSignal,
  type CallInput,
  type CallResult,
  type SignalledCallEvent,
} from '../definitions/calls';
import * as options from '../activityOptions';
import { patches } from '../patches';

/** Carrier commands and records (before v2, one proxy for both: carrier commands had no time budget). */
const calls = proxyActivities<CallActivities>(options.legacyCallCarrier);
/** The `message` event: one attempt, never retried (a late answer would be spoken out of turn). */
const webhooks = proxyActivities<WebhookActivities>(options.oneShot);
/**
 * A whole caller turn (`takeMessageTurn`), as a local activity: it runs inside the workflow task
 * that saw the caller's sentence, with no activity task through the server, and its result is
 * recorded in the history as a marker. One attempt, as above; a re-run after a crashed worker
 * finds the attempt already made and does not POST the `message` again.
 */
const turns = proxyLocalActivities<CallActivities>(options.oneShot);
const billing = proxyActivities<BillingActivities>(options.store);
const hosted = proxyActivities<HostedActivities>(options.hostedTurn);
const audio = proxyActivities<AudioActivities>(options.audioRelay);
const keypad = proxyActivities<CallActivities>(options.keypad);

/** Turns of context when a line sets no context_limit. */
const DEFAULT_CONTEXT_TURNS = 20;

const TERMINAL: ReadonlyArray<SignalledCallEvent['type']> = ['call.completed', 'call.busy', 'call.no_answer', 'call.failed'];
/** After we hang up, how long we wait for the carrier's own end time before using ours. */
const HANGUP_CONFIRMATION = '10 seconds';

/**
 * The call workflow as it was before `call-workflow-v2` (see workflows/calls/workflow.ts): kept unchanged
 * so calls started before that version, and their recorded histories, replay exactly. New calls
 * never run it.
 *
 * When to remove it (with `patches.turnInOneActivity`, which only this path checks, and the transcript
 * writers only it uses): see `patches.callV2` in workflows/patches.ts.
 */
export async function legacyCallWorkflow(call: CallInput): Promise<CallResult> {
  const reference = `call:${call.callId}`;
  const tenant = { workspaceId: call.workspaceId, environment: call.environment };
  const events: SignalledCallEvent[] = [];
  let hangupRequested = false;
  let status: CallStatus = 'initiated';
  setHandler(carrierEventSignal, (event) => void events.push(event));
  setHandler(hangupSignal, () => void (hangupRequested = true));
  setHandler(callStatusQuery, () => status);
  const seen = (type: SignalledCallEvent['type']) => events.find((e) => e.type === type);
  const utterances = () => events.filter((e) => e.type === 'call.utterance');
  const playback = (speakId: string) => events.filter((e) => e.type === 'call.playback' && e.speak_id === speakId);
  const transcript: Array<{ role: 'user' | 'assistant'; text: string; timestamp: number }> = [];
  let handledUtterances = 0;
  let speakCount = 0;
  /** Speak commands of the agent's current reply, in order (one, or one per streamed chunk). */
  let currentSpeeches: string[] = [];
  const terminal = () => events.find((e) => TERMINAL.includes(e.type));
  const ended = () => terminal() !== undefined || hangupRequested;
  const maxDurationMs = Math.min(call.maxDurationMs ?? MAX_CALL_DURATION_MS, MAX_CALL_DURATION_MS);
  /** Set once the call is dialled or answered. */
  let carrierCallId: string | undefined;
  /**
   * Live-control requests waiting for the caller's next sentence. While any is, sentences go to
   * them and are not sent as `message` (nor to the model).
   */
  let claimedByControl = 0;
  let controlSpeeches = 0;
  /** Audio lines: the relay to the customer's socket, and how it ended (once it has). */
  let relayScope: CancellationScope | undefined;
  let relayEnded: RelayCallAudioResult | { endedBy: 'relay_failed' } | undefined;
  let relayHandled = false;

  // Live control (`calls:control`): updates, so each request and its result are in the history.
  const live = () => status === 'in_progress' && !ended() && carrierCallId !== undefined;
  const mustBeLive = () => {
    if (!live()) throw new Error(CALL_NOT_ACTIVE);
  };
  /** The caller's next sentence, claimed for a control request; null after `timeoutSeconds` or when the call ends. */
  const nextSentence = async (timeoutSeconds: number): Promise<SignalledCallEvent | null> => {
    await condition(() => ended() || utterances().length > handledUtterances, timeoutSeconds * 1000);
    if (utterances().length <= handledUtterances) return null;
    const utterance = utterances()[handledUtterances];
    handledUtterances += 1;
    transcript.push({ role: 'user', text: utterance.text ?? '', timestamp: utterance.at });
    return utterance;
  };
  setHandler(
    speakUpdate,
    async ({ text, waitForResponse, timeoutSeconds }): Promise<SpeakResult> => {
      if (waitForResponse) claimedByControl += 1;
      try {
        controlSpeeches += 1;
        const speakId = `${call.callId}:control-${controlSpeeches}`;
        const heardBefore = utterances().length;
        await calls.speak(carrierCallId!, speakId, text, call.voice ?? null);
        transcript.push({ role: 'assistant', text, timestamp: Date.now() });
        const finished = () => playback(speakId).some((e) => e.done);
        const stopped = () => playback(speakId).some((e) => e.stopped);
        // Played to the end, cut off (the caller talked over it), or the call ended.
        await condition(() => finished() || ended() || utterances().length > heardBefore);
        if (!finished() && !ended()) {
          await calls.stopSpeaking(carrierCallId!);
          await condition(() => finished() || ended(), '2 seconds');
        }
        const interrupted = !finished() || stopped();
        const response = waitForResponse && !ended() ? await nextSentence(timeoutSeconds) : null;
        await calls.recordTranscript(call.callId, transcript);
        return {
          call_id: call.callId,
          spoke: !interrupted,
          interrupted,
          partial_response_text: interrupted ? (playback(speakId).slice(-1)[0]?.played_text ?? '') : null,
          interruption_reason: interrupted ? (ended() && !stopped() ? 'call_ended' : 'caller_interrupted_control') : null,
          timed_out: waitForResponse && response === null,
          response_text: response?.text ?? null,
          response_timestamp: response?.at ?? null,
        };
      } finally {
        if (waitForResponse) claimedByControl -= 1;
      }
    },
    { validator: (_request: SpeakRequest) => mustBeLive() },
  );
  setHandler(
    waitUpdate,
    async ({ timeoutSeconds }): Promise<WaitResult> => {
      claimedByControl += 1;
      try {
        const response = await nextSentence(timeoutSeconds);
        if (response) await calls.recordTranscript(call.callId, transcript);
        return {
          call_id: call.callId,
          timed_out: response === null,
          response_text: response?.text ?? null,
          response_timestamp: response?.at ?? null,
        };
      } finally {
        claimedByControl -= 1;
      }
    },
    { validator: (_request: WaitRequest) => mustBeLive() },
  );
  setHandler(
    pressUpdate,
    async ({ digits }) => {
      const { pressed } = await keypad.sendDigits(carrierCallId!, digits);
      return { call_id: call.callId, pressed, digits };
    },
    {
      validator: ({ digits }: PressRequest) => {
        mustBeLive();
        if (!DTMF_DIGITS.test(digits)) throw new Error('digits must be 0-9, *, # or w');
      },
    },
  );

  const finish = async (final: CallStatus, endCause: EndCause, answeredAt: number | null, endedAt: number): Promise<CallResult> => {
    status = final;
    // The customer's audio socket gets its `stop`.
    relayScope?.cancel();
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
    await calls.recordCallState(call.callId, {
      status: final,
      endedAt,
      durationSec,
      chargeCents,
      endCause,
      ...(recordingUrl ? { recordingUrl } : {}),
    });
    if (answeredAt !== null) {
      await calls.publishCallEvent(call, 'call_ended', {
        duration_sec: durationSec,
        cause: endCause,
        status: final,
        recording_url: recordingUrl ?? null,
      });
    }
    // Control requests still waiting see the call end and answer first.
    await condition(allHandlersFinished);
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
    await calls.speak(carrierCallId, speakId, text, call.voice ?? null);
    transcript.push({ role: 'assistant', text, timestamp: at });
  };

  /** Hosted speech of one turn that the carrier has reported on, in chunk order. */
  const hostedSpeechIds = (prefix: string) =>
    [...new Set(events.filter((e) => e.type === 'call.playback' && e.speak_id?.startsWith(prefix)).map((e) => e.speak_id!))].sort(
      (a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)),
    );

  /**
   * A hosted turn: the model's reply is streamed and spoken sentence by sentence by an activity.
   * If the caller talks while the model is still writing, the activity is cancelled there (the
   * next turn then stops the playback and reports `interrupted`, as in webhook mode).
   */
  const takeHostedTurn = async (carrierCallId: string, limit: number, language: string | undefined): Promise<void> => {
    const turn = handledUtterances;
    const prefix = hostedSpeakIdPrefix(call.callId, turn);
    const scope = new CancellationScope();
    let outcome: HostedTurnOutcome | undefined;
    let done = false;
    const running = scope
      .run(() =>
        hosted.takeHostedTurn({
          callId: call.callId,
          carrierCallId,
          turn,
          systemPrompt: call.systemPrompt ?? '',
          turns: transcript.slice(-limit).map((t) => ({ role: t.role, text: t.text })),
          voice: call.voice ?? null,
          ...(language ? { language } : {}),
        }),
      )
      .then((result) => void (outcome = result))
      .catch((err) => {
        // Cancelled by a barge-in, or the attempt was lost: silence, and the call goes on.
        if (!isCancellation(err) && !(err instanceof ActivityFailure)) throw err;
      })
      .finally(() => void (done = true));
    await condition(() => done || ended() || utterances().length > handledUtterances);
    if (!done) {
      scope.cancel();
      await running;
    }
    const spoken = outcome ? outcome.spokenChunks.map((chunk) => chunk.speakId) : hostedSpeechIds(prefix);
    currentSpeeches.push(...spoken);
    const text = outcome
      ? outcome.spokenChunks.map((chunk) => chunk.text).join(' ')
      : spoken
          .map((id) => playback(id).slice(-1)[0]?.played_text ?? '')
          .filter((played) => played !== '')
          .join(' ');
    if (text !== '') transcript.push({ role: 'assistant', text, timestamp: outcome?.repliedAt ?? Date.now() });
    await calls.recordTranscript(call.callId, transcript);
  };

  /**
   * One caller turn: if the agent was talking, cut it off and tell the customer what was heard
   * (`interrupted`, timed before the turn); then send `message` and speak the `{text}` reply.
   */
  const takeTurn = async (carrierCallId: string, utterance: SignalledCallEvent): Promise<void> => {
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
        const stoppedAt = speeches.flatMap((id) =>
          playback(id)
            .filter((e) => e.stopped)
            .map((e) => e.at),
        );
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
    if (call.mode === 'hosted') return takeHostedTurn(carrierCallId, limit, utterance.language);
    if (patched(patches.turnInOneActivity)) {
      const replySpeakId = `${call.callId}:speak-${speakCount + 1}`;
      let outcome: MessageTurnOutcome | undefined;
      try {
        outcome = await turns.takeMessageTurn(call, {
          turn: handledUtterances,
          said: transcript[transcript.length - 1],
          context: transcript.slice(-limit).map((t) => ({ role: t.role, text: t.text, timestamp: t.timestamp })),
          // What the carrier heard, never a guess (every recorded utterance carried a language: replay-safe).
          ...(call.languagePinned || !utterance.language ? {} : { detectedLanguage: utterance.language }),
          carrierCallId,
          speakIdPrefix: `${call.callId}:turn-${handledUtterances}`,
          replySpeakId,
        });
      } catch (err) {
        // The attempt was lost (a crashed worker, a database error): the caller hears silence,
        // as for a failed delivery, and the call goes on.
        if (!(err instanceof ActivityFailure)) throw err;
      }
      let transcriptWritten = outcome?.transcriptWritten ?? false;
      if (outcome?.spokenChunks) {
        currentSpeeches.push(...outcome.spokenChunks.map((chunk) => chunk.speakId));
        transcript.push({
          role: 'assistant',
          text: outcome.spokenChunks.map((chunk) => chunk.text).join(' '),
          timestamp: outcome.repliedAt,
        });
      } else if (outcome?.replyText && outcome.replySpoken) {
        speakCount += 1;
        currentSpeeches.push(replySpeakId);
        transcript.push({ role: 'assistant', text: outcome.replyText, timestamp: outcome.repliedAt });
      } else if (outcome?.replyText) {
        // The carrier refused it inside the turn: speak it here, with retries.
        await say(carrierCallId, outcome.replyText, Date.now());
        transcriptWritten = false;
      }
      if (!transcriptWritten) await calls.recordTranscript(call.callId, transcript);
      return;
    }
    const { eventId } = await calls.recordMessageEvent(call, handledUtterances, {
      text: utterance.text ?? '',
      timestamp: utterance.at,
      context: transcript.slice(-limit).map((t) => ({ role: t.role, text: t.text, timestamp: t.timestamp })),
      ...(call.languagePinned || !utterance.language ? {} : { detected_language: utterance.language }),
    });
    // A `{text}` reply is spoken here; an NDJSON reply was spoken chunk by chunk by the activity.
    const outcome = await webhooks.attemptDelivery(eventId, 1, {
      carrierCallId,
      speakIdPrefix: `${call.callId}:turn-${handledUtterances}`,
    });
    if (outcome.spokenChunks) {
      currentSpeeches.push(...outcome.spokenChunks.map((chunk) => chunk.speakId));
      transcript.push({ role: 'assistant', text: outcome.spokenChunks.map((chunk) => chunk.text).join(' '), timestamp: Date.now() });
    } else if (outcome.replyText) {
      await say(carrierCallId, outcome.replyText, Date.now());
    }
    await calls.recordTranscript(call.callId, transcript);
  };

  let answered: SignalledCallEvent | undefined;
  /** Where an audio line's stream goes, for the status callbacks. */
  const relayUrl = call.mode === 'audio' ? (call.audioHandlerUrl ?? null) : null;
  if (call.direction === 'inbound') {
    // Answer: hold the first minute, tell the status callback, pick up.
    carrierCallId = call.carrierCallId!;
    const ringingCallId = carrierCallId;
    const hold = await billing.reserveFunds({ tenant, keyId: null, reference, amountCents: call.reservePerMinuteCents });
    if (!hold.ok) {
      await calls.rejectCall(ringingCallId);
      return decline('failed', 'insufficient_funds');
    }
    await calls.publishCallEvent(call, 'call_incoming', { from_number: call.from, to_number: call.to, relay_url: relayUrl });
    await calls.answerCall(call.callId, ringingCallId, call.record ?? false);
    await condition(() => seen('call.answered') !== undefined || terminal() !== undefined || hangupRequested, RING_TIMEOUT_MS);
    answered = seen('call.answered');
    if (!answered) {
      if (!terminal()) await calls.hangUpCall(ringingCallId);
      return finish('canceled', hangupRequested ? 'canceled' : 'caller_hangup', null, terminal()?.at ?? Date.now());
    }
  } else {
    // Dial.
    ({ carrierCallId } = await calls.placeCall(call));
    await calls.publishCallEvent(call, 'call_outgoing', { to_number: call.to, from_number: call.from, relay_url: relayUrl });

    // Ring: record `ringing` as soon as the carrier says so, then wait for an answer.
    const dialledAt = Date.now();
    const settled = () => seen('call.answered') !== undefined || terminal() !== undefined || hangupRequested;
    await condition(() => seen('call.ringing') !== undefined || settled(), RING_TIMEOUT_MS);
    if (seen('call.ringing') && !settled()) {
      status = 'ringing';
      await calls.recordCallState(call.callId, { status });
    }
    await condition(settled, Math.max(1, RING_TIMEOUT_MS - (Date.now() - dialledAt)));
    answered = seen('call.answered');
    if (!answered) {
      const end = terminal();
      if (end?.type === 'call.busy') return finish('busy', 'busy', null, end.at);
      if (end?.type === 'call.failed') return finish('failed', 'carrier_failed', null, end.at);
      if (end?.type === 'call.no_answer') return finish('no_answer', 'no_answer', null, end.at);
      if (end) return finish('canceled', 'caller_hangup', null, end.at);
      const endedAt = await hangUpAndWait(carrierCallId!);
      return hangupRequested
        ? finish('canceled', 'canceled', null, endedAt)
        : finish('no_answer', 'ring_timeout', null, Math.max(endedAt, dialledAt));
    }
  }

  // Talk, holding each next minute before it starts.
  const connectedCallId: string = carrierCallId!;
  status = 'in_progress';
  await calls.recordCallState(call.callId, { status, startedAt: answered.at });
  await calls.publishCallEvent(call, 'call_started', { direction: call.direction, from_number: call.from, to_number: call.to });
  if (call.disclosure) {
    await say(connectedCallId, call.disclosure.message, answered.at);
    await calls.recordDisclosurePlayed(call, call.disclosure.id);
  }
  if (call.beginMessage) await say(connectedCallId, call.beginMessage, answered.at);
  if (call.disclosure || call.beginMessage) await calls.recordTranscript(call.callId, transcript);
  if (call.mode === 'audio' && call.audioHandlerUrl) {
    // The customer's socket takes the call's audio both ways until the call ends.
    const scope = new CancellationScope();
    relayScope = scope;
    const handlerUrl = call.audioHandlerUrl;
    void scope
      .run(() => audio.relayCallAudio({ callId: call.callId, lineId: call.lineId, carrierCallId: connectedCallId, handlerUrl }))
      .then((summary) => void (relayEnded = summary))
      .catch((err) => {
        if (!isCancellation(err)) relayEnded = { endedBy: 'relay_failed' };
      });
  }
  /** A sentence for the conversation loop (not claimed by a control request; audio lines have none). */
  const turnWaiting = () => claimedByControl === 0 && utterances().length > handledUtterances;
  const relayWaiting = () => relayEnded !== undefined && !relayHandled;
  const answeredAt = answered.at;
  const answeredLocally = Date.now();
  let minutesHeld = 1;
  for (;;) {
    const elapsed = Date.now() - answeredLocally;
    const untilNextMinute = minutesHeld * 60_000 - elapsed;
    const untilMax = maxDurationMs - elapsed;
    const woke = await condition(() => ended() || relayWaiting() || turnWaiting(), Math.max(1, Math.min(untilNextMinute, untilMax)));
    if (ended()) {
      const end = terminal();
      if (end) return finish('completed', end.ended_by === 'switchboard' ? 'api_hangup' : 'caller_hangup', answeredAt, end.at);
      return finish('completed', 'api_hangup', answeredAt, await hangUpAndWait(connectedCallId));
    }
    if (relayWaiting()) {
      relayHandled = true;
      // Nobody else talks to the caller on an audio line: without the customer's socket, hang up.
      const endedBy = relayEnded!.endedBy;
      if (endedBy === 'customer_closed')
        return finish('completed', 'audio_handler_closed', answeredAt, await hangUpAndWait(connectedCallId));
      if (endedBy === 'carrier_error') return finish('completed', 'carrier_failed', answeredAt, await hangUpAndWait(connectedCallId));
      if (endedBy !== 'call') return finish('completed', 'audio_handler_unavailable', answeredAt, await hangUpAndWait(connectedCallId));
      continue;
    }
    if (turnWaiting()) {
      const utterance = utterances()[handledUtterances];
      handledUtterances += 1;
      // Audio lines carry their own conversation over the relay.
      if (call.mode !== 'audio') await takeTurn(connectedCallId, utterance);
      continue;
    }
    if (woke) continue;
    if (Date.now() - answeredLocally >= maxDurationMs) {
      return finish('completed', 'max_duration', answeredAt, await hangUpAndWait(connectedCallId));
    }
    const extended = await billing.extendReservation({ tenant, reference, totalCents: call.reservePerMinuteCents * (minutesHeld + 1) });
    if (!extended.ok) return finish('completed', 'insufficient_funds', answeredAt, await hangUpAndWait(connectedCallId));
    minutesHeld += 1;
  }
}
