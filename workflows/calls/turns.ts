import { ActivityFailure, CancellationScope, condition, isCancellation, patched } from '@temporalio/workflow';
import type { MessageTurnOutcome, PlaybackReport } from '../../activities/calls';
import type { HostedTurnOutcome } from '../../activities/hosted';
import { hostedSpeakIdPrefix } from '../../src/domain/calls/rules';
import { TOOL_LIMITS } from '../../src/domain/tools/rules';
import type { SequencedEntry } from '../../src/domain/calls/store';
import type { SignalledCallEvent } from '../definitions/calls';
import { patches } from '../patches';
import { audio, carrier, claims, hosted, publishCallEvent, turns } from './activities';
import type { CallState } from './state';
import { runToolCalls } from './tools';

/**
 * One caller turn: if the agent was talking, cut it off and tell the customer what was heard
 * (`interrupted`, timed before the turn); then the hosted or webhook-mode reply.
 */
export async function takeTurn(call: CallState, utterance: SignalledCallEvent, turn: number): Promise<void> {
  const { input, events, transcript } = call;
  if (call.speech.currentSpeeches.length > 0) {
    const speeches = call.speech.currentSpeeches;
    call.speech.currentSpeeches = [];
    const finished = (id: string) => events.finished(id);
    const stopped = (id: string) => events.stopped(id);
    // Not heard to the end yet: the API may hold reports of them (deferred, riding on the next
    // signal). Closing the deferral in this workflow task returns them, and any later one is signalled.
    if (!speeches.every(finished) && patched(patches.closeDeferralLocally)) {
      try {
        for (const report of await claims.closePlaybackDeferral(input.callId)) events.add(report as unknown as SignalledCallEvent);
      } catch (err) {
        // The stop below closes it as well.
        if (!(err instanceof ActivityFailure)) throw err;
      }
    }
    // Still talking: cut it off now (the carrier may already have, on its own barge-in detection).
    // The activity closes the playback deferral too (histories before it return nothing).
    if (
      !speeches.every(finished) &&
      (await call.onCarrier(() => carrier.stopSpeaking(call.carrierCallId!, input.callId).then(applyDeferred(call))))
    ) {
      await condition(() => speeches.some(stopped) || speeches.every(finished) || call.ended(), '2 seconds');
    }
    if (!call.ended() && (!speeches.every(finished) || speeches.some(stopped))) {
      // What the caller actually heard: every chunk's played part, in order.
      const heard = speeches
        .map((id) => events.played(id))
        .filter((text) => text !== '')
        .join(' ');
      const stoppedAt = speeches.flatMap((id) => events.playback.get(id)?.stoppedAt ?? []);
      // Ordered before the message of the turn that interrupted it.
      const timestamp = Math.min(...stoppedAt, utterance.at - 1);
      await publishCallEvent(input, 'interrupted', { partial_response_text: heard, timestamp }, turn);
      // The transcript says the same: the reply as far as it was heard (written with this turn's entries).
      if (patched(patches.transcriptHeard)) transcript.cutToHeard(heard);
    }
  }
  const said = transcript.add({ role: 'user', text: utterance.text ?? '', timestamp: utterance.at });
  if (call.ended()) {
    transcript.unwritten.push(said);
    return transcript.flush();
  }
  if (input.mode === 'hosted') {
    transcript.unwritten.push(said);
    return takeHostedTurn(call, turn, utterance.language);
  }
  return takeMessageTurn(call, turn, said, utterance);
}

/**
 * A hosted turn: the model's reply is streamed and spoken sentence by sentence by an activity.
 * If the caller talks while the model is still writing, the activity is cancelled there (the
 * next turn then stops the playback and reports `interrupted`, as in webhook mode).
 */
async function takeHostedTurn(call: CallState, turn: number, language: string | undefined, round = 0): Promise<void> {
  const { input, events, transcript } = call;
  const prefix = hostedSpeakIdPrefix(input.callId, turn, round);
  const scope = new CancellationScope();
  let outcome: HostedTurnOutcome | undefined;
  let done = false;
  const running = scope
    .run(() =>
      hosted.takeHostedTurn({
        callId: input.callId,
        carrierCallId: call.carrierCallId!,
        turn,
        ...(round > 0 ? { round } : {}),
        // The activity reads the system prompt (and the call's tools) itself, by call id.
        turns: transcript.modelTurns(),
        voice: input.voice ?? null,
        ...(language ? { language } : {}),
      }),
    )
    .then((result) => void (outcome = result))
    .catch((err) => {
      // Cancelled by a barge-in, or the attempt was lost: silence, and the call goes on.
      if (!isCancellation(err) && !(err instanceof ActivityFailure)) throw err;
    })
    .finally(() => void (done = true));
  await condition(() => done || call.ended() || events.sentences.length > 0);
  if (!done) {
    scope.cancel();
    await running;
  }
  if (outcome?.failure === 'call_ended') call.carrierLost = true;
  const spoken = outcome ? outcome.spokenChunks.map((chunk) => chunk.speakId) : events.reportedWithPrefix(prefix);
  call.speech.currentSpeeches.push(...spoken);
  const text = outcome
    ? outcome.spokenChunks.map((chunk) => chunk.text).join(' ')
    : spoken
        .map((id) => events.played(id))
        .filter((played) => played !== '')
        .join(' ');
  if (text !== '') transcript.unwritten.push(transcript.add({ role: 'assistant', text, timestamp: outcome?.repliedAt ?? Date.now() }));
  await transcript.flush();
  // The model called tools: they run, and the model takes another round with their results, unless
  // the caller spoke meanwhile (their turn comes next, with the results in its context).
  if (outcome?.toolCalls && !call.ended() && patched(patches.hostedTools)) {
    const goesOn = await runToolCalls(call, outcome.toolCalls);
    if (goesOn && round + 1 < TOOL_LIMITS.maxRoundsPerTurn && events.sentences.length === 0)
      return takeHostedTurn(call, turn, language, round + 1);
  }
}

/** Applies the playback reports a closed deferral returned, in order. */
const applyDeferred =
  (call: CallState) =>
  (result: { deferred: PlaybackReport[] } | void): void => {
    if (result) for (const report of result.deferred) call.events.add(report as unknown as SignalledCallEvent);
  };

/** A webhook-mode turn: `message` delivered once, its `{text}` or NDJSON reply spoken (`takeMessageTurn`). */
async function takeMessageTurn(call: CallState, turn: number, said: SequencedEntry, utterance: SignalledCallEvent): Promise<void> {
  const { input, transcript } = call;
  const replySpeakId = `${input.callId}:speak-${call.speech.speakCount + 1}`;
  const replySeq = transcript.nextSeq++;
  let outcome: MessageTurnOutcome | undefined;
  try {
    outcome = await turns.takeMessageTurn(input, {
      turn,
      said,
      context: transcript.context(),
      // What the carrier heard, never a guess: absent when it does not say (Telnyx on a `multi` line, docs/decisions/telnyx.md).
      // Replay-safe without a patch: every recorded utterance carried a language (the wire required one until then).
      ...(input.languagePinned || !utterance.language ? {} : { detectedLanguage: utterance.language }),
      carrierCallId: call.carrierCallId!,
      speakIdPrefix: `${input.callId}:turn-${turn}`,
      replySpeakId,
      replySeq,
      deferPlayback: true,
    });
  } catch (err) {
    // The attempt was lost (a crashed worker, a database error): the caller hears silence,
    // as for a failed delivery, and the call goes on.
    if (!(err instanceof ActivityFailure)) throw err;
  }
  const written = outcome?.transcriptWritten ?? false;
  // The reply keeps the `seq` reserved before the turn (the activity may have written it under that number).
  const reply = (text: string, at: number) => {
    const entry = { role: 'assistant' as const, text, timestamp: at, seq: replySeq };
    transcript.entries.push(entry);
    return entry;
  };
  if (outcome?.spokenChunks) {
    call.speech.currentSpeeches.push(...outcome.spokenChunks.map((chunk) => chunk.speakId));
    const entry = reply(outcome.spokenChunks.map((chunk) => chunk.text).join(' '), outcome.repliedAt);
    if (!written) transcript.unwritten.push(said, entry);
  } else if (outcome?.replyText && outcome.replySpoken) {
    call.speech.speakCount += 1;
    call.speech.currentSpeeches.push(replySpeakId);
    const entry = reply(outcome.replyText, outcome.repliedAt);
    if (!written) transcript.unwritten.push(said, entry);
  } else {
    if (!written) transcript.unwritten.push(said);
    // The carrier refused it inside the turn: the call has most likely ended (then it is not
    // said at all); if not, it is spoken here.
    if (outcome?.replyText) await call.say(outcome.replyText, Date.now());
  }
  await transcript.flush();
}

/** Audio lines: the customer's socket takes the call's audio both ways until the call ends. */
export function startRelay(call: CallState, handlerUrl: string): void {
  const { input } = call;
  const scope = new CancellationScope();
  call.relay.scope = scope;
  void scope
    .run(() => audio.relayCallAudio({ callId: input.callId, lineId: input.lineId, carrierCallId: call.carrierCallId!, handlerUrl }))
    .then((summary) => void (call.relay.ended = summary))
    .catch((err) => {
      if (!isCancellation(err)) call.relay.ended = { endedBy: 'relay_failed' };
    });
}

/** The relay ended: nobody else talks to the caller on an audio line, so without the customer's socket the call ends. */
export function actOnRelayEnd(call: CallState): void {
  call.relay.handled = true;
  const endedBy = call.relay.ended!.endedBy;
  if (endedBy === 'customer_closed') call.requestEnd('audio_handler_closed');
  else if (endedBy === 'carrier_error') call.requestEnd('carrier_failed');
  else if (endedBy !== 'call') call.requestEnd('audio_handler_unavailable');
}
