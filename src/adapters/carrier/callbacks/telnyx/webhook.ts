import { TelnyxWebhook } from 'telnyx/lib/webhooks';
import type { AnsweredBy, CarrierCallEvent, CarrierMessageEvent } from '../../port';
import { decodeClientState } from './clientState';
import type { TelnyxWebhookBody } from './envelope';
import { translateMessage } from './messageEvents';
import { recordingSaved, type TelnyxRecordingRef } from './recordingEvents';
import { utteranceLanguage, type TelnyxCallLanguages } from './callRecords';
import type { SpeechReport, TelnyxSpeechQueue } from './speechQueue';

/**
 * Telnyx's webhooks, verified and translated into the carrier callbacks Switchboard already
 * handles (../callbacks/wire.ts), so the simulator's rules apply to Telnyx unchanged.
 *
 * Verification: `telnyx-signature-ed25519` (base64 Ed25519 signature) over
 * `"<telnyx-timestamp>|<raw body>"` with the account's public key (TELNYX_PUBLIC_KEY), the
 * timestamp within 300 s of our clock (the package's own verifier).
 */
export const TELNYX_WEBHOOK_HEADERS = { signature: 'telnyx-signature-ed25519', timestamp: 'telnyx-timestamp' } as const;

/**
 * `signature`: the signature's bytes, in canonical base64. A 64-byte signature ends in a base64
 * character whose four low bits are unused, and the verifier ignores them: sixteen spellings of the
 * header verify, so the replay record is keyed on the bytes, never on the header text (security review L14).
 */
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
  return { valid: true, signature: Buffer.from(signature, 'base64').toString('base64'), timestamp: Number(timestamp) };
}

export type { TelnyxWebhookBody } from './envelope';
export type { TelnyxRecordingRef } from './recordingEvents';

/** What the translator needs from Switchboard's records when the event's `client_state` does not say. */
export interface TelnyxLookups {
  /** The call Telnyx knows by this `call_control_id`. */
  callByCarrierId(carrierCallId: string): Promise<{ id: string; direction: 'inbound' | 'outbound' } | undefined>;
  /** Switchboard's id of the message Telnyx knows by this id. */
  messageByCarrierId(carrierMessageId: string): Promise<string | undefined>;
  /** The recording Telnyx's Recordings API lists for this call leg (`GET /v2/recordings?filter[call_leg_id]=`). */
  recordingOfLeg(callLegId: string, startedAt?: string): Promise<TelnyxRecordingRef | undefined>;
  /** The Telnyx call state shared with the worker's adapter (src/main/carrierDecliner.ts builds it). */
  calls: TelnyxCallControl;
}

/** What call events change beyond the event itself, shared with the worker in Postgres. */
export interface TelnyxCallControl {
  /** Queued speech (./speechQueue.ts): speak events advance it; caller speech stops it (barge-in). */
  speech: TelnyxSpeechQueue;
  /** The language each call's transcription was started in (./callRecords.ts). */
  languages: TelnyxCallLanguages;
  /** A dialled call's id, learnt from its first webhook, for a dial retried after a lost answer (../../telnyx/dial.ts). */
  dialled(callId: string, carrierCallId: string): Promise<void>;
}

export type TelnyxTranslation =
  | { kind: 'call'; event: CarrierCallEvent }
  /** Several events of one call, in order (a barge-in's stopped speech before the sentence that cut it). */
  | { kind: 'calls'; events: CarrierCallEvent[] }
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

export { TELNYX_RECORDINGS_URL } from './recordingEvents';

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
    return { kind: 'ignored', reason: `event ${type}`, ...(type === 'call.bridged' ? {} : { unhandled: true as const }) };

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
      if (state.c && state.d === 'o') await lookups.calls.dialled(state.c, carrierCallId);
      return { kind: 'call', event: { type: 'call.ringing', ...ids } };
    case 'call.answered':
      // With plain machine detection asked, the answer is reported when detection ends (below); with end-of-greeting
      // detection (`g`) at once, who answered following it.
      if (state.m && !state.g) return { kind: 'ignored', reason: 'answered; machine detection under way' };
      return { kind: 'call', event: { type: 'call.answered', ...ids } };
    case 'call.machine.detection.ended': {
      const detected = DETECTION_RESULT[str(payload.result) ?? ''] ?? { answered_by: 'unknown' };
      if (state.g) return { kind: 'call', event: { type: 'call.machine_detection', ...ids, ...detected } };
      return { kind: 'call', event: { type: 'call.answered', ...ids, ...detected } };
    }
    case 'call.machine.greeting.ended':
      // `beep_detected`, `ended` (silence) or `not_sure`: Telnyx stopped listening to the greeting, whose end this is
      // as well as anyone will tell; the message goes now rather than after the call workflow's bound.
      return { kind: 'call', event: { type: 'call.greeting_ended', ...ids } };
    case 'call.transcription':
      return transcriptionEvents(payload, lookups.calls, carrierCallId, ids);
    case 'call.speak.started':
      await lookups.calls.speech.started(carrierCallId, new Date(at));
      return { kind: 'ignored', reason: 'speech started' };
    case 'call.speak.ended': {
      // The port: a hang-up stops speech without a playback report (the queue drops the call's speech).
      const reports = await lookups.calls.speech.ended(carrierCallId, new Date(at), str(payload.status) ?? 'completed');
      if (reports.length === 0) return { kind: 'ignored', reason: `speech ended (${String(payload.status)}), nothing to report` };
      return { kind: 'calls', events: reports.map((report) => playbackEvent(report, ids)) };
    }
    case 'call.hangup':
      await lookups.calls.speech.ended(carrierCallId, new Date(at), 'call_hangup');
      return { kind: 'call', event: hangupEvent(payload, known.direction, ids) };
    default:
      return { kind: 'ignored', reason: `event ${type}` };
  }
}

/** The call events translated above (every other one is stored and logged as not acted on; `call.bridged` needs nothing). */
const CALL_EVENTS = [
  'call.initiated',
  'call.answered',
  'call.machine.detection.ended',
  'call.machine.greeting.ended',
  'call.transcription',
  'call.speak.started',
  'call.speak.ended',
  'call.hangup',
];

type CallIds = { call_id: string; carrier_call_id: string; at: number };

const playbackEvent = (report: SpeechReport, ids: CallIds): CarrierCallEvent => ({
  type: 'call.playback',
  ...ids,
  speak_id: report.speakId,
  played_text: report.playedText,
  done: report.done,
  ...(report.stopped ? { stopped: true as const } : {}),
});

/**
 * `call.transcription` (telnyx 7.24.0 `Transcription.Payload`: `transcription_data {confidence, is_final,
 * transcript, transcription_track}`): any caller speech, interim or final, while the agent speaks is a barge-in:
 * the playing command is stopped (`playback_stop`) and what was heard of it is reported with its
 * `call.speak.ended` (./speechQueue.ts). A final result is the caller's sentence (`call.utterance`), in the
 * call's pinned language; on a `multi` line Telnyx does not say which language it heard, and none is reported.
 */
async function transcriptionEvents(
  payload: Record<string, unknown>,
  calls: TelnyxCallControl,
  carrierCallId: string,
  ids: CallIds,
): Promise<TelnyxTranslation> {
  const data = (payload.transcription_data ?? {}) as { transcript?: unknown; is_final?: unknown };
  const text = str(data.transcript)?.trim();
  if (!text) return { kind: 'ignored', reason: 'empty transcription' };
  const events: CarrierCallEvent[] = (await calls.speech.stop(carrierCallId)).map((report) => playbackEvent(report, ids));
  if (data.is_final === true) {
    const language = utteranceLanguage(await calls.languages.of(carrierCallId));
    events.push({ type: 'call.utterance', ...ids, text, ...(language ? { language } : {}) });
  }
  if (events.length === 0) return { kind: 'ignored', reason: 'interim transcription' };
  return { kind: 'calls', events };
}

/**
 * `call.machine.detection.ended`'s `result` → who answered (anything else, `not_sure` included: `unknown`). The
 * standard detection Switchboard asks for (`detect`, `greeting_end`: ../../telnyx/dial.ts) reports `human`, `machine`
 * or `not_sure` (telnyx 7.24.0 `CallMachineDetectionEnded.Payload.result`): it never tells a fax apart, so on Telnyx a
 * fax is a `machine` of no known kind (or `unknown`). Only premium detection names one: `fax_detected`
 * (`CallMachinePremiumDetectionEnded.Payload.result`, in `call.machine.premium.detection.ended`, which Switchboard does
 * not ask for; https://developers.telnyx.com/docs/voice/programmable-voice/answering-machine-detection).
 */
const DETECTION_RESULT: Record<string, { answered_by: AnsweredBy }> = {
  human: { answered_by: 'human' },
  machine: { answered_by: 'machine' },
};

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
