import type Telnyx from 'telnyx';
import type { GoogleTranscriptionLanguage } from 'telnyx/resources/calls/actions';
import { telnyxRequest, type TelnyxSettings } from './client';
import { encodeClientState } from '../callbacks/telnyx/clientState';
import { telnyxVoice } from './voices';
import type { TransferCallRequest } from '../port';

/**
 * Call Control on Telnyx, one command per port method. Calls are dialled and answered with
 * transcription on (Telnyx's speech-to-text reports the caller's sentences as `call.transcription`)
 * and with our call id and direction in `client_state`, so every webhook names its call.
 * Commands carry `command_id` where the port asks for idempotency: Telnyx ignores a repeated one.
 */

/** Telnyx answers a command on a call that has ended with 422 (or 404 once forgotten). */
const ENDED = [404, 422] as const;

function transcription(settings: TelnyxSettings) {
  return {
    transcription: true,
    transcription_config: {
      transcription_engine: 'Google' as const,
      // Google's engine reports the final sentence (`is_final`), which is what the port calls an utterance.
      transcription_engine_config: {
        language: settings.transcriptionLanguage as GoogleTranscriptionLanguage,
        model: 'phone_call' as const,
      },
      transcription_tracks: 'inbound',
    },
  };
}

export async function dial(
  client: Telnyx,
  settings: TelnyxSettings,
  request: { callId: string; from: string; to: string; record?: boolean; machineDetection?: boolean },
): Promise<{ carrierCallId: string }> {
  const response = await telnyxRequest('POST /calls', () =>
    client.calls.dial({
      connection_id: settings.connectionId,
      from: request.from,
      to: request.to,
      webhook_url: settings.webhookUrl,
      client_state: encodeClientState({ c: request.callId, d: 'o', ...(request.machineDetection ? { m: 1 as const } : {}) }),
      command_id: request.callId,
      ...(request.record ? { record: 'record-from-answer' as const, record_format: 'wav' as const } : {}),
      // `call.machine.detection.ended` (human, machine, not_sure) follows `call.answered`.
      ...(request.machineDetection ? { answering_machine_detection: 'detect' as const } : {}),
      ...transcription(settings),
    }),
  );
  const carrierCallId = response?.data?.call_control_id;
  if (!carrierCallId) throw new Error('Telnyx answered POST /calls without a call_control_id');
  return { carrierCallId };
}

export async function answer(
  client: Telnyx,
  settings: TelnyxSettings,
  request: { carrierCallId: string; callId: string; record?: boolean },
): Promise<void> {
  await telnyxRequest('answer', () =>
    client.calls.actions.answer(request.carrierCallId, {
      webhook_url: settings.webhookUrl,
      client_state: encodeClientState({ c: request.callId, d: 'i' }),
      command_id: `answer:${request.callId}`,
      ...(request.record ? { record: 'record-from-answer' as const, record_format: 'wav' as const } : {}),
      ...transcription(settings),
    }),
  );
}

export async function reject(client: Telnyx, request: { carrierCallId: string }): Promise<void> {
  await telnyxRequest('reject', () => client.calls.actions.reject(request.carrierCallId, { cause: 'USER_BUSY' }), ENDED);
}

export async function hangup(client: Telnyx, request: { carrierCallId: string }): Promise<void> {
  await telnyxRequest('hangup', () => client.calls.actions.hangup(request.carrierCallId, {}), ENDED);
}

/** Telnyx queues speak commands per call and plays them in order, as the port asks. */
export async function speak(
  client: Telnyx,
  request: { carrierCallId: string; speakId: string; text: string; voice?: string },
): Promise<void> {
  await telnyxRequest('speak', () =>
    client.calls.actions.speak(request.carrierCallId, {
      payload: request.text,
      payload_type: 'text',
      voice: telnyxVoice(request.voice),
      client_state: encodeClientState({ s: request.speakId, t: request.text }),
      command_id: `speak:${request.speakId}`,
    }),
  );
}

/** Stops the playing speech and drops the queued ones (`stop: all`). */
export async function stopPlayback(client: Telnyx, request: { carrierCallId: string }): Promise<void> {
  await telnyxRequest('playback_stop', () => client.calls.actions.stopPlayback(request.carrierCallId, { stop: 'all' }), ENDED);
}

/** How long a transfer's destination rings before Telnyx gives up (`timeout`): the ring timeout of a call. */
const TRANSFER_TIMEOUT_SECS = 30;

/**
 * Transfers the call (`transfer`): Telnyx dials a new leg and bridges it once answered. The new
 * leg's webhooks carry `{x: <call id>}` (`target_leg_client_state`): its answer or its failed
 * hang-up is the transfer's outcome. The call's own leg is hung up when the bridge ends.
 */
export async function transfer(client: Telnyx, settings: TelnyxSettings, request: TransferCallRequest): Promise<void> {
  await telnyxRequest('transfer', () =>
    client.calls.actions.transfer(request.carrierCallId, {
      to: request.to,
      from: request.from,
      timeout_secs: TRANSFER_TIMEOUT_SECS,
      webhook_url: settings.webhookUrl,
      target_leg_client_state: encodeClientState({ x: request.callId }),
      command_id: `transfer:${request.transferId}`,
    }),
  );
}

/** Telnyx plays each tone for `duration_millis` (250 by default); `w` is a 0.5 s pause, as the port's. */
const TONE_MS = 250;
const PAUSE_MS = 500;

/** How long Telnyx takes to play `digits`: its command is answered when accepted, the port resolves once played. */
export function dtmfPlayingMs(digits: string): number {
  return [...digits].reduce((total, digit) => total + (digit === 'w' || digit === 'W' ? PAUSE_MS : TONE_MS), 0);
}

export async function sendDtmf(client: Telnyx, request: { carrierCallId: string; digits: string }): Promise<void> {
  await telnyxRequest('send_dtmf', () =>
    client.calls.actions.sendDtmf(request.carrierCallId, { digits: request.digits, duration_millis: TONE_MS }),
  );
  await new Promise((resolve) => setTimeout(resolve, dtmfPlayingMs(request.digits)));
}

/** Asks Telnyx to open the call's media socket to `streamUrl`: both ways, PCMU (µ-law 8 kHz), caller audio only. */
export async function startStreaming(client: Telnyx, request: { carrierCallId: string; streamUrl: string }): Promise<void> {
  await telnyxRequest('streaming_start', () =>
    client.calls.actions.startStreaming(request.carrierCallId, {
      stream_url: request.streamUrl,
      stream_track: 'inbound_track',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
    }),
  );
}
