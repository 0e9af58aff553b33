import { ActivityFailure, condition, setHandler } from '@temporalio/workflow';
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
import { callStatusQuery, carrierEventSignal, hangupSignal, type SignalledCallEvent } from '../definitions/calls';
import { carrier, keypad } from './activities';
import type { CallState } from './state';

/** The carrier's events, the API's hang-up and the status query. */
export function listen(call: CallState): void {
  setHandler(carrierEventSignal, (event) => {
    if (event.deferred) for (const report of event.deferred) call.events.add(report);
    call.events.add(event);
  });
  setHandler(hangupSignal, () => call.requestEnd('api_hangup'));
  setHandler(callStatusQuery, () => call.status);
}

/** Runs beside the conversation from the answer on: hangs up as soon as an end is requested (even mid-turn). */
export async function hangUpWhenAsked(call: CallState): Promise<void> {
  await condition(() => call.endRequested !== undefined || call.events.terminal !== undefined);
  if (call.endRequested !== undefined) await call.hangUp();
}

/**
 * Live control (`calls:control`): updates, so each request and its result are in the history.
 * Accepted only while the call is live; a request still waiting when the call ends answers first.
 */
export function acceptControl(call: CallState): void {
  const { input, events, transcript } = call;
  const mustBeLive = () => {
    if (!call.live()) throw new Error(CALL_NOT_ACTIVE);
  };
  /** The caller's next sentence, claimed for a control request; null after `timeoutSeconds` or when the call ends. */
  const nextSentence = async (timeoutSeconds: number): Promise<SignalledCallEvent | null> => {
    await condition(() => call.ended() || events.sentences.length > 0, timeoutSeconds * 1000);
    const utterance = events.sentences.shift();
    if (!utterance) return null;
    call.sentencesTaken += 1;
    transcript.unwritten.push(transcript.add({ role: 'user', text: utterance.text ?? '', timestamp: utterance.at }));
    return utterance;
  };
  setHandler(
    speakUpdate,
    async ({ text, waitForResponse, timeoutSeconds }): Promise<SpeakResult> => {
      if (waitForResponse) call.claimedByControl += 1;
      try {
        call.controlSpeeches += 1;
        const speakId = `${input.callId}:control-${call.controlSpeeches}`;
        const heardBefore = events.heard;
        // The call may have ended since the validator ran: then nothing is spoken (`call_ended`).
        const spoken =
          !call.ended() && (await call.onCarrier(() => carrier.speak(call.carrierCallId!, speakId, text, input.voice ?? null)));
        if (spoken) {
          transcript.unwritten.push(transcript.add({ role: 'assistant', text, timestamp: Date.now() }));
          // Played to the end, cut off (the caller talked over it), or the call ended.
          await condition(() => events.finished(speakId) || call.ended() || events.heard > heardBefore);
          if (!events.finished(speakId) && !call.ended() && (await call.onCarrier(() => carrier.stopSpeaking(call.carrierCallId!)))) {
            await condition(() => events.finished(speakId) || call.ended(), '2 seconds');
          }
        }
        const stopped = events.stopped(speakId);
        const interrupted = !events.finished(speakId) || stopped;
        const response = waitForResponse && !call.ended() ? await nextSentence(timeoutSeconds) : null;
        await transcript.flush();
        return {
          call_id: input.callId,
          spoke: !interrupted,
          interrupted,
          partial_response_text: interrupted ? events.played(speakId) : null,
          interruption_reason: interrupted ? (call.ended() && !stopped ? 'call_ended' : 'caller_interrupted_control') : null,
          timed_out: waitForResponse && response === null,
          response_text: response?.text ?? null,
          response_timestamp: response?.at ?? null,
        };
      } finally {
        if (waitForResponse) call.claimedByControl -= 1;
      }
    },
    { validator: (_request: SpeakRequest) => mustBeLive() },
  );
  setHandler(
    waitUpdate,
    async ({ timeoutSeconds }): Promise<WaitResult> => {
      call.claimedByControl += 1;
      try {
        const response = await nextSentence(timeoutSeconds);
        await transcript.flush();
        return {
          call_id: input.callId,
          timed_out: response === null,
          response_text: response?.text ?? null,
          response_timestamp: response?.at ?? null,
        };
      } finally {
        call.claimedByControl -= 1;
      }
    },
    { validator: (_request: WaitRequest) => mustBeLive() },
  );
  setHandler(
    pressUpdate,
    async ({ digits }) => {
      let pressed = false;
      try {
        ({ pressed } = await keypad.sendDigits(call.carrierCallId!, digits));
      } catch (err) {
        // The carrier stayed unreachable: not pressed.
        if (!(err instanceof ActivityFailure)) throw err;
      }
      return { call_id: input.callId, pressed, digits };
    },
    {
      validator: ({ digits }: PressRequest) => {
        mustBeLive();
        if (!DTMF_DIGITS.test(digits)) throw new Error('digits must be 0-9, *, # or w');
      },
    },
  );
}
