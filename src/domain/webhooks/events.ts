/**
 * Outbound event types: where each goes (the line's `webhook_url` or `status_callback_url`),
 * how long the receiver has, and whether a failure is retried. Spec "Events": 5 s for SMS and
 * lifecycle events, 10 s for `message`; `message` is never retried (the caller would hear a
 * stale answer), everything else retries with backoff.
 */
export interface EventPolicy {
  target: 'webhook' | 'status_callback';
  timeoutMs: number;
  retry: boolean;
}

const lifecycle: EventPolicy = { target: 'webhook', timeoutMs: 5_000, retry: true };

export const EVENT_POLICIES = {
  call_started: lifecycle,
  call_ended: lifecycle,
  /** The destination of `POST /calls/{id}/transfer` answered: the call is connected to it. */
  call_transferred: lifecycle,
  interrupted: lifecycle,
  /** An inbound call refused unanswered because its line was on another call: recorded (status `busy`) and told. */
  call_missed: lifecycle,
  /** A hosted call's model called a tool (issue 29): the call, its arguments and what the model was given back. */
  tool_called: lifecycle,
  sms_received: lifecycle,
  message: { target: 'webhook', timeoutMs: 10_000, retry: false },
  call_incoming: { target: 'status_callback', timeoutMs: 5_000, retry: true },
  call_outgoing: { target: 'status_callback', timeoutMs: 5_000, retry: true },
  /**
   * A campaign's life (issue 31, docs/decisions/campaigns.md "Campaign events"): one event per change
   * of its status, recorded with the change; `campaign.contact_completed` when a dialled contact is done.
   */
  'campaign.started': lifecycle,
  'campaign.paused': lifecycle,
  'campaign.resumed': lifecycle,
  'campaign.completed': lifecycle,
  'campaign.cancelled': lifecycle,
  'campaign.contact_completed': lifecycle,
  /** Sent by POST /api/v1/webhooks/test: one attempt, its result returned to the caller. */
  test: { target: 'webhook', timeoutMs: 5_000, retry: false },
} as const satisfies Record<string, EventPolicy>;

export type EventType = keyof typeof EVENT_POLICIES;

/**
 * The events whose payload carries what was said on a call (the caller's words, the agent's partial reply, a tool's
 * arguments and result): erased with the call's transcript by the recordings retention (src/domain/recordings/retention.ts).
 */
export const CONVERSATION_EVENT_TYPES = ['message', 'interrupted', 'tool_called'] as const satisfies readonly EventType[];
export const EVENT_TYPES = Object.keys(EVENT_POLICIES) as EventType[];

/**
 * Delays before attempts 2..8, modelled on Svix: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (eight attempts over about 27.5 hours). Each is jittered by up to ±10 %, and a receiver's
 * `Retry-After` can lengthen (never shorten) a delay, up to 24 hours.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
export const RETRY_JITTER = 0.1;

/** `random` in [0, 1) — in a workflow, Temporal's deterministic Math.random. */
export function retryDelayMs(afterAttempt: number, random: number, retryAfterMs?: number): number | undefined {
  const base = RETRY_DELAYS_MS[afterAttempt - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random));
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`; undefined if absent or unusable. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

export const RESPONSE_BODY_LIMIT = 1000;
/** What is kept of an answer for the log (before redaction cuts it to RESPONSE_BODY_LIMIT): the first 2 KB. */
export const RESPONSE_LOG_PREFIX = RESPONSE_BODY_LIMIT * 2;
/** The most read of a whole (non-streamed) answer, lifecycle or `{text}`; beyond it the request is aborted and the attempt fails. */
export const RESPONSE_READ_LIMIT_BYTES = 64 * 1024;
/**
 * Bounds of a streamed NDJSON reply besides its time budgets: the longest line, the most `{text}`
 * chunks and the most characters spoken. Beyond any of them the stream is aborted and the
 * delivery fails; what was spoken before stays spoken.
 */
export const NDJSON_LIMITS = { maxLineChars: 8 * 1024, maxChunks: 200, maxSpokenChars: 20_000 } as const;

/** Keeps delivery logs free of credentials a receiver might echo: API keys and 64-hex secrets. */
export function redactResponseBody(body: string): string {
  return body
    .slice(0, RESPONSE_LOG_PREFIX)
    .replace(/sk_(svc_)?(test|live)_[0-9A-Za-z]{8,}/g, '[redacted]')
    .replace(/\b[0-9a-fA-F]{64}\b/g, '[redacted]')
    .slice(0, RESPONSE_BODY_LIMIT);
}
