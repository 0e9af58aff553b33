import { ActivityFailure, allHandlersFinished, ApplicationFailure, CancellationScope, condition, continueAsNew, isCancellation, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { MessageTurnOutcome } from '../../activities/calls';
import type { RelayCallAudioResult } from '../../activities/audio/activities';
import type { HostedTurnOutcome } from '../../activities/hosted';
import { callChargeCents } from '../../src/domain/billing/pricing';
import { boundedAnswerTime, boundedEndTime, callDurationMs, hostedSpeakIdPrefix, MAX_CALL_DURATION_MS, RING_TIMEOUT_MS, type CallStatus, type EndCause } from '../../src/domain/calls/rules';
import type { SequencedEntry } from '../../src/domain/calls/store';
import { audio, billing, carrier, claims, funding, hosted, keypad, records, turns } from './activities';
import { CallEvents, type CarriedEvents } from './events';
import { legacyCallWorkflow } from './legacy';
import { CALL_NOT_ACTIVE, DTMF_DIGITS, pressUpdate, speakUpdate, waitUpdate, type PressRequest, type SpeakRequest, type SpeakResult, type WaitRequest, type WaitResult } from '../definitions/callControl';
import { callStatusQuery, carrierEventSignal, hangupSignal, type CallInput, type CallResult, type CarrierCallEvent } from '../definitions/calls';

/**
 * Calls that start with this patch run `runCall` below; histories recorded before it replay
 * `legacyCallWorkflow`. What changed: a carrier refusal ends the call instead of being retried
 * for ever, carrier commands are bounded in time, holds and the maximum duration are enforced
 * by their own coroutine whatever the conversation is doing, the charge is capped at what was
 * held, the history no longer grows with the transcript or the system prompt, and long
 * histories continue as new.
 */
const CALL_V2_PATCH = 'call-workflow-v2';

/** Turns of context when a line sets no context_limit. */
const DEFAULT_CONTEXT_TURNS = 20;
/** After we hang up, how long we wait for the carrier's own end time before using ours. */
const HANGUP_CONFIRMATION = '10 seconds';
const MINUTE_MS = 60_000;

/** A talking call's state when its run continues as new (its history grew long). */
export interface CallContinuation extends CarriedEvents {
  carrierCallId: string;
  /** The carrier's answer time, as bounded by the first run. */
  answeredAt: number;
  /** The workflow's own clock at the answer: minutes and the maximum duration count from it. */
  answeredLocally: number;
  minutesHeld: number;
  /** Caller sentences taken so far (turn numbers continue from it). */
  sentencesTaken: number;
  speakCount: number;
  controlSpeeches: number;
  /** The next transcript entry's `seq`. */
  nextSeq: number;
  /** The transcript's last entries (the model's and the `message` event's context). */
  transcriptTail: SequencedEntry[];
  /** The agent's reply still in play (a caller sentence cuts it off). */
  currentSpeeches: string[];
  /** 2 for the first continuation, and so on. */
  run: number;
}

/**
 * One call, inbound or outbound, from dialing (or answering) to settlement (workflow id = call
 * id). Outbound calls have the first minute held by the API; inbound calls hold it before
 * answering. Each further minute is held before it starts; a refused extension, the maximum
 * duration or a carrier refusal ends the call. The end settles the per-second charge (never more
 * than was held), once.
 */
export async function callWorkflow(call: CallInput, continued?: CallContinuation): Promise<CallResult> {
  if (!continued && !patched(CALL_V2_PATCH)) return legacyCallWorkflow(call);
  return runCall(call, continued);
}

const isCarrierRefusal = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'CarrierRejected';

async function runCall(call: CallInput, carried: CallContinuation | undefined): Promise<CallResult> {
  const reference = `call:${call.callId}`;
  const tenant = { workspaceId: call.workspaceId, environment: call.environment };
  const events = new CallEvents(carried);
  let status: CallStatus = carried ? 'in_progress' : 'initiated';
  /** Why we end the call, once we decided to (set only while the carrier has not ended it). */
  let endRequested: EndCause | undefined;
  /** A carrier command was refused, or the carrier stayed unreachable: the call is over on its side. */
  let carrierLost = false;
  const requestEnd = (cause: EndCause) => {
    if (!events.terminal) endRequested ??= cause;
  };
  setHandler(carrierEventSignal, (event) => events.add(event));
  setHandler(hangupSignal, () => requestEnd('api_hangup'));
  setHandler(callStatusQuery, () => status);
  const ended = () => events.terminal !== undefined || endRequested !== undefined || carrierLost;
  const maxDurationMs = Math.min(call.maxDurationMs ?? MAX_CALL_DURATION_MS, MAX_CALL_DURATION_MS);
  const contextLimit = call.contextLimit ?? DEFAULT_CONTEXT_TURNS;

  let carrierCallId = carried?.carrierCallId;
  /** When we dialled or answered (our clock): the carrier's answer time cannot be earlier. */
  let requestedAt = Date.now();
  let answeredAt: number | null = carried?.answeredAt ?? null;
  let answeredLocally = carried?.answeredLocally ?? 0;
  let minutesHeld = carried?.minutesHeld ?? 1;
  let extending = false;
  let sentencesTaken = carried?.sentencesTaken ?? 0;
  let speakCount = carried?.speakCount ?? 0;
  let controlSpeeches = carried?.controlSpeeches ?? 0;
  /** Speak commands of the agent's current reply, in order (one, or one per streamed chunk). */
  let currentSpeeches: string[] = carried?.currentSpeeches ?? [];
  /** Live-control requests waiting for the caller's next sentence: sentences go to them, not to the conversation. */
  let claimedByControl = 0;
  let relayScope: CancellationScope | undefined;
  let relayEnded: RelayCallAudioResult | { endedBy: 'relay_failed' } | undefined;
  let relayHandled = false;

  // The transcript: kept here as far as the conversation needs it, and appended to the call
  // record in batches (merged by `seq`, so retries and concurrent writers are harmless).
  const transcript: SequencedEntry[] = [...(carried?.transcriptTail ?? [])];
  let nextSeq = carried?.nextSeq ?? 0;
  const unwritten: SequencedEntry[] = [];
  const newEntry = (entry: Omit<SequencedEntry, 'seq'>): SequencedEntry => {
    const sequenced = { ...entry, seq: nextSeq++ };
    transcript.push(sequenced);
    if (transcript.length > contextLimit * 2) transcript.splice(0, transcript.length - contextLimit);
    return sequenced;
  };
  const flushTranscript = async () => {
    if (unwritten.length === 0) return;
    const batch = unwritten.splice(0);
    await records.appendTranscript(call.callId, batch);
  };
  const context = () => transcript.slice(-contextLimit).map(({ role, text, timestamp }) => ({ role, text, timestamp }));

  /** A carrier command on a call that may be gone: false (and the call counts as ended) when refused or unreachable. */
  const onCarrier = async (command: () => Promise<unknown>): Promise<boolean> => {
    try {
      await command();
      return true;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      carrierLost = true;
      return false;
    }
  };
  let hangUpSent = false;
  const hangUpLeg = async () => {
    if (hangUpSent || events.terminal || carrierCallId === undefined) return;
    hangUpSent = true;
    await onCarrier(() => carrier.hangUpCall(carrierCallId!));
  };
  /** Hangs up (unless the carrier already ended the call) and returns the carrier's end time, or ours after 10 s. */
  const hangUpAndWait = async (): Promise<number> => {
    await hangUpLeg();
    await condition(() => events.terminal !== undefined, HANGUP_CONFIRMATION);
    return events.terminal?.at ?? Date.now();
  };

  const say = async (line: string, text: string, at: number): Promise<boolean> => {
    if (ended()) return false;
    speakCount += 1;
    const speakId = `${call.callId}:speak-${speakCount}`;
    if (!(await onCarrier(() => carrier.speak(line, speakId, text, call.voice ?? null)))) return false;
    currentSpeeches.push(speakId);
    unwritten.push(newEntry({ role: 'assistant', text, timestamp: at }));
    return true;
  };

  // Live control (`calls:control`): updates, so each request and its result are in the history.
  const live = () => status === 'in_progress' && !ended() && carrierCallId !== undefined;
  const mustBeLive = () => {
    if (!live()) throw new Error(CALL_NOT_ACTIVE);
  };
  /** The caller's next sentence, claimed for a control request; null after `timeoutSeconds` or when the call ends. */
  const nextSentence = async (timeoutSeconds: number): Promise<CarrierCallEvent | null> => {
    await condition(() => ended() || events.sentences.length > 0, timeoutSeconds * 1000);
    const utterance = events.sentences.shift();
    if (!utterance) return null;
    sentencesTaken += 1;
    unwritten.push(newEntry({ role: 'user', text: utterance.text ?? '', timestamp: utterance.at }));
    return utterance;
  };
  setHandler(
    speakUpdate,
    async ({ text, waitForResponse, timeoutSeconds }): Promise<SpeakResult> => {
      if (waitForResponse) claimedByControl += 1;
      try {
        controlSpeeches += 1;
        const speakId = `${call.callId}:control-${controlSpeeches}`;
        const heardBefore = events.heard;
        // The call may have ended since the validator ran: then nothing is spoken (`call_ended`).
        const spoken = !ended() && (await onCarrier(() => carrier.speak(carrierCallId!, speakId, text, call.voice ?? null)));
        if (spoken) {
          unwritten.push(newEntry({ role: 'assistant', text, timestamp: Date.now() }));
          // Played to the end, cut off (the caller talked over it), or the call ended.
          await condition(() => events.finished(speakId) || ended() || events.heard > heardBefore);
          if (!events.finished(speakId) && !ended() && (await onCarrier(() => carrier.stopSpeaking(carrierCallId!)))) {
            await condition(() => events.finished(speakId) || ended(), '2 seconds');
          }
        }
        const stopped = events.stopped(speakId);
        const interrupted = !events.finished(speakId) || stopped;
        const response = waitForResponse && !ended() ? await nextSentence(timeoutSeconds) : null;
        await flushTranscript();
        return {
          call_id: call.callId,
          spoke: !interrupted,
          interrupted,
          partial_response_text: interrupted ? events.played(speakId) : null,
          interruption_reason: interrupted ? (ended() && !stopped ? 'call_ended' : 'caller_interrupted_control') : null,
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
        await flushTranscript();
        return { call_id: call.callId, timed_out: response === null, response_text: response?.text ?? null, response_timestamp: response?.at ?? null };
      } finally {
        claimedByControl -= 1;
      }
    },
    { validator: (_request: WaitRequest) => mustBeLive() },
  );
  setHandler(
    pressUpdate,
    async ({ digits }) => {
      let pressed = false;
      try {
        ({ pressed } = await keypad.sendDigits(carrierCallId!, digits));
      } catch (err) {
        // The carrier stayed unreachable: not pressed.
        if (!(err instanceof ActivityFailure)) throw err;
      }
      return { call_id: call.callId, pressed, digits };
    },
    {
      validator: ({ digits }: PressRequest) => {
        mustBeLive();
        if (!DTMF_DIGITS.test(digits)) throw new Error('digits must be 0-9, *, # or w');
      },
    },
  );

  const finish = async (final: CallStatus, endCause: EndCause, carrierEndedAt: number): Promise<CallResult> => {
    status = final;
    // The customer's audio socket gets its `stop`.
    relayScope?.cancel();
    // The carrier's end time, bounded by our own clock (L7): a skewed or forged `at` bills nothing extra.
    const endedAt = boundedEndTime(carrierEndedAt, { answeredAt: answeredAt ?? requestedAt, heardAt: Date.now() });
    const durationMs = callDurationMs(answeredAt, endedAt);
    // Never more than was held: each minute is held before it starts, and the few seconds a
    // hang-up takes after a refused extension are not charged beyond the hold.
    const chargeCents = answeredAt === null ? 0 : Math.min(callChargeCents(call.mode, call.zone, durationMs), call.reservePerMinuteCents * minutesHeld);
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
    await flushTranscript();
    const recordingUrl = events.terminal?.recording_url;
    await records.recordCallState(call.callId, { status: final, endedAt, durationSec, chargeCents, endCause, ...(recordingUrl ? { recordingUrl } : {}) });
    if (answeredAt !== null) {
      await records.publishCallEvent(call, 'call_ended', { duration_sec: durationSec, cause: endCause, status: final, recording_url: recordingUrl ?? null });
    }
    // Control requests still waiting see the call end and answer first (each is bounded).
    await condition(allHandlersFinished);
    return { status: final, endCause, durationSec, chargeCents };
  };

  /** An inbound call that is never answered and had nothing held. */
  const decline = async (final: CallStatus, endCause: EndCause): Promise<CallResult> => {
    status = final;
    await records.recordCallState(call.callId, { status: final, endedAt: Date.now(), durationSec: 0, chargeCents: 0, endCause });
    return { status: final, endCause, durationSec: 0, chargeCents: 0 };
  };

  if (!carried) {
    // The API fails a call whose start it could not confirm, unless its workflow took it over first.
    const { claimed } = await claims.claimCall(call.callId);
    if (!claimed) {
      if (call.direction === 'inbound') await onCarrier(() => carrier.rejectCall(call.carrierCallId!));
      return { status: 'failed', endCause: 'service_error', durationSec: 0, chargeCents: 0 };
    }
    /** Where an audio line's stream goes, for the status callbacks (D15: null on other lines). */
    const relayUrl = call.mode === 'audio' ? (call.audioHandlerUrl ?? null) : null;
    if (call.direction === 'inbound') {
      // Answer: hold the first minute, tell the status callback, pick up.
      carrierCallId = call.carrierCallId!;
      const hold = await billing.reserveFunds({ tenant, keyId: null, reference, amountCents: call.reservePerMinuteCents });
      if (!hold.ok) {
        await onCarrier(() => carrier.rejectCall(call.carrierCallId!));
        return decline('failed', 'insufficient_funds');
      }
      await records.publishCallEvent(call, 'call_incoming', { from_number: call.from, to_number: call.to, relay_url: relayUrl });
      requestedAt = Date.now();
      try {
        await carrier.answerCall(call.callId, carrierCallId, call.record ?? false);
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        // Refused: the caller hung up while it rang. Otherwise the carrier stayed unreachable.
        if (isCarrierRefusal(err)) return finish('canceled', 'caller_hangup', Date.now());
        await onCarrier(() => carrier.rejectCall(call.carrierCallId!));
        return finish('failed', 'carrier_failed', Date.now());
      }
      await condition(() => events.answered !== undefined || ended(), RING_TIMEOUT_MS);
      if (!events.answered) {
        // A ringing inbound call ends with no event of its own: hanging it up declines it.
        await hangUpLeg();
        return finish('canceled', endRequested === 'api_hangup' ? 'canceled' : 'caller_hangup', events.terminal?.at ?? Date.now());
      }
    } else {
      // Dial.
      requestedAt = Date.now();
      try {
        ({ carrierCallId } = await carrier.placeCall(call));
      } catch (err) {
        // The carrier refused the destination, or stayed unreachable: nothing was placed.
        if (!(err instanceof ActivityFailure)) throw err;
        return finish('failed', 'carrier_failed', Date.now());
      }
      await records.publishCallEvent(call, 'call_outgoing', { to_number: call.to, from_number: call.from, relay_url: relayUrl });

      // Ring: record `ringing` as soon as the carrier says so, then wait for an answer.
      const settled = () => events.answered !== undefined || ended();
      await condition(() => events.ringing || settled(), RING_TIMEOUT_MS);
      if (events.ringing && !settled()) {
        status = 'ringing';
        await records.recordCallState(call.callId, { status });
      }
      await condition(settled, Math.max(1, RING_TIMEOUT_MS - (Date.now() - requestedAt)));
      if (!events.answered) {
        const end = events.terminal;
        if (end?.type === 'call.busy') return finish('busy', 'busy', end.at);
        if (end?.type === 'call.failed') return finish('failed', 'carrier_failed', end.at);
        if (end?.type === 'call.no_answer') return finish('no_answer', 'no_answer', end.at);
        if (end) return finish('canceled', 'caller_hangup', end.at);
        const endedAt = await hangUpAndWait();
        return endRequested === 'api_hangup' ? finish('canceled', 'canceled', endedAt) : finish('no_answer', 'ring_timeout', endedAt);
      }
    }
    answeredAt = boundedAnswerTime(events.answered.at, { requestedAt, heardAt: Date.now() });
    answeredLocally = Date.now();
  }
  const line: string = carrierCallId!;
  status = 'in_progress';

  // From the answer on, two coroutines run beside the conversation, whatever it is doing: one
  // holds each next minute before it starts and ends the call at a refusal or at the maximum
  // duration; the other hangs up as soon as an end is requested (even mid-turn).
  const keepFunded = async () => {
    for (;;) {
      const elapsed = Date.now() - answeredLocally;
      const untilNext = Math.min(minutesHeld * MINUTE_MS, maxDurationMs) - elapsed;
      if (await condition(ended, Math.max(1, untilNext))) return;
      if (Date.now() - answeredLocally >= maxDurationMs) return requestEnd('max_duration');
      extending = true;
      let funded = false;
      try {
        funded = (await funding.extendReservation({ tenant, reference, totalCents: call.reservePerMinuteCents * (minutesHeld + 1) })).ok;
      } catch (err) {
        // No answer within its bound (or no hold any more): the next minute is not funded.
        if (!(err instanceof ActivityFailure)) throw err;
      } finally {
        extending = false;
      }
      if (ended()) return;
      if (!funded) return requestEnd('insufficient_funds');
      minutesHeld += 1;
    }
  };
  const hangUpWhenAsked = async () => {
    await condition(() => endRequested !== undefined || events.terminal !== undefined);
    if (endRequested !== undefined) await hangUpLeg();
  };
  void keepFunded();
  void hangUpWhenAsked();

  if (!carried) {
    await records.recordCallState(call.callId, { status, startedAt: answeredAt! });
    await records.publishCallEvent(call, 'call_started', { direction: call.direction, from_number: call.from, to_number: call.to });
    if (call.disclosure && (await say(line, call.disclosure.message, answeredAt!))) await records.recordDisclosurePlayed(call, call.disclosure.id);
    if (call.beginMessage) await say(line, call.beginMessage, answeredAt!);
    await flushTranscript();
    if (call.mode === 'audio' && call.audioHandlerUrl) {
      // The customer's socket takes the call's audio both ways until the call ends.
      const scope = new CancellationScope();
      relayScope = scope;
      const handlerUrl = call.audioHandlerUrl;
      void scope
        .run(() => audio.relayCallAudio({ callId: call.callId, lineId: call.lineId, carrierCallId: line, handlerUrl }))
        .then((summary) => void (relayEnded = summary))
        .catch((err) => {
          if (!isCancellation(err)) relayEnded = { endedBy: 'relay_failed' };
        });
    }
  }

  /**
   * A hosted turn: the model's reply is streamed and spoken sentence by sentence by an activity.
   * If the caller talks while the model is still writing, the activity is cancelled there (the
   * next turn then stops the playback and reports `interrupted`, as in webhook mode).
   */
  const takeHostedTurn = async (turn: number, language: string | undefined): Promise<void> => {
    const prefix = hostedSpeakIdPrefix(call.callId, turn);
    const scope = new CancellationScope();
    let outcome: HostedTurnOutcome | undefined;
    let done = false;
    const running = scope
      .run(() =>
        hosted.takeHostedTurn({
          callId: call.callId,
          carrierCallId: line,
          turn,
          // The activity reads the system prompt itself, by call id.
          turns: transcript.slice(-contextLimit).map((t) => ({ role: t.role, text: t.text })),
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
    await condition(() => done || ended() || events.sentences.length > 0);
    if (!done) {
      scope.cancel();
      await running;
    }
    if (outcome?.failure === 'call_ended') carrierLost = true;
    const spoken = outcome ? outcome.spokenChunks.map((chunk) => chunk.speakId) : events.reportedWithPrefix(prefix);
    currentSpeeches.push(...spoken);
    const text = outcome
      ? outcome.spokenChunks.map((chunk) => chunk.text).join(' ')
      : spoken
          .map((id) => events.played(id))
          .filter((played) => played !== '')
          .join(' ');
    if (text !== '') unwritten.push(newEntry({ role: 'assistant', text, timestamp: outcome?.repliedAt ?? Date.now() }));
    await flushTranscript();
  };

  /** A webhook-mode turn: `message` delivered once, its `{text}` or NDJSON reply spoken (`takeMessageTurn`). */
  const takeMessageTurn = async (turn: number, said: SequencedEntry, utterance: CarrierCallEvent): Promise<void> => {
    const replySpeakId = `${call.callId}:speak-${speakCount + 1}`;
    const replySeq = nextSeq++;
    let outcome: MessageTurnOutcome | undefined;
    try {
      outcome = await turns.takeMessageTurn(call, {
        turn,
        said,
        context: context(),
        ...(call.languagePinned ? {} : { detectedLanguage: utterance.language ?? 'en' }),
        carrierCallId: line,
        speakIdPrefix: `${call.callId}:turn-${turn}`,
        replySpeakId,
        replySeq,
      });
    } catch (err) {
      // The attempt was lost (a crashed worker, a database error): the caller hears silence,
      // as for a failed delivery, and the call goes on.
      if (!(err instanceof ActivityFailure)) throw err;
    }
    const written = outcome?.transcriptWritten ?? false;
    const reply = (text: string, at: number) => {
      const entry = { role: 'assistant' as const, text, timestamp: at, seq: replySeq };
      transcript.push(entry);
      return entry;
    };
    if (outcome?.spokenChunks) {
      currentSpeeches.push(...outcome.spokenChunks.map((chunk) => chunk.speakId));
      const entry = reply(outcome.spokenChunks.map((chunk) => chunk.text).join(' '), outcome.repliedAt);
      if (!written) unwritten.push(said, entry);
    } else if (outcome?.replyText && outcome.replySpoken) {
      speakCount += 1;
      currentSpeeches.push(replySpeakId);
      const entry = reply(outcome.replyText, outcome.repliedAt);
      if (!written) unwritten.push(said, entry);
    } else {
      if (!written) unwritten.push(said);
      // The carrier refused it inside the turn: the call has most likely ended (then it is not
      // said at all); if not, it is spoken here.
      if (outcome?.replyText) await say(line, outcome.replyText, Date.now());
    }
    await flushTranscript();
  };

  /**
   * One caller turn: if the agent was talking, cut it off and tell the customer what was heard
   * (`interrupted`, timed before the turn); then the hosted or webhook-mode reply.
   */
  const takeTurn = async (utterance: CarrierCallEvent, turn: number): Promise<void> => {
    if (currentSpeeches.length > 0) {
      const speeches = currentSpeeches;
      currentSpeeches = [];
      const finished = (id: string) => events.finished(id);
      const stopped = (id: string) => events.stopped(id);
      // Still talking: cut it off now (the carrier may already have, on its own barge-in detection).
      if (!speeches.every(finished) && (await onCarrier(() => carrier.stopSpeaking(line)))) {
        await condition(() => speeches.some(stopped) || speeches.every(finished) || ended(), '2 seconds');
      }
      if (!ended() && (!speeches.every(finished) || speeches.some(stopped))) {
        // What the caller actually heard: every chunk's played part, in order.
        const heard = speeches
          .map((id) => events.played(id))
          .filter((text) => text !== '')
          .join(' ');
        const stoppedAt = speeches.flatMap((id) => events.playback.get(id)?.stoppedAt ?? []);
        // Ordered before the message of the turn that interrupted it.
        await records.publishCallEvent(call, 'interrupted', { partial_response_text: heard, timestamp: Math.min(...stoppedAt, utterance.at - 1) }, turn);
      }
    }
    const said = newEntry({ role: 'user', text: utterance.text ?? '', timestamp: utterance.at });
    if (ended()) {
      unwritten.push(said);
      return flushTranscript();
    }
    if (call.mode === 'hosted') {
      unwritten.push(said);
      return takeHostedTurn(turn, utterance.language);
    }
    return takeMessageTurn(turn, said, utterance);
  };

  /** The call ends: hang up unless the carrier did, and settle. */
  const endTalk = async (): Promise<CallResult> => {
    const endedAt = events.terminal?.at ?? (await hangUpAndWait());
    const end = events.terminal;
    const cause: EndCause = endRequested ?? (end ? (end.ended_by === 'switchboard' ? 'api_hangup' : 'caller_hangup') : 'carrier_failed');
    return finish('completed', cause, endedAt);
  };

  const relayWaiting = () => relayEnded !== undefined && !relayHandled;
  /** A sentence for the conversation loop (not claimed by a control request). */
  const turnWaiting = () => claimedByControl === 0 && events.sentences.length > 0;
  // A long history goes on in a fresh run before the next turn (waiting sentences are carried
  // over, so a caller who never stops talking cannot postpone it), except while a control request
  // holds the caller's next sentence. Audio lines keep their relay for the whole call, and their
  // history stays small.
  const continueDue = () => call.mode !== 'audio' && claimedByControl === 0 && workflowInfo().continueAsNewSuggested;
  for (;;) {
    await condition(() => ended() || relayWaiting() || turnWaiting() || continueDue());
    if (ended()) return endTalk();
    if (relayWaiting()) {
      relayHandled = true;
      // Nobody else talks to the caller on an audio line: without the customer's socket, hang up.
      const endedBy = relayEnded!.endedBy;
      if (endedBy === 'customer_closed') requestEnd('audio_handler_closed');
      else if (endedBy === 'carrier_error') requestEnd('carrier_failed');
      else if (endedBy !== 'call') requestEnd('audio_handler_unavailable');
      continue;
    }
    if (!continueDue()) {
      // Woken for the caller's next sentence.
      const utterance = events.sentences.shift()!;
      // Turns are numbered by the caller's sentences so far, this one included (as before).
      sentencesTaken += 1;
      const turn = sentencesTaken;
      // Audio lines carry their own conversation over the relay.
      if (call.mode === 'audio') continue;
      await takeTurn(utterance, turn);
      continue;
    }
    // Continue as new once nothing is in flight: control requests answered, the transcript
    // written, no hold being extended.
    await flushTranscript();
    await condition(() => ended() || !continueDue() || (allHandlersFinished() && !extending));
    if (ended() || unwritten.length > 0 || !continueDue() || !allHandlersFinished() || extending) continue;
    const next: CallContinuation = {
      carrierCallId: line,
      answeredAt: answeredAt!,
      answeredLocally,
      minutesHeld,
      sentencesTaken,
      speakCount,
      controlSpeeches,
      nextSeq,
      transcriptTail: transcript.slice(-contextLimit),
      currentSpeeches,
      ...events.carry(currentSpeeches),
      run: (carried?.run ?? 1) + 1,
    };
    // What only the start needed stays out of every later run's input.
    return continueAsNew<typeof callWorkflow>({ ...call, systemPrompt: null, disclosure: null, beginMessage: null }, next);
  }
}
