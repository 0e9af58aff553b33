import { TelnyxWebhook } from 'telnyx/lib/webhooks';
import type { AnsweredBy, CarrierCallEvent, CarrierMessageEvent } from '../../port';
import { decodeClientState, type TelnyxClientState } from './clientState';
import type { TelnyxWebhookBody } from './envelope';
import { translateMessage } from './messageEvents';

/**
 * Telnyx's webhooks, verified and translated into the carrier callbacks Switchboard already
 * handles (../callbacks/wire.ts), so the simulator's rules apply to Telnyx unchanged.
 *
 * Verification: `telnyx-signature-ed25519` (base64 Ed25519 signature) over
 * `"<telnyx-timestamp>|<raw body>"` with the account's public key (TELNYX_PUBLIC_KEY), the
 * timestamp within 300 s of our clock (the package's own verifier).
 */
export const TELNYX_WEBHOOK_HEADERS = { signature: 'telnyx-signature-ed25519', timestamp: 'telnyx-timestamp' } as const;

export type TelnyxVerdict = { valid: true; signature: string; timestamp: number } | { valid: false; reason: string };

export async function verifyTelnyxWebhook(input: {
  publicKey: string;
  header: (name: string) => string | undefined;
  rawBody: Buffer;
}): Promise<TelnyxVerdict> {
  const signature = input.header(TELNYX_WEBHOOK_HEADERS.signature);
  const timestamp = input.header(TELNYX_WEBHOOK_HEADERS.timestamp);
  if (!signature || !timestamp) return { valid: false, reason: 'missing_signature_headers' };
  try {
    await new TelnyxWebhook(input.publicKey).verify(input.rawBody.toString('utf8'), {
      [TELNYX_WEBHOOK_HEADERS.signature]: signature,
      [TELNYX_WEBHOOK_HEADERS.timestamp]: timestamp,
    });
  } catch (err) {
    return { valid: false, reason: (err as Error).message };
  }
  return { valid: true, signature, timestamp: Number(timestamp) };
}

export type { TelnyxWebhookBody } from './envelope';

/** What the translator needs from Switchboard's records when the event's `client_state` does not say. */
export interface TelnyxLookups {
  /** The call Telnyx knows by this `call_control_id`. */
  callByCarrierId(carrierCallId: string): Promise<{ id: string; direction: 'inbound' | 'outbound' } | undefined>;
  /** Switchboard's id of the message Telnyx knows by this id. */
  messageByCarrierId(carrierMessageId: string): Promise<string | undefined>;
  /** The recording Telnyx's Recordings API lists for this call leg (`GET /v2/recordings?filter[call_leg_id]=`). */
  recordingOfLeg(callLegId: string, startedAt?: string): Promise<TelnyxRecordingRef | undefined>;
}

/** A recording as Telnyx's Recordings API knows it (`RecordingResponseData`: `id`, `call_control_id`). */
export interface TelnyxRecordingRef {
  id: string;
  callControlId?: string;
}

export type TelnyxTranslation =
  | { kind: 'call'; event: CarrierCallEvent }
  | { kind: 'message'; event: CarrierMessageEvent }
  /** Nothing to do; `unhandled`: an event type (or status) Switchboard does not act on at all, logged as such. */
  | { kind: 'ignored'; reason: string; unhandled?: true }
  /**
   * A recorded call's recording, saved after its hang-up: named by its Telnyx API resource (the webhook's download
   * links expire in 10 minutes), on the call `callId` (`carrierCallId` when the Recordings API named it).
   */
  | { kind: 'recording'; callId: string; carrierCallId?: string; recordingUrl: string }
  /**
   * Not known yet: a receipt of a message whose carrier id is not recorded yet, a recording Telnyx's API does
   * not list yet. The inbox tries the event again later.
   */
  | { kind: 'unknown'; reason: string };

/** Telnyx's Recordings API: `GET <this>/<id>` with the account's API key answers fresh download links (`download_urls.wav`). */
export const TELNYX_RECORDINGS_URL = 'https://api.telnyx.com/v2/recordings';

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export async function translateTelnyxEvent(body: TelnyxWebhookBody, lookups: TelnyxLookups): Promise<TelnyxTranslation> {
  const type = body.data?.event_type ?? '';
  const payload = body.data?.payload ?? {};
  const at = Date.parse(body.data?.occurred_at ?? '');
  if (!Number.isFinite(at)) return { kind: 'ignored', reason: 'no occurred_at' };
  if (type.startsWith('message.')) return translateMessage(type, payload, at, lookups.messageByCarrierId);
  if (!type.startsWith('call.')) return { kind: 'ignored', reason: `event ${type}`, unhandled: true };
  const state = decodeClientState(payload.client_state);
  // The one call event without a call_control_id (telnyx 7.24.0 `CallRecordingSaved.Payload`).
  if (type === 'call.recording.saved') return recordingSaved(payload, state, lookups);
  const carrierCallId = str(payload.call_control_id);
  if (!carrierCallId) return { kind: 'ignored', reason: 'no call_control_id' };
  // A transfer's new leg reports the transfer's outcome on the call being transferred.
  if (state.x) return transferLegEvent(type, payload, { call_id: state.x, carrier_call_id: carrierCallId, at });
  if (!CALL_EVENTS.includes(type))
    return { kind: 'ignored', reason: `event ${type}`, ...(NOTHING_TO_DO.includes(type) ? {} : { unhandled: true as const }) };

  if (type === 'call.initiated' && payload.direction === 'incoming') {
    return {
      kind: 'call',
      event: {
        type: 'call.incoming',
        carrier_call_id: carrierCallId,
        from: str(payload.from) ?? 'anonymous',
        to: str(payload.to) ?? '',
        at,
      },
    };
  }
  const known = state.c
    ? { id: state.c, direction: state.d === 'i' ? ('inbound' as const) : ('outbound' as const) }
    : await lookups.callByCarrierId(carrierCallId);
  // Events of a call we never took (declined, another application's) are dropped: dial and answer
  // name ours in client_state, so there is no waiting for a record here.
  if (!known) return { kind: 'ignored', reason: `no call for ${carrierCallId}` };
  const ids = { call_id: known.id, carrier_call_id: carrierCallId, at };

  switch (type) {
    case 'call.initiated':
      return { kind: 'call', event: { type: 'call.ringing', ...ids } };
    case 'call.answered':
      // With machine detection asked, the answer is reported when detection ends (below).
      if (state.m) return { kind: 'ignored', reason: 'answered; machine detection under way' };
      return { kind: 'call', event: { type: 'call.answered', ...ids } };
    case 'call.machine.detection.ended':
      return {
        kind: 'call',
        event: { type: 'call.answered', ...ids, answered_by: ANSWERED_BY_RESULT[str(payload.result) ?? ''] ?? 'unknown' },
      };
    case 'call.transcription': {
      const data = (payload.transcription_data ?? {}) as { transcript?: unknown; is_final?: unknown };
      const text = str(data.transcript);
      // Interim results are not sentences; the final one is.
      if (!text || data.is_final !== true) return { kind: 'ignored', reason: 'interim transcription' };
      return { kind: 'call', event: { type: 'call.utterance', ...ids, text: text.trim(), language: str(payload.language) ?? 'en' } };
    }
    case 'call.speak.ended': {
      if (!state.s) return { kind: 'ignored', reason: 'speak without our speak id' };
      // The port: a hang-up stops speech without a playback report.
      if (payload.status === 'call_hangup') return { kind: 'ignored', reason: 'speech ended by the hang-up' };
      const completed = payload.status === 'completed';
      return {
        kind: 'call',
        event: {
          type: 'call.playback',
          ...ids,
          speak_id: state.s,
          // Telnyx reports no played words: all of them when it completed, none known when cut short.
          played_text: completed ? (state.t ?? '') : '',
          done: true,
          ...(completed ? {} : { stopped: true as const }),
        },
      };
    }
    case 'call.hangup':
      return { kind: 'call', event: hangupEvent(payload, known.direction, ids) };
    default:
      return { kind: 'ignored', reason: `event ${type}` };
  }
}

/** Call events Switchboard expects and needs nothing from (the bridge of a transfer, speech starting). */
const NOTHING_TO_DO = ['call.bridged', 'call.speak.started'];

/** The call events translated below (every other one is stored and logged as not acted on). */
const CALL_EVENTS = [
  'call.initiated',
  'call.answered',
  'call.machine.detection.ended',
  'call.transcription',
  'call.speak.ended',
  'call.hangup',
];

/**
 * `call.recording.saved`, as documented (developers.telnyx.com/api-reference/callbacks/call-recording-saved; telnyx
 * 7.24.0 `CallRecordingSaved.Payload`): `call_leg_id, call_session_id, channels, client_state, connection_id,
 * recording_started_at, recording_ended_at, recording_urls, public_recording_urls`, with neither `call_control_id`
 * nor a recording id. The recording is found with the Recordings API by its leg (`RecordingListParams.filter
 * .call_leg_id`), which also names the leg's `call_control_id`; the call is the one `client_state` names (set by
 * dial and answer), else the one of that `call_control_id`. A recording the API does not list yet is tried again.
 */
async function recordingSaved(
  payload: Record<string, unknown>,
  state: TelnyxClientState,
  lookups: TelnyxLookups,
): Promise<TelnyxTranslation> {
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

/** Telnyx's detection result → who answered (`not_sure`, or anything new: `unknown`). */
const ANSWERED_BY_RESULT: Record<string, AnsweredBy> = { human: 'human', machine: 'machine' };

/**
 * An event of a transfer's new leg: its answer is the transfer's success; a hang-up before any
 * answer (busy, no answer, rejected, unreachable) its failure. A hang-up after the bridge
 * (`normal_clearing`) or of a transfer the caller abandoned (`originator_cancel`) says nothing
 * new: the call's own leg reports its end.
 */
function transferLegEvent(
  type: string,
  payload: Record<string, unknown>,
  ids: { call_id: string; carrier_call_id: string; at: number },
): TelnyxTranslation {
  if (type === 'call.answered') return { kind: 'call', event: { type: 'call.transfer', ...ids, answered: true } };
  const cause = str(payload.hangup_cause);
  if (type === 'call.hangup' && cause !== 'normal_clearing' && cause !== 'originator_cancel')
    return { kind: 'call', event: { type: 'call.transfer', ...ids, answered: false } };
  return { kind: 'ignored', reason: `transfer leg ${type}` };
}

/**
 * `call.hangup` → the call's one end event. `hangup_source` names the leg that hung up: on an
 * outbound call `caller` is Switchboard, on an inbound one `callee` is.
 */
function hangupEvent(
  payload: Record<string, unknown>,
  direction: 'inbound' | 'outbound',
  ids: { call_id: string; carrier_call_id: string; at: number },
): CarrierCallEvent {
  const cause = str(payload.hangup_cause) ?? 'unspecified';
  const ours = direction === 'outbound' ? 'caller' : 'callee';
  const endedBy = payload.hangup_source === ours ? ('switchboard' as const) : ('caller' as const);
  if (cause === 'user_busy') return { type: 'call.busy', ...ids };
  if (cause === 'timeout' || cause === 'no_answer') return { type: 'call.no_answer', ...ids };
  if (cause === 'normal_clearing' || cause === 'time_limit') return { type: 'call.completed', ...ids, ended_by: endedBy, answered: true };
  if (cause === 'originator_cancel') return { type: 'call.completed', ...ids, ended_by: endedBy, answered: false };
  return { type: 'call.failed', ...ids };
}
