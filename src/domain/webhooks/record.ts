import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { SqlStatement } from '../../platform/db/prepared';
import type { EventPolicy, EventType } from './events';

export interface NewEvent {
  /**
   * A stable id (src/platform/stableId.ts) for an event a retried activity or a repeated carrier
   * event may record again: it is then recorded once. Without one, the event gets a fresh id.
   */
  id?: string;
  workspaceId: string;
  environment: 'test' | 'live';
  lineId: string;
  callId?: string | null;
  type: EventType;
  target: EventPolicy['target'];
  payload: Record<string, unknown>;
  actorKeyId?: string | null;
  now: Date;
  /** Its raiser makes the first attempt itself (./publish.ts); until that settles, the sweeper may take it over. */
  awaitingDispatch?: boolean;
}

/** The `webhook_events` columns of `event` (how an event is recorded, stated once for both statements below). */
function eventColumns(event: NewEvent, id: string) {
  return {
    id,
    workspace_id: event.workspaceId,
    environment: event.environment,
    line_id: event.lineId,
    call_id: event.callId ?? null,
    event_type: event.type,
    target: event.target,
    payload: event.payload,
    actor_key_id: event.actorKeyId ?? null,
    created_at: event.now,
  };
}

/** Records an outbound event (a `webhook_events` row); its id is the `event_id` receivers dedupe on. */
export async function recordEvent(db: Knex | Knex.Transaction, event: NewEvent): Promise<string> {
  const id = event.id ?? crypto.randomUUID();
  const insert = db('webhook_events').insert({
    ...eventColumns(event, id),
    ...(event.awaitingDispatch ? { awaiting_dispatch: true } : {}),
  });
  await (event.id ? insert.onConflict('id').ignore() : insert);
  return id;
}

/**
 * `recordEvent`, answering the row as recorded: the one just written, or, for a stable id recorded
 * before (a retried activity), the earlier row as it was then, read back only in that case. Its
 * first attempt then needs no read of what was just written.
 */
export async function recordEventRow(db: Knex | Knex.Transaction, event: NewEvent): Promise<EventRow> {
  const id = event.id ?? crypto.randomUUID();
  const insert = db('webhook_events').insert({
    ...eventColumns(event, id),
    ...(event.awaitingDispatch ? { awaiting_dispatch: true } : {}),
  });
  if (!event.id) {
    await insert;
    return eventRowOf({ ...event, id });
  }
  const written = await insert.onConflict('id').ignore().returning('id');
  if (written.length > 0) return eventRowOf({ ...event, id });
  const earlier = await findEvent(db, id);
  if (!earlier) throw new Error(`webhook event ${id} was neither written nor found`);
  return earlier;
}

/**
 * `recordEvent` of an event with a stable id, as a statement for another statement to run inside
 * its own (the call turn's claim, ./store.ts `recordMessageAndClaim`): recorded once, by its id.
 */
export function recordEventStatement(event: NewEvent & { id: string }): SqlStatement {
  const columns = Object.entries(eventColumns(event, event.id));
  return {
    sql: `INSERT INTO webhook_events (${columns.map(([name]) => name).join(', ')})
       VALUES (${columns.map(([name]) => (name === 'payload' ? '?::jsonb' : '?')).join(', ')})
       ON CONFLICT (id) DO NOTHING`,
    bindings: columns.map(([name, value]) => (name === 'payload' ? JSON.stringify(value) : (value as Knex.RawBinding))),
  };
}

export async function isEventRecorded(db: Knex | Knex.Transaction, eventId: string): Promise<boolean> {
  return (await db('webhook_events').where({ id: eventId }).first('id')) !== undefined;
}

/** A `webhook_events` row, as a delivery attempt reads it. */
export interface EventRow {
  id: string;
  workspace_id: string;
  environment: string;
  line_id: string;
  call_id: string | null;
  event_type: string;
  payload: Record<string, unknown>;
}

/** The row `recordEvent` writes for `event`, as a delivery attempt reads it. */
export function eventRowOf(event: NewEvent & { id: string }): EventRow {
  return {
    id: event.id,
    workspace_id: event.workspaceId,
    environment: event.environment,
    line_id: event.lineId,
    call_id: event.callId ?? null,
    event_type: event.type,
    payload: event.payload,
  };
}

export async function findEvent(db: Knex | Knex.Transaction, eventId: string): Promise<EventRow | undefined> {
  return db<EventRow>('webhook_events').where({ id: eventId }).first();
}
