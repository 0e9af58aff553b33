import type Telnyx from 'telnyx';
import { telnyxRequest, type TelnyxSettings } from './client';
import { encodeClientState } from '../callbacks/telnyx/clientState';
import { telnyxTranscription } from './transcription';
import type { TransferCallRequest } from '../port';

/**
 * Call Control on Telnyx, one command per port method. Calls are dialled (./dial.ts) and answered with
 * transcription on in the line's language (./transcription.ts: Telnyx's speech-to-text reports the caller's
 * sentences as `call.transcription`) and with our call id and direction in `client_state`, so the call's first
 * webhooks name it. Commands carry `command_id` where the port asks for idempotency: Telnyx ignores a
 * repeated one ("Telnyx will ignore any command with the same `command_id` for the same `call_control_id`").
 * Speech is ./speech.ts.
 */

/** Telnyx answers a command on a call that has ended with 422 (or 404 once forgotten). */
const ENDED = [404, 422] as const;

export async function answer(
  client: Telnyx,
  settings: TelnyxSettings,
  request: { carrierCallId: string; callId: string; record?: boolean; language?: string },
): Promise<void> {
  await telnyxRequest('answer', () =>
    client.calls.actions.answer(request.carrierCallId, {
      webhook_url: settings.webhookUrl,
      client_state: encodeClientState({ c: request.callId, d: 'i' }),
      command_id: `answer:${request.callId}`,
      ...(request.record ? { record: 'record-from-answer' as const, record_format: 'wav' as const } : {}),
      ...telnyxTranscription(request.language),
    }),
  );
}

export async function reject(client: Telnyx, request: { carrierCallId: string }): Promise<void> {
  await telnyxRequest('reject', () => client.calls.actions.reject(request.carrierCallId, { cause: 'USER_BUSY' }), ENDED);
}

export async function hangup(client: Telnyx, request: { carrierCallId: string }): Promise<void> {
  await telnyxRequest('hangup', () => client.calls.actions.hangup(request.carrierCallId, {}), ENDED);
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

/**
 * `send_dtmf`, with `command_id` from the press's id: an attempt retried after a timeout (the first may have
 * reached Telnyx) is ignored by Telnyx, so the tones play once.
 */
export async function sendDtmf(client: Telnyx, request: { carrierCallId: string; digits: string; pressId?: string }): Promise<void> {
  await telnyxRequest('send_dtmf', () =>
    client.calls.actions.sendDtmf(request.carrierCallId, {
      digits: request.digits,
      duration_millis: TONE_MS,
      ...(request.pressId ? { command_id: `dtmf:${request.pressId}` } : {}),
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, dtmfPlayingMs(request.digits)));
}

/**
 * Asks Telnyx to open the call's media socket to `streamUrl`: both ways, caller audio only, in PCMU (µ-law
 * 8 kHz, what the audio relay speaks) both ways. `stream_codec` must be forced: "When set to 'default' or when
 * transcoding is not possible, the codec from the call will be used" (`ActionStartStreamingParams.stream_codec`),
 * so a G.722 or OPUS call would otherwise stream caller audio in its own codec. When Telnyx cannot transcode, its
 * `start` message says another encoding and the socket is refused (./media.ts).
 */
export async function startStreaming(client: Telnyx, request: { carrierCallId: string; streamUrl: string }): Promise<void> {
  await telnyxRequest('streaming_start', () =>
    client.calls.actions.startStreaming(request.carrierCallId, {
      stream_url: request.streamUrl,
      stream_track: 'inbound_track',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
      stream_codec: 'PCMU',
    }),
  );
}
