import type { TelnyxEnvelope, TelnyxWebhookBody } from '../../adapters/carrier/callbacks/telnyx/envelope';
import type { TelnyxTranslation } from '../../adapters/carrier/callbacks/telnyx/webhook';
import type { Db } from '../../platform/db/knex';
import { INBOX_RETENTION_MS } from './rules';

/** All SQL of the Telnyx inbox (migration 0030). Times are the database's clock, which every instance shares. */
const TABLE = 'telnyx_inbox';
const LEASES = 'telnyx_inbox_leases';

export interface InboxRow {
  event_id: string;
  event_type: string;
  body: TelnyxWebhookBody;
  /** What it was translated into, once it was (a retry applies this again). */
  translation: TelnyxTranslation | null;
  order_key: string;
  received_at: Date;
  attempts: number;
}

/** Stores a verified event; false when an event with its id is stored already (a duplicate delivery). */
export async function storeEvent(db: Db, envelope: TelnyxEnvelope, body: TelnyxWebhookBody): Promise<boolean> {
  const inserted = await db(TABLE)
    .insert({
      event_id: envelope.eventId,
      event_type: envelope.eventType,
      occurred_at: envelope.occurredAt,
      body,
      order_key: envelope.orderKey,
      call_control_id: envelope.callControlId,
      call_leg_id: envelope.callLegId,
      call_session_id: envelope.callSessionId,
    })
    .onConflict('event_id')
    .ignore()
    .returning('event_id');
  return inserted.length === 1;
}

/**
 * Takes the order key's lease for `holder` unless another holds it unexpired (one statement: two takers of a new
 * key, or of an expired lease, cannot both win).
 */
export async function takeLease(db: Db, orderKey: string, holder: string, ms: number): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into ${LEASES} (order_key, holder, expires_at) values (?, ?, now() + ? * interval '1 millisecond')
     on conflict (order_key) do update set holder = excluded.holder, expires_at = excluded.expires_at
     where ${LEASES}.expires_at < now() or ${LEASES}.holder = excluded.holder
     returning holder`,
    [orderKey, holder, ms],
  );
  return rows.length === 1;
}

export async function releaseLease(db: Db, orderKey: string, holder: string): Promise<void> {
  await db(LEASES).where({ order_key: orderKey, holder }).del();
}

/** The key's events due now, oldest first (by Telnyx's `occurred_at`, then arrival). */
export async function dueEvents(db: Db, orderKey: string, limit: number): Promise<InboxRow[]> {
  return db(TABLE)
    .where({ order_key: orderKey })
    .whereNull('processed_at')
    .andWhere('next_attempt_at', '<=', db.fn.now())
    .orderByRaw('occurred_at asc nulls first, received_at asc, event_id asc')
    .limit(limit)
    .select('event_id', 'event_type', 'body', 'translation', 'order_key', 'received_at', 'attempts');
}

/** Order keys with an event due now, the longest due first. */
export async function dueKeys(db: Db, limit: number): Promise<string[]> {
  const rows: Array<{ order_key: string }> = await db(TABLE)
    .whereNull('processed_at')
    .andWhere('next_attempt_at', '<=', db.fn.now())
    .groupBy('order_key')
    .orderByRaw('min(next_attempt_at)')
    .limit(limit)
    .select('order_key');
  return rows.map((row) => row.order_key);
}

export async function markProcessed(db: Db, eventId: string, result: { outcome: string; reason?: string; error?: string }): Promise<void> {
  await db(TABLE)
    .where({ event_id: eventId })
    .update({
      processed_at: db.fn.now(),
      outcome: result.outcome,
      reason: result.reason ?? null,
      attempts: db.raw('attempts + 1'),
      ...(result.error ? { last_error: result.error } : {}),
    });
}

/** The key's unprocessed events are due now (what they wait for has happened). */
export async function makeDue(db: Db, orderKey: string): Promise<void> {
  await db(TABLE).where({ order_key: orderKey }).whereNull('processed_at').update({ next_attempt_at: db.fn.now() });
}

/** Keeps what the event was translated into before it is applied. */
export async function saveTranslation(db: Db, eventId: string, translation: TelnyxTranslation): Promise<void> {
  await db(TABLE)
    .where({ event_id: eventId })
    .update({ translation: JSON.stringify(translation) });
}

/** Not processed this time: tried again in `delayMs`; `reason` says what it waits for, `error` what failed. */
export async function reschedule(db: Db, eventId: string, delayMs: number, note: { reason?: string; error?: string }): Promise<void> {
  await db(TABLE)
    .where({ event_id: eventId })
    .update({
      attempts: db.raw('attempts + 1'),
      next_attempt_at: db.raw(`now() + ? * interval '1 millisecond'`, [delayMs]),
      reason: note.reason ?? null,
      last_error: note.error ?? null,
    });
}

/** The `call_control_id` of a call leg, from any event of the leg that named both (a `call.recording.saved` names only its leg). */
export async function callControlIdOfLeg(db: Db, callLegId: string): Promise<string | undefined> {
  const row = (await db(TABLE).where({ call_leg_id: callLegId }).whereNotNull('call_control_id').first('call_control_id')) as
    { call_control_id: string } | undefined;
  return row?.call_control_id;
}

/** An event as stored, for operators and tests. */
export async function findInboxEvent(db: Db, eventId: string) {
  return db(TABLE).where({ event_id: eventId }).first();
}

/** Events processed more than INBOX_RETENTION_MS ago (and leases left by processors that died). */
export async function purgeOldInboxEvents(db: Db, at: Date): Promise<number> {
  const cutoff = new Date(at.getTime() - INBOX_RETENTION_MS);
  await db(LEASES).where('expires_at', '<', cutoff).del();
  return db(TABLE).where('received_at', '<', cutoff).whereNotNull('processed_at').del();
}
