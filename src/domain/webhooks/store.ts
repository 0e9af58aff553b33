import type { Knex } from 'knex';
import { queryPreparedRaw, type SqlStatement } from '../../platform/db/prepared';
import type { SealedSecretRow } from '../lines/secrets';
import { webhookDestinationSql } from './destination';
import { CONVERSATION_EVENT_TYPES } from './events';
import { recordEventStatement, type NewEvent } from './record';

/** The columns a delivery attempt's row is inserted with (./attempt.ts `prepareAttempt`). */
export interface AttemptRow {
  id: string;
  event_id: string;
  workspace_id: string;
  environment: string;
  line_id: string;
  call_id: string | null;
  event_type: string;
  url: string | null;
  attempt: number;
  request_body: string;
  created_at: Date;
}

/**
 * Logs an attempt that could not be made (no line, no URL, no secret) as failed. False when its
 * attempt number already had a row (then nothing is written).
 */
export async function insertUnmadeAttempt(db: Knex, row: AttemptRow, error: string): Promise<boolean> {
  const inserted = await db('webhook_deliveries')
    .insert({ ...row, status: 'failed', error_message: error, duration_ms: 0, completed_at: row.created_at })
    .onConflict(['event_id', 'attempt'])
    .ignore()
    .returning('id');
  return inserted.length > 0;
}

/**
 * Claims an attempt: inserts its `pending` row unless its attempt number has one (`webhook_deliveries`
 * is unique on `(event_id, attempt)`). True when this caller makes the POST.
 */
export async function claimAttempt(db: Knex, row: AttemptRow): Promise<boolean> {
  const inserted = await db('webhook_deliveries')
    .insert({ ...row, status: 'pending' })
    .onConflict(['event_id', 'attempt'])
    .ignore()
    .returning('id');
  return inserted.length > 0;
}

/** A retried activity reuses its attempt number: the lost try's row is replaced by this one's `pending` row. */
export async function replaceAttempt(db: Knex, row: AttemptRow): Promise<void> {
  await db('webhook_deliveries').where({ event_id: row.event_id, attempt: row.attempt }).del();
  await db('webhook_deliveries').insert({ ...row, status: 'pending' });
}

/** A claimed first attempt that never finished (its worker crashed) is failed as `attempt_lost`, not made again. */
export async function failLostAttempt(db: Knex, eventId: string, at: Date): Promise<void> {
  await db('webhook_deliveries')
    .where({ event_id: eventId, attempt: 1, status: 'pending' })
    .update({ status: 'failed', error_message: 'attempt_lost', duration_ms: 0, completed_at: at });
}

/** Gives a claim back (its attempt was not made), so a retry can make it. */
export async function releaseClaim(db: Knex, deliveryId: string): Promise<void> {
  await db('webhook_deliveries').where({ id: deliveryId, status: 'pending' }).del();
}

/*
 * The webhook-mode call turn's statements (docs/decisions/calls.md, "Call turns, round 3";
 * src/domain/calls/messageTurn.ts): the turn records its `message` event and claims its one
 * attempt in one round trip, and records the attempt's outcome with the turn's transcript in
 * another. Each is one statement, so each is atomic: a claim is never made without its event,
 * nor an outcome written without its entries. What the calls area adds to each (the playback
 * deferral, the transcript entries) comes in as a statement of its own (`SqlStatement`).
 */

export interface MessageClaimInput {
  event: NewEvent & { id: string };
  /** Attempt 1's row: its id (the delivery id it is signed with) and the body it POSTs. */
  deliveryId: string;
  requestBody: string;
  /** Run in the same statement (the call turn marks its reply's playback deferral). */
  alongside?: SqlStatement;
}

/** What the claim statement found: the line's delivery facts, its sealed signing secret, and whether attempt 1 is this run's. */
export interface MessageClaim {
  /** The line's status, or undefined when the line is not the event's workspace's (or is gone). */
  lineStatus: string | undefined;
  /** The line's `webhook_url`, else the workspace's `default_webhook_url`; null when there is none. */
  url: string | null;
  secret: SealedSecretRow | undefined;
  /** Attempt 1's `pending` row was inserted by this statement: this run makes the POST. */
  claimed: boolean;
}

/**
 * One statement: records the `message` event (once: its id is stable), runs `alongside`, reads the line's delivery facts (scoped by the event's workspace and
 * environment) and its current sealed secret, and claims attempt 1 (`webhook_deliveries`
 * unique on `(event_id, attempt)`) when the attempt can be made. A re-run finds the row and
 * claims nothing. The event insert and the claim commit together, so the event is recorded
 * before any POST.
 */
export async function recordMessageAndClaim(db: Knex, input: MessageClaimInput): Promise<MessageClaim> {
  const { event, deliveryId, requestBody, alongside } = input;
  const tenant = [event.workspaceId, event.environment];
  const recorded = recordEventStatement(event);
  const rows = await queryPreparedRaw<{
    line_status: string | null;
    url: string | null;
    secret_id: string | null;
    ciphertext: string | null;
    claimed: boolean;
  }>(
    db,
    'webhook_message_claim',
    `WITH line AS (
       SELECT status, webhook_url FROM lines WHERE id = ? AND workspace_id = ? AND environment = ?
     ), destination AS (
       SELECT ${webhookDestinationSql('(SELECT webhook_url FROM line)')} AS url
     ), secret AS (
       SELECT id, line_id, ciphertext FROM line_webhook_secrets WHERE line_id = ? AND state = 'current' LIMIT 1
     ), recorded AS (${recorded.sql} RETURNING id)${alongside ? `, alongside AS (${alongside.sql})` : ''}, claimed AS (
       INSERT INTO webhook_deliveries (id, event_id, workspace_id, environment, line_id, call_id, event_type, url, attempt, request_body, created_at, status)
       SELECT ?, ?, ?, ?, ?, ?, ?, destination.url, 1, ?::jsonb, ?, 'pending'
         FROM destination
        WHERE destination.url IS NOT NULL
          AND EXISTS (SELECT 1 FROM line WHERE status <> 'released')
          AND EXISTS (SELECT 1 FROM secret)
       ON CONFLICT (event_id, attempt) DO NOTHING
       RETURNING id
     )
     SELECT (SELECT status FROM line) AS line_status, (SELECT url FROM destination) AS url,
            (SELECT id FROM secret) AS secret_id, (SELECT ciphertext FROM secret) AS ciphertext,
            EXISTS (SELECT 1 FROM claimed) AS claimed`,
    [
      event.lineId,
      ...tenant,
      ...tenant,
      event.lineId,
      ...recorded.bindings,
      ...(alongside ? alongside.bindings : []),
      deliveryId,
      event.id,
      ...tenant,
      event.lineId,
      event.callId ?? null,
      event.type,
      requestBody,
      event.now,
    ],
  );
  const [row] = rows;
  return {
    lineStatus: row.line_status ?? undefined,
    url: row.url,
    secret: row.secret_id && row.ciphertext ? { id: row.secret_id, line_id: event.lineId, ciphertext: row.ciphertext } : undefined,
    claimed: row.claimed,
  };
}

/** The columns of a finished attempt's row (./attempt.ts `completionOf`). */
export interface AttemptCompletion {
  /** The headers it was POSTed with, as JSON text (the jsonb column's input). */
  request_headers: string;
  status: string;
  http_status: number | null;
  error_message: string | null;
  response_body: string | null;
  duration_ms: number;
  completed_at: Date;
}

/**
 * One statement: records the attempt's outcome on its row and runs `alongside` (the turn's
 * transcript entries). Throws if either fails (then neither is written).
 */
export async function settleAttemptWith(
  db: Knex,
  deliveryId: string,
  completion: AttemptCompletion,
  alongside: SqlStatement,
): Promise<void> {
  await queryPreparedRaw(
    db,
    'webhook_message_settle',
    `WITH settled AS (
       UPDATE webhook_deliveries
          SET request_headers = ?::jsonb, status = ?, http_status = ?, error_message = ?, response_body = ?, duration_ms = ?, completed_at = ?
        WHERE id = ?
       RETURNING id
     ), alongside AS (${alongside.sql})
     SELECT (SELECT count(*) FROM settled) AS settled`,
    [
      completion.request_headers,
      completion.status,
      completion.http_status,
      completion.error_message,
      completion.response_body,
      completion.duration_ms,
      completion.completed_at,
      deliveryId,
      ...alongside.bindings,
    ],
  );
}

/** Records a finished attempt's outcome on its row alone (when the turn's transcript could not be written with it). */
export async function completeAttempt(db: Knex, deliveryId: string, completion: AttemptCompletion): Promise<void> {
  await db('webhook_deliveries').where({ id: deliveryId }).update(completion);
}

/** The event's latest attempt row (the highest attempt number), if any. */
export async function latestAttemptOf(db: Knex, eventId: string) {
  return db('webhook_deliveries').where({ event_id: eventId }).orderBy('attempt', 'desc').first();
}

/** Failed delivery attempts of a tenant since `since` (the portal's "failing deliveries"). */
export async function countFailedDeliveriesSince(
  db: Knex,
  tenant: { workspaceId: string; environment: string },
  since: Date,
): Promise<number> {
  const row = await db('webhook_deliveries')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, status: 'failed' })
    .where('created_at', '>=', since)
    .count<{ count: string }>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

/** What a call's page shows of one delivery attempt of its events. */
export interface CallDeliveryAttempt {
  id: string;
  event_type: string;
  attempt: number;
  status: 'pending' | 'success' | 'failed';
  http_status: number | null;
  error_message: string | null;
  duration_ms: number | null;
  created_at: Date;
}

/** The most attempts a call's page lists (a call's events are a few dozen; its `message` turns one each). */
export const CALL_DELIVERIES_SHOWN = 500;

/**
 * Every delivery attempt of a call's events, oldest first, within its tenant. Narrowed by the
 * call's line and creation time, so it reads the `(line_id, created_at)` index.
 */
export async function deliveryAttemptsOfCall(
  db: Knex,
  tenant: { workspaceId: string; environment: string },
  call: { id: string; line_id: string; created_at: Date },
): Promise<CallDeliveryAttempt[]> {
  return deliveriesOfTenant(db, tenant)
    .where({ line_id: call.line_id, call_id: call.id })
    .andWhere('created_at', '>=', call.created_at)
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'attempt', order: 'asc' },
    ])
    .limit(CALL_DELIVERIES_SHOWN)
    .select('id', 'event_type', 'attempt', 'status', 'http_status', 'error_message', 'duration_ms', 'created_at');
}

/** The delivery attempts of a tenant (one workspace, one environment). */
export function deliveriesOfTenant(db: Knex, tenant: { workspaceId: string; environment: string }) {
  return db('webhook_deliveries').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

/** Delivery attempts of a tenant per UTC day since `since`: how many succeeded and how many failed (pending ones are neither). */
export async function deliveryOutcomesByDay(
  db: Knex,
  tenant: { workspaceId: string; environment: string },
  since: Date,
): Promise<Map<string, { delivered: number; failed: number }>> {
  const rows = (await db('webhook_deliveries')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .where('created_at', '>=', since)
    .select(
      db.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day`),
      db.raw(`count(*) filter (where status = 'success')::int as delivered`),
      db.raw(`count(*) filter (where status = 'failed')::int as failed`),
    )
    .groupByRaw('1')) as Array<{ day: string; delivered: number; failed: number }>;
  return new Map(rows.map((row) => [row.day, { delivered: row.delivered, failed: row.failed }]));
}

/** What the delivery log may be narrowed by (the portal's deliveries list and its CSV). */
export interface DeliveryFilters {
  status?: string;
  lineId?: string;
  callId?: string;
  eventType?: string;
  eventId?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
}

/** A tenant's delivery attempts narrowed by `filters`. */
export function filteredDeliveriesOf(db: Knex, tenant: { workspaceId: string; environment: string }, filters: DeliveryFilters) {
  const query = deliveriesOfTenant(db, tenant);
  if (filters.status) query.andWhere({ status: filters.status });
  if (filters.lineId) query.andWhere({ line_id: filters.lineId });
  if (filters.callId) query.andWhere({ call_id: filters.callId });
  if (filters.eventType) query.andWhere({ event_type: filters.eventType });
  if (filters.eventId) query.andWhere({ event_id: filters.eventId });
  if (filters.createdFrom) query.andWhere('created_at', '>=', filters.createdFrom);
  if (filters.createdBefore) query.andWhere('created_at', '<', filters.createdBefore);
  return query;
}

/**
 * The attempt an id names in the tenant: the delivery attempt with that id, else the first attempt of the
 * event with that id (an event's page is its attempts').
 */
export async function deliveryNamedBy(
  db: Knex,
  tenant: { workspaceId: string; environment: string },
  id: string,
): Promise<{ id: string; event_id: string; matched: 'delivery' | 'event' } | undefined> {
  const attempt = await deliveriesOfTenant(db, tenant).where({ id }).first('id', 'event_id');
  if (attempt) return { ...attempt, matched: 'delivery' };
  const first = await deliveriesOfTenant(db, tenant).where({ event_id: id }).orderBy('attempt', 'asc').first('id', 'event_id');
  return first ? { ...first, matched: 'event' } : undefined;
}

/**
 * Erases what was said from a call's conversation events (`CONVERSATION_EVENT_TYPES`) and their delivery attempts:
 * each event keeps only its call, its time and `content_deleted: true`; each attempt's body keeps its routing fields
 * (`event`, `event_id`, `line_id`) over that, and the receiver's answer (the agent's reply) is dropped. The rows stay,
 * so the delivery log still shows that the call's turns were delivered and how. Answers the events erased.
 */
export async function eraseConversationOfCall(db: Knex | Knex.Transaction, callId: string): Promise<number> {
  const erasedPayload = `jsonb_build_object('call_id', payload->'call_id', 'timestamp', payload->'timestamp', 'content_deleted', true)`;
  const erased = await db('webhook_events')
    .where({ call_id: callId })
    .whereIn('event_type', CONVERSATION_EVENT_TYPES)
    .whereRaw("not coalesce((payload->>'content_deleted')::boolean, false)")
    .update({ payload: db.raw(erasedPayload) });
  await db('webhook_deliveries')
    .where({ call_id: callId })
    .whereIn('event_type', CONVERSATION_EVENT_TYPES)
    .update({
      request_body: db.raw(
        `jsonb_build_object('event', request_body->'event', 'event_id', request_body->'event_id', 'line_id', request_body->'line_id',
                            'call_id', request_body->'call_id', 'timestamp', request_body->'timestamp', 'content_deleted', true)`,
      ),
      response_body: null,
    });
  return erased;
}
