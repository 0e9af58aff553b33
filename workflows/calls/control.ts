import { ActivityFailure, ApplicationFailure, condition, patched, setHandler, uuid4 } from '@temporalio/workflow';
import type { CarrierRefusal } from '../../src/domain/carriers/rules';
import { RING_TIMEOUT_MS } from '../../src/domain/calls/rules';
import {
  CALL_NOT_ACTIVE,
  DTMF_DIGITS,
  WAIT_IN_PROGRESS,
  withdrawWaitSignal,
  pressUpdate,
  speakUpdate,
  transferUpdate,
  waitUpdate,
  type PressRequest,
  type SpeakRequest,
  type SpeakResult,
  type TransferRequest,
  type TransferResult,
  type WaitRequest,
  type WaitResult,
} from '../definitions/callControl';
import { callStatusQuery, carrierEventSignal, hangupSignal, type SignalledCallEvent } from '../definitions/calls';
import { carrierRefusalFailure, carrierRefusalOfFailure } from '../definitions/failures';
import { patches } from '../patches';
import { carrier, keypad, publishCallEvent, records } from './activities';
import type { CallState } from './state';

/** The carrier's events, the API's hang-up and the status query. */
export function listen(call: CallState): void {
  setHandler(carrierEventSignal, (event) => {
    if (event.deferred) for (const report of event.deferred) call.events.add(report);
    // A carrier's redelivery of a sentence is not a second turn (asked only when one comes, so other histories are untouched).
    if (call.events.repeats(event) && patched(patches.carrierRedeliveryOnce)) return;
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
  /** One request waits for the caller at a time: a second would race the first for the same sentence. */
  const mustBeTheOnlyWait = () => {
    if (call.claimedByControl > 0) throw new Error(WAIT_IN_PROGRESS);
  };
  /** Waits whose API client went away (`withdrawWaitSignal`), among those still open. */
  const open = new Set<string>();
  const withdrawn = new Set<string>();
  setHandler(withdrawWaitSignal, ({ waitId }) => {
    if (open.has(waitId)) withdrawn.add(waitId);
  });
  /**
   * The caller's next sentence, claimed for a control request (on an agent line the oldest one kept for it); null
   * after `timeoutSeconds`, when the call ends, or when the request's client went away (then the sentence stays for
   * whoever asks next).
   */
  const nextSentence = async (timeoutSeconds: number, waitId: string | undefined): Promise<SignalledCallEvent | null> => {
    if (waitId) open.add(waitId);
    const gone = () => waitId !== undefined && withdrawn.has(waitId);
    await condition(() => call.ended() || call.sentenceForControl() || gone(), timeoutSeconds * 1000);
    const left = gone();
    if (waitId) {
      open.delete(waitId);
      withdrawn.delete(waitId);
    }
    if (left) return null;
    // An agent line's sentences are in the transcript since they were heard (workflows/calls/agent.ts).
    if (call.agentDriven) return call.forAgent.take() ?? null;
    const utterance = events.sentences.shift();
    if (!utterance) return null;
    call.sentencesTaken += 1;
    transcript.unwritten.push(transcript.add({ role: 'user', text: utterance.text ?? '', timestamp: utterance.at }));
    return utterance;
  };
  setHandler(
    speakUpdate,
    async ({ text, waitForResponse, timeoutSeconds, waitId }): Promise<SpeakResult> => {
      if (waitForResponse) call.claimedByControl += 1;
      try {
        call.speech.controlSpeeches += 1;
        const speakId = `${input.callId}:control-${call.speech.controlSpeeches}`;
        const heardBefore = events.heard;
        // The call may have ended since the validator ran: then nothing is spoken (`call_ended`).
        const spoken =
          !call.ended() && (await speakForControl(call, () => carrier.speak(call.carrierCallId!, speakId, text, input.voice ?? null)));
        const entry = spoken ? transcript.add({ role: 'assistant', text, timestamp: Date.now() }) : undefined;
        if (entry) {
          transcript.unwritten.push(entry);
          // Played to the end, cut off (the caller talked over it), or the call ended.
          // A transfer cuts speech without reporting it.
          await condition(() => events.finished(speakId) || call.ended() || events.heard > heardBefore || call.handedOver());
          if (
            !events.finished(speakId) &&
            !call.ended() &&
            !call.handedOver() &&
            (await call.onCarrier(() => carrier.stopSpeaking(call.carrierCallId!)))
          ) {
            await condition(() => events.finished(speakId) || call.ended(), '2 seconds');
          }
        }
        const stopped = events.stopped(speakId);
        const interrupted = !events.finished(speakId) || stopped;
        const heard = interrupted ? events.played(speakId) : null;
        // What the caller heard of it, in the transcript as in the answer.
        if (entry && heard !== null && patched(patches.transcriptHeard)) transcript.cutToHeard(heard, entry);
        const response = waitForResponse && !call.ended() ? await nextSentence(timeoutSeconds, waitId) : null;
        await transcript.flush();
        return {
          call_id: input.callId,
          spoke: !interrupted,
          interrupted,
          partial_response_text: heard,
          interruption_reason: interrupted ? (call.ended() && !stopped ? 'call_ended' : 'caller_interrupted_control') : null,
          timed_out: waitForResponse && response === null && !call.ended(),
          call_ended: call.ended(),
          response_text: response?.text ?? null,
          response_timestamp: response?.at ?? null,
        };
      } finally {
        if (waitForResponse) call.claimedByControl -= 1;
      }
    },
    {
      validator: ({ waitForResponse }: SpeakRequest) => {
        mustBeLive();
        if (waitForResponse) mustBeTheOnlyWait();
      },
    },
  );
  setHandler(
    waitUpdate,
    async ({ timeoutSeconds, waitId }): Promise<WaitResult> => {
      call.claimedByControl += 1;
      try {
        const response = await nextSentence(timeoutSeconds, waitId);
        await transcript.flush();
        return {
          call_id: input.callId,
          // A call that ended while waiting says so, rather than looking like silence.
          timed_out: response === null && !call.ended(),
          call_ended: call.ended(),
          response_text: response?.text ?? null,
          response_timestamp: response?.at ?? null,
        };
      } finally {
        call.claimedByControl -= 1;
      }
    },
    {
      validator: (_request: WaitRequest) => {
        mustBeLive();
        mustBeTheOnlyWait();
      },
    },
  );
  setHandler(
    pressUpdate,
    async ({ digits }) => {
      let outcome: { pressed: boolean; refusal?: CarrierRefusal } = { pressed: false };
      try {
        outcome = await keypad.sendDigits(call.carrierCallId!, digits);
      } catch (err) {
        // The carrier stayed unreachable: not pressed.
        if (!(err instanceof ActivityFailure)) throw err;
      }
      // Refused: the call has ended at the carrier (409 `call_not_active`), or the carrier's refusal is the answer.
      if (outcome.refusal && patched(patches.carrierRefusals)) throw refusedByCarrier(outcome.refusal);
      // The agent's key presses are part of the call's story (kept out of the conversation's context).
      if (outcome.pressed && patched(patches.transcriptHeard)) {
        transcript.note({ role: 'assistant', kind: 'dtmf', text: digits, timestamp: Date.now() });
        await transcript.flush();
      }
      return { call_id: input.callId, pressed: outcome.pressed, digits };
    },
    {
      validator: ({ digits }: PressRequest) => {
        mustBeLive();
        if (!DTMF_DIGITS.test(digits)) throw new Error('digits must be 0-9, *, # or w');
      },
    },
  );
  acceptTransfer(call, mustBeLive);
}

/** A refused press: 409 `call_not_active` when the carrier says the call has ended, else the carrier's refusal. */
function refusedByCarrier(refusal: CarrierRefusal): ApplicationFailure {
  return refusal.callNotActive
    ? ApplicationFailure.create({ type: CALL_NOT_ACTIVE, message: 'the carrier says the call has ended', nonRetryable: true })
    : carrierRefusalFailure(refusal);
}

/**
 * Speaks for a control request. Refused because the call has ended, or the carrier unreachable: the call
 * counts as ended (as every carrier command: `onCarrier`), nothing is spoken. Any other refusal is the
 * request's answer and the call goes on.
 */
async function speakForControl(call: CallState, speak: () => Promise<void>): Promise<boolean> {
  try {
    await speak();
    return true;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const refusal = carrierRefusalOfFailure(err.cause);
    if (refusal && !refusal.callNotActive && patched(patches.carrierRefusals)) throw carrierRefusalFailure(refusal);
    call.carrierLost = true;
    return false;
  }
}

/** How long the destination may take to answer; the carriers give up sooner (their ring timeouts). */
const TRANSFER_OUTCOME_TIMEOUT_MS = RING_TIMEOUT_MS + 30_000;

/**
 * A blind transfer: speech stops, the carrier dials the destination and, once it answers,
 * connects it to the caller. Answered: the call is transferred (recorded, `call_transferred`)
 * and goes on, held and billed as before, without Switchboard in its media until it ends.
 * Not answered: the call is back with the agent as before.
 */
function acceptTransfer(call: CallState, mustBeLive: () => void): void {
  setHandler(
    transferUpdate,
    async ({ toNumber }): Promise<TransferResult> => {
      patched(patches.callTransfer);
      return transferTo(call, toNumber);
    },
    // The destination was cleared by the API (src/domain/calls/transfer.ts).
    { validator: (_request: TransferRequest) => mustBeLive() },
  );
}

/**
 * Transfers the call to `toNumber`, already cleared (by the API, or for the model's `transfer_call`
 * tool by the same use case): the update above and workflows/calls/tools.ts share it.
 */
export async function transferTo(call: CallState, toNumber: string): Promise<TransferResult> {
  const { input, events } = call;
  const result = (transferred: boolean, reason: TransferResult['failure_reason']): TransferResult => ({
    call_id: input.callId,
    to_number: toNumber,
    transferred,
    failure_reason: reason,
  });
  call.transfer.attempting = true;
  try {
    // The speech in play, and what waits behind it, is dropped first.
    if (!(await call.onCarrier(() => carrier.stopSpeaking(call.carrierCallId!)))) return result(false, 'call_ended');
    const outcomes = events.transfers.length;
    let accepted = false;
    let refusal: CarrierRefusal | undefined;
    try {
      ({ accepted, refusal } = await carrier.transferCall({
        carrierCallId: call.carrierCallId!,
        callId: input.callId,
        transferId: uuid4(),
        to: toNumber,
        // The destination sees the line's number.
        from: input.direction === 'outbound' ? input.from : input.to,
      }));
    } catch (err) {
      // The carrier stayed unreachable: not transferred.
      if (!(err instanceof ActivityFailure)) throw err;
    }
    // Refused: the call has ended at the carrier, or the carrier's refusal is the answer (502 `carrier_error`).
    if (!accepted && refusal && patched(patches.carrierRefusals)) {
      if (refusal.callNotActive) return result(false, 'call_ended');
      throw carrierRefusalFailure(refusal);
    }
    if (!accepted) return result(false, call.ended() ? 'call_ended' : 'refused');
    await condition(() => events.transfers.length > outcomes || call.ended(), TRANSFER_OUTCOME_TIMEOUT_MS);
    if (call.ended()) return result(false, 'call_ended');
    if (events.transfers[outcomes] !== true) return result(false, 'not_answered');
    call.transfer.to = toNumber;
    await records.recordCallState(input.callId, { status: 'in_progress', transferredTo: toNumber });
    await publishCallEvent(input, 'call_transferred', { to_number: toNumber });
    return result(true, null);
  } finally {
    call.transfer.attempting = false;
  }
}
