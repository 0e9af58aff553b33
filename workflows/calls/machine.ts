import { condition, patched } from '@temporalio/workflow';
import type { AnsweredBy } from '../../src/adapters/carrier/callbacks/wire';
import type { CallInput } from '../definitions/calls';
import { patches } from '../patches';
import type { CallState } from './state';

/** How long a voicemail message may take to be heard before the call is hung up anyway. */
const VOICEMAIL_PLAYBACK = '2 minutes';
/**
 * How long after the answer the carrier may take to say who answered, when it says so after the answer: Twilio's
 * detection gives up (`unknown`) 30 s after the answer (`MachineDetectionTimeout`'s default), and its callback is
 * then a few seconds away. Past it, who answered is `unknown`.
 */
const DETECTION_WAIT = '35 seconds';
/**
 * How long after a machine was detected its greeting's end may take to be reported (Telnyx reports the greeting's
 * end in its own event after the detection; Twilio with the detection). Past it the message is spoken anyway.
 */
const GREETING_END_WAIT = '30 seconds';

/**
 * Whether who answered comes after the answer: a call placed with end-of-greeting detection (`detectGreetingEnd`)
 * whose answer did not say. Synchronous, so that calls that need no wait issue their commands as before.
 */
export function detectionFollows(call: CallState): boolean {
  return !call.events.answered?.answered_by && call.input.detectGreetingEnd === true && patched(patches.voicemailAfterGreeting);
}

/** The carrier's `call.machine_detection`, waited for within {@link DETECTION_WAIT}; `unknown` when it did not come. */
export async function detectedAfterAnswer(call: CallState): Promise<AnsweredBy> {
  await condition(() => call.events.detection !== undefined || call.ended(), DETECTION_WAIT);
  return call.events.detection?.answered_by ?? 'unknown';
}

/**
 * Whether the carrier's detection said a fax answered (`machine_kind: fax`, with the answer or after it), for a call
 * that has the patch: a fax takes no message and has no greeting to wait out. Asked only of a campaign's call that a
 * machine answered, so no other call records the marker.
 */
export function faxAnswered(call: CallState): boolean {
  const kind = call.events.detection?.machine_kind ?? call.events.answered?.machine_kind;
  return kind === 'fax' && patched(patches.faxHangsUp);
}

/**
 * A campaign's call that a machine answered: its voicemail message, if any, is heard to its end (or the machine hangs
 * up first), then the call ends (`answering_machine`). Answers false for calls before the patch (none took this path).
 * A fax (`fax`: {@link faxAnswered}) is hung up on at once: no message, no greeting wait.
 *
 * Placed with end-of-greeting detection, the message waits for the greeting to end (the beep), so the machine records
 * it whole; a greeting whose end is not reported within {@link GREETING_END_WAIT} gets the message then (a detector
 * that missed the beep: a message recorded late is better than none).
 */
export async function answerMachine(call: CallState, onMachine: NonNullable<CallInput['onMachine']>, fax: boolean): Promise<boolean> {
  if (!patched(patches.campaignMachine)) return false;
  if (fax) {
    call.faxHungUp = true;
    call.requestEnd('answering_machine');
    return true;
  }
  let spokenAt = call.answeredAt!;
  if (onMachine.voicemailMessage && call.input.detectGreetingEnd && patched(patches.voicemailAfterGreeting)) {
    await condition(() => call.events.greetingEnded !== undefined || call.ended(), GREETING_END_WAIT);
    spokenAt = call.events.greetingEnded?.at ?? Date.now();
  }
  if (onMachine.voicemailMessage && (await call.say(onMachine.voicemailMessage, spokenAt))) {
    const speeches = [...call.speech.currentSpeeches];
    await condition(() => speeches.every((id) => call.events.finished(id)) || call.ended(), VOICEMAIL_PLAYBACK);
  }
  call.requestEnd('answering_machine');
  return true;
}
