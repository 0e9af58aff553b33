import type { TelnyxClientState } from './clientState';

/** Telnyx's Recordings API: `GET <this>/<id>` with the account's API key answers fresh download links (`download_urls.wav`). */
export const TELNYX_RECORDINGS_URL = 'https://api.telnyx.com/v2/recordings';

/** A recording as Telnyx's Recordings API knows it (`RecordingResponseData`: `id`, `call_control_id`). */
export interface TelnyxRecordingRef {
  id: string;
  callControlId?: string;
}

/** What a `call.recording.saved` becomes (a part of ./webhook.ts's `TelnyxTranslation`). */
export type RecordingTranslation =
  | { kind: 'recording'; callId: string; carrierCallId?: string; recordingUrl: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'unknown'; reason: string };

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * `call.recording.saved`, as documented (developers.telnyx.com/api-reference/callbacks/call-recording-saved; telnyx
 * 7.24.0 `CallRecordingSaved.Payload`): `call_leg_id, call_session_id, channels, client_state, connection_id,
 * recording_started_at, recording_ended_at, recording_urls, public_recording_urls`, with neither `call_control_id`
 * nor a recording id. The recording is found with the Recordings API by its leg (`RecordingListParams.filter
 * .call_leg_id`), which also names the leg's `call_control_id`; the call is the one `client_state` names (set by
 * dial and answer, until a later command sets another), else the one of that `call_control_id`. A recording the
 * API does not list yet is tried again.
 */
export async function recordingSaved(
  payload: Record<string, unknown>,
  state: TelnyxClientState,
  lookups: {
    recordingOfLeg(callLegId: string, startedAt?: string): Promise<TelnyxRecordingRef | undefined>;
    callByCarrierId(carrierCallId: string): Promise<{ id: string } | undefined>;
  },
): Promise<RecordingTranslation> {
  const legId = str(payload.call_leg_id);
  if (!legId) return { kind: 'ignored', reason: 'recording without its call_leg_id' };
  // A transfer's new leg is not recorded by Switchboard.
  if (state.x) return { kind: 'ignored', reason: 'recording of a transfer leg' };
  const recording = await lookups.recordingOfLeg(legId, str(payload.recording_started_at));
  if (!recording) return { kind: 'unknown', reason: `Telnyx lists no recording of leg ${legId} yet` };
  const known =
    (state.c ? { id: state.c } : undefined) ??
    (recording.callControlId ? await lookups.callByCarrierId(recording.callControlId) : undefined);
  if (!known) return { kind: 'ignored', reason: `no call for leg ${legId}` };
  return {
    kind: 'recording',
    callId: known.id,
    ...(recording.callControlId ? { carrierCallId: recording.callControlId } : {}),
    recordingUrl: `${TELNYX_RECORDINGS_URL}/${recording.id}`,
  };
}
