import type Telnyx from 'telnyx';
import { telnyxRequest } from './client';
import { encodeClientState } from '../callbacks/telnyx/clientState';
import type { TelnyxCallLanguages } from '../callbacks/telnyx/callRecords';
import type { TelnyxSpeechCommands, TelnyxSpeechQueue } from '../callbacks/telnyx/speechQueue';
import { splitSpeech } from '../callbacks/telnyx/speechText';
import { telnyxVoice } from './voices';

/** Telnyx answers a command on a call that has ended with 422 (or 404 once forgotten). */
const ENDED = [404, 422] as const;

/**
 * The `speak` and `playback_stop` commands the speech queue sends (../callbacks/telnyx/speechQueue.ts), shared by
 * the worker (which queues speech) and the API (which sends the next command when Telnyx reports one ended, and
 * stops playback on a barge-in). `client_state` carries only the chunk's reference: Telnyx adds it "to every
 * subsequent webhook" of the call, and the text stays in Postgres.
 */
export function telnyxSpeechCommands(client: Telnyx): TelnyxSpeechCommands {
  return {
    async speak(command) {
      await telnyxRequest('speak', () =>
        client.calls.actions.speak(command.carrierCallId, {
          payload: command.text,
          payload_type: 'text',
          voice: command.voice,
          client_state: encodeClientState({ s: command.ref }),
          command_id: `speak:${command.speakId}:${command.chunk}`,
        }),
      );
    },
    async stop(carrierCallId) {
      await telnyxRequest('playback_stop', () => client.calls.actions.stopPlayback(carrierCallId, { stop: 'all' }), ENDED);
    },
  };
}

/**
 * Speaks `text` (up to the API's 5,000 characters) as one speech: cut into commands of at most 3,000 characters
 * (Telnyx's limit), played in order, reported as one `call.playback` of `speakId`. The voice is the line's (or,
 * without one, a voice of the call's language, ./voices.ts).
 */
export async function speakText(
  queue: TelnyxSpeechQueue,
  languages: TelnyxCallLanguages,
  request: { carrierCallId: string; speakId: string; text: string; voice?: string },
): Promise<void> {
  const chunks = splitSpeech(request.text);
  if (chunks.length === 0) return;
  const voice = telnyxVoice(request.voice, request.voice ? undefined : await languages.of(request.carrierCallId));
  await queue.enqueue({ carrierCallId: request.carrierCallId, speakId: request.speakId, chunks, voice });
}
