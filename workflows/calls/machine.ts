import { condition, patched } from '@temporalio/workflow';
import type { CallInput } from '../definitions/calls';
import { patches } from '../patches';
import type { CallState } from './state';

/** How long a voicemail message may take to be heard before the call is hung up anyway. */
const VOICEMAIL_PLAYBACK = '2 minutes';

/**
 * A campaign's call that a machine answered: its voicemail message, if any, is heard to its end (or the machine hangs
 * up first), then the call ends (`answering_machine`). Answers false for calls before the patch (none took this path).
 */
export async function answerMachine(call: CallState, onMachine: NonNullable<CallInput['onMachine']>): Promise<boolean> {
  if (!patched(patches.campaignMachine)) return false;
  if (onMachine.voicemailMessage && (await call.say(onMachine.voicemailMessage, call.answeredAt!))) {
    const speeches = [...call.speech.currentSpeeches];
    await condition(() => speeches.every((id) => call.events.finished(id)) || call.ended(), VOICEMAIL_PLAYBACK);
  }
  call.requestEnd('answering_machine');
  return true;
}
