/**
 * Call rules shared by the API and the call workflow (pure: the workflow bundle imports it).
 * States: initiated → ringing → in_progress → completed, or failed | no_answer | busy | canceled.
 */
export const CALL_STATUSES = ['initiated', 'ringing', 'in_progress', 'completed', 'failed', 'no_answer', 'busy', 'canceled'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export const ACTIVE_CALL_STATUSES: readonly CallStatus[] = ['initiated', 'ringing', 'in_progress'];

/** Whether a call is still active (not ended): it holds its line, and its workflow may still act on it. */
export function isActiveCallStatus(status: string): boolean {
  return (ACTIVE_CALL_STATUSES as readonly string[]).includes(status);
}

/** What a caller id that is not a phone number (withheld, `anonymous`, garbage) is recorded as: never stored or forwarded raw. */
export const ANONYMOUS_CALLER = 'anonymous';

/**
 * Caller sentences an agent line's call keeps for its agent's next waits (docs/decisions/calls.md, "Agent lines"),
 * oldest first: past this the oldest is dropped (every sentence is in the transcript all the same).
 */
export const AGENT_SENTENCE_QUEUE_LIMIT = 20;

/** An outbound call not answered within this is ended as `no_answer`. */
export const RING_TIMEOUT_MS = 30_000;
/** Calls are capped at 15 minutes (the public client's history says 900 s). */
export const MAX_CALL_DURATION_MS = 900_000;

/** Why a call ended, kept on the record and in `call_ended`. */
export const END_CAUSES = [
  'caller_hangup',
  'api_hangup',
  'max_duration',
  'insufficient_funds',
  'busy',
  'no_answer',
  'ring_timeout',
  'carrier_failed',
  'canceled',
  /** Audio lines: the customer's socket closed, or could not be reached (or failed for good). */
  'audio_handler_closed',
  'audio_handler_unavailable',
  /** The call's workflow was lost or stuck; the recovery sweeper ended it from what was known. */
  'service_error',
  /** Transferred to another number (`POST /calls/{id}/transfer`), then ended by the caller or the destination. */
  'transferred',
  /** Inbound: the line was on another call, so this one was refused unanswered (status `busy`, event `call_missed`). */
  'line_busy',
  /** A hosted call's model hung up (its `hang_up` tool), after what it said had been played. */
  'agent_hangup',
  /** A campaign's call answered by a machine: hung up at once, or after its voicemail message was played. */
  'answering_machine',
] as const;
export type EndCause = (typeof END_CAUSES)[number];

/** Whole seconds of an answered call, from the carrier's answer and end times. */
export function callDurationMs(answeredAt: number | null, endedAt: number): number {
  return answeredAt === null ? 0 : Math.max(0, endedAt - answeredAt);
}

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);

/**
 * The carrier's answer time, trusted only within what the call workflow itself saw: not before
 * it dialled (or answered) and not after it heard of the answer. Carrier clocks and callbacks
 * are outside our control (a forged or skewed `at` must not bill a longer call).
 */
export function boundedAnswerTime(carrierAt: number, local: { requestedAt: number; heardAt: number }): number {
  return clamp(carrierAt, local.requestedAt, Math.max(local.requestedAt, local.heardAt));
}

/** The carrier's end time, bounded the same way: not before the answer, not after the workflow heard of the end. */
export function boundedEndTime(carrierAt: number, local: { answeredAt: number; heardAt: number }): number {
  return clamp(carrierAt, local.answeredAt, Math.max(local.answeredAt, local.heardAt));
}

/** Active calls older than this (from `created_at`) have outlived any call's ring and talk time: the sweeper ends them. */
export const STALE_CALL_AGE_MS = 20 * 60_000;

/** The speak-id prefix of one hosted turn's chunks (`<prefix><n>`): the workflow matches playback events with it. */
export function hostedSpeakIdPrefix(callId: string, turn: number, round = 0): string {
  // A turn's later model rounds (after tool calls) say `<turn>.<round>`: no prefix of one round matches another's ids.
  return round === 0 ? `${callId}:hosted-${turn}-` : `${callId}:hosted-${turn}.${round}-`;
}

/** The names carriers give WAV besides `audio/wav` (Twilio answers `audio/x-wav`). */
const WAV_ALIASES = new Set(['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave']);

/**
 * How a recording is handed to a browser on the portal's origin (security review L22): WAV and MP3
 * play inline under their own type; anything else the carrier's storage labels (HTML, SVG, scripts)
 * is a download of opaque bytes, never rendered on the portal's origin.
 */
export function recordingPresentation(contentType: string): {
  contentType: string;
  disposition: 'inline' | 'attachment';
  extension: string;
} {
  const type = contentType.toLowerCase();
  if (WAV_ALIASES.has(type)) return { contentType: 'audio/wav', disposition: 'inline', extension: 'wav' };
  if (type === 'audio/mpeg') return { contentType: 'audio/mpeg', disposition: 'inline', extension: 'mp3' };
  return { contentType: 'application/octet-stream', disposition: 'attachment', extension: 'bin' };
}
