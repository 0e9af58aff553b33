import crypto from 'node:crypto';
import type { SecretsKeyRing } from '../../platform/crypto/secretBox';
import type { Db } from '../../platform/db/knex';
import type { EgressPolicy } from '../../platform/net/egress';
import { findLineWithCurrentSecret } from '../lines/secrets';
import { eventDestination } from './destination';
import { EVENT_POLICIES, type EventType } from './events';
import { post, type OutboundRequest, type PostResult, type ReplyReader } from './post';
import type { EventRow } from './record';
import { signatureHeaders } from './signature';
import { claimAttempt, completeAttempt, insertUnmadeAttempt, replaceAttempt, type AttemptRow } from './store';

/*
 * One delivery attempt of one event, in three phases with typed hand-offs, after svix's worker:
 * prepareAttempt (where it goes, the line's current secret, the signed request: `PreparedAttempt`)
 * → post (./post.ts: the POST through the egress policy and a bounded read: `PostResult`)
 * → recordOutcome (the attempt's row and whether retrying can help: `AttemptOutcome`).
 * `attemptDelivery` runs them for the `attemptDelivery` activity and the raisers' first attempts;
 * the call turn runs post and the row's completion around its own statements
 * (src/domain/calls/messageTurn.ts).
 */

export interface DeliveryAttemptDeps {
  db: Db;
  /** Every connection to a customer URL goes through it (src/platform/net/egress.ts). */
  egress: EgressPolicy;
  secretsKey: () => SecretsKeyRing;
  now: () => Date;
}

export interface AttemptOutcome {
  deliveryId: string;
  delivered: boolean;
  /** False when retrying cannot help (the line is gone). */
  retryable: boolean;
  httpStatus: number | null;
  retryAfterMs?: number;
  /** For `message` events: the `text` the receiver answered with, to be spoken. */
  replyText?: string;
  /**
   * `attempt_lost`: this attempt number had already been tried, so it was not made again.
   * `attempt_claimed`: another process holds this attempt (a `claim` that lost), so it was not made here.
   */
  error?: 'attempt_lost' | 'attempt_claimed';
  /** The `{text}` reply was handed to the carrier under the stream's `replySpeakId`. */
  replySpoken?: boolean;
  /** For streamed (NDJSON) replies: the chunks already handed to the carrier, in order, with their speak ids. */
  spokenChunks?: Array<{ speakId: string; text: string }>;
}

/** What a receiver is POSTed for an event: its payload with the event's type and ids. */
export function requestBodyOf(event: EventRow): string {
  return JSON.stringify({ ...event.payload, event: event.event_type, event_id: event.id, line_id: event.line_id });
}

/** The request of one attempt, signed with `secret` for this delivery id and attempt number at `started`. */
export function signedRequest(
  event: Pick<EventRow, 'event_type'>,
  attempt: { url: string; secret: string; body: string; deliveryId: string; number: number; started: Date },
): OutboundRequest {
  const { url, secret, body, deliveryId, started } = attempt;
  return {
    url,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Switchboard-Webhooks/1',
      ...signatureHeaders({ secret, deliveryId, rawBody: body, attempt: attempt.number, now: started }),
    },
    body,
    timeoutMs: EVENT_POLICIES[event.event_type as EventType].timeoutMs,
    expectsReply: event.event_type === 'message',
  };
}

/** prepareAttempt's hand-off: the attempt's row and, when it can be made, its signed request. */
export type PreparedAttempt =
  { ready: true; row: AttemptRow; request: OutboundRequest } | { ready: false; row: AttemptRow; error: string; retryable: boolean };

/**
 * Phase 1: where the event goes (decided now, so a URL changed since it was recorded is used),
 * the line's current secret (read with the line, one statement), and the signed request. An attempt that cannot be made says why
 * (`line_released` is final; a missing URL or secret may be added before the next attempt).
 */
export async function prepareAttempt(deps: DeliveryAttemptDeps, event: EventRow, attempt: number): Promise<PreparedAttempt> {
  const { db } = deps;
  const found = await findLineWithCurrentSecret(db, deps.secretsKey, event.line_id);
  const line = found?.line;
  const policy = EVENT_POLICIES[event.event_type as EventType];
  const url = line
    ? await eventDestination(db, { workspaceId: event.workspace_id, environment: event.environment }, line, policy.target)
    : null;
  const body = requestBodyOf(event);
  const started = deps.now();
  const row: AttemptRow = {
    id: crypto.randomUUID(),
    event_id: event.id,
    workspace_id: event.workspace_id,
    environment: event.environment,
    line_id: event.line_id,
    call_id: event.call_id,
    event_type: event.event_type,
    url,
    attempt,
    request_body: body,
    created_at: started,
  };
  if (!line || line.status === 'released') return { ready: false, row, error: 'line_released', retryable: false };
  if (!url)
    return {
      ready: false,
      row,
      error: policy.target === 'webhook' ? 'missing_webhook_url' : 'missing_status_callback_url',
      retryable: true,
    };
  const secret = found?.secret();
  if (!secret) return { ready: false, row, error: 'missing_webhook_secret', retryable: true };
  return { ready: true, row, request: signedRequest(event, { url, secret, body, deliveryId: row.id, number: attempt, started }) };
}

/** The attempt row's columns once its POST is over, with the headers it was sent with (the signature's value, never the secret). */
export function completionOf(request: Pick<OutboundRequest, 'headers'>, result: PostResult, started: Date, completedAt = new Date()) {
  return {
    request_headers: JSON.stringify(request.headers),
    status: result.error === null ? 'success' : 'failed',
    http_status: result.httpStatus,
    error_message: result.error,
    response_body: result.responseText,
    duration_ms: completedAt.getTime() - started.getTime(),
    completed_at: completedAt,
  };
}

/** The attempt's outcome as its callers see it. */
export function outcomeOf(deliveryId: string, result: PostResult): AttemptOutcome {
  return {
    deliveryId,
    delivered: result.error === null,
    retryable: true,
    httpStatus: result.httpStatus,
    ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
    ...(result.replyText !== undefined ? { replyText: result.replyText } : {}),
    ...(result.replySpoken ? { replySpoken: result.replySpoken } : {}),
    ...(result.spokenChunks.length > 0 ? { spokenChunks: result.spokenChunks } : {}),
  };
}

/** Phase 3: the attempt's row records what its POST came to. */
export async function recordOutcome(
  deps: Pick<DeliveryAttemptDeps, 'db' | 'now'>,
  row: AttemptRow,
  request: OutboundRequest,
  result: PostResult,
): Promise<AttemptOutcome> {
  await completeAttempt(deps.db, row.id, completionOf(request, result, row.created_at, deps.now()));
  return outcomeOf(row.id, result);
}

/**
 * One attempt of a recorded event, logged as a row whatever happens. With `claim` (the first
 * attempt of a published event), whoever inserts its row makes it (the raiser right after the
 * commit, or the retry workflow the sweeper starts), so attempt 1 is POSTed once; the loser gets
 * `attempt_claimed`. Without it (a retried activity reuses its attempt number), the lost try's
 * row is replaced. `reply` takes over an accepted answer (./post.ts `ReplyReader`).
 */
export async function attemptDelivery(
  deps: DeliveryAttemptDeps,
  event: EventRow,
  attempt: number,
  options: { claim?: boolean; reply?: ReplyReader } = {},
): Promise<AttemptOutcome> {
  const prepared = await prepareAttempt(deps, event, attempt);
  const { row } = prepared;
  const claimed: AttemptOutcome = { deliveryId: row.id, delivered: false, retryable: false, httpStatus: null, error: 'attempt_claimed' };
  if (!prepared.ready) {
    const inserted = await insertUnmadeAttempt(deps.db, row, prepared.error);
    if (options.claim && !inserted) return claimed;
    return { deliveryId: row.id, delivered: false, retryable: prepared.retryable, httpStatus: null };
  }
  if (options.claim) {
    if (!(await claimAttempt(deps.db, row))) return claimed;
  } else await replaceAttempt(deps.db, row);
  const result = await post(deps, prepared.request, options.reply);
  return recordOutcome(deps, row, prepared.request, result);
}
