import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import type { BillingTenant } from '../billing/ledger';
import { findSettings } from '../billing/settings';
import {
  recordingSettingsOf,
  type CallObjectKind,
  type CopyFailure,
  type CopyFailureReason,
  type RecordingSettings,
  type StoredCallObject,
} from './rules';

/** A `call_objects` row: one object of a call the store holds, verified when written (migration 0053). */
export interface CallObjectRow {
  call_id: string;
  kind: CallObjectKind;
  workspace_id: string;
  environment: 'test' | 'live';
  name: string;
  store: 'filesystem' | 's3';
  store_key: string;
  size_bytes: string | number;
  sha256: string;
  content_type: string;
  carrier_url: string | null;
  stored_at: Date;
  /** When the carrier's copy of this recording was deleted (`delete_at_carrier`; migration 0055): null while it keeps it. */
  carrier_deleted_at?: Date | null;
}

export async function storedObjectsOfCall(db: Db | Knex, callId: string): Promise<CallObjectRow[]> {
  return db<CallObjectRow>('call_objects').where({ call_id: callId });
}

export const asStoredObject = (row: CallObjectRow): StoredCallObject => ({ kind: row.kind, carrierUrl: row.carrier_url });

/** The call's stored object of `kind`, if any. */
export async function storedObjectOf(db: Db | Knex, callId: string, kind: CallObjectKind): Promise<CallObjectRow | undefined> {
  return db<CallObjectRow>('call_objects').where({ call_id: callId, kind }).first();
}

/**
 * Records a verified object, replacing the call's earlier one of the kind (a recording copied again from a newer
 * carrier URL); answers the row it replaced, if any, so the caller can delete an object left under another name.
 */
export async function recordStoredObject(db: Db, row: CallObjectRow): Promise<CallObjectRow | undefined> {
  return db.transaction(async (trx) => {
    const before = await trx<CallObjectRow>('call_objects').where({ call_id: row.call_id, kind: row.kind }).forUpdate().first();
    await trx('call_objects').insert(row).onConflict(['call_id', 'kind']).merge();
    // Stored: whatever failed before is over (the copy's state, migration 0057).
    await trx('call_copy_failures').where({ call_id: row.call_id, kind: row.kind }).del();
    return before;
  });
}

/**
 * Records that the carrier deleted its copy of the recording stored from `carrierUrl` (the row of that very copy; a
 * row replaced meanwhile by a newer recording's is left alone). Answers whether a row was marked.
 */
export async function recordCarrierDeletion(db: Db, callId: string, carrierUrl: string, at: Date): Promise<boolean> {
  const marked = await db('call_objects')
    .where({ call_id: callId, kind: 'recording', carrier_url: carrierUrl })
    .whereNull('carrier_deleted_at')
    .update({ carrier_deleted_at: at });
  return marked > 0;
}

/** The recordings settings of a workspace's environment (their defaults when the account has none yet). */
export async function recordingSettings(db: Db, tenant: BillingTenant): Promise<RecordingSettings> {
  return recordingSettingsOf((await findSettings(db, tenant))?.recordings);
}

/**
 * The sweeper's backstop: calls that ended in the window (`endedAfter` < ended_at < `endedBefore`) with a recording
 * or a transcript the store has no copy of (their copy was never started, or its starter crashed), oldest first.
 */
export async function callsMissingCopies(db: Db, window: { endedAfter: Date; endedBefore: Date; limit: number }): Promise<string[]> {
  const rows = await db('calls as c')
    .where('c.ended_at', '>', window.endedAfter)
    .andWhere('c.ended_at', '<', window.endedBefore)
    .whereNotExists((deleted) => deleted.select(db.raw('1')).from('call_objects_deleted as d').whereRaw('d.call_id = c.id'))
    .andWhere((missing) =>
      missing
        .where((recording) =>
          recording
            .whereNotNull('c.recording_url')
            .whereNotExists((stored) =>
              stored
                .select(db.raw('1'))
                .from('call_objects as o')
                .whereRaw("o.call_id = c.id and o.kind = 'recording' and o.carrier_url = c.recording_url"),
            ),
        )
        .orWhere((transcript) =>
          transcript
            .whereRaw("jsonb_typeof(c.transcript) = 'array' and jsonb_array_length(c.transcript) > 0")
            .whereNotExists((stored) =>
              stored.select(db.raw('1')).from('call_objects as o').whereRaw("o.call_id = c.id and o.kind = 'transcript'"),
            ),
        ),
    )
    .orderBy('c.ended_at', 'asc')
    .limit(window.limit)
    .select<Array<{ id: string }>>('c.id');
  return rows.map((row) => row.id);
}

/** The events a call raised, as they were recorded for delivery (oldest first): what `events.json` keeps. */
export async function eventsOfCall(
  db: Db,
  callId: string,
): Promise<Array<{ id: string; type: string; created_at: string; payload: unknown }>> {
  const rows = await db('webhook_events')
    .where({ call_id: callId })
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .select<Array<{ id: string; event_type: string; created_at: Date; payload: unknown }>>('id', 'event_type', 'created_at', 'payload');
  return rows.map((row) => ({ id: row.id, type: row.event_type, created_at: row.created_at.toISOString(), payload: row.payload }));
}

/** A legal hold (migration 0054): keeps a call's stored objects, or those of every call from or to a number. */
export interface LegalHoldRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  call_id: string | null;
  phone_number: string | null;
  reason: string;
  created_by_key_id: string | null;
  created_at: Date;
  released_at: Date | null;
  released_by_key_id: string | null;
}

/** The holds of a workspace's environment, active and released (a list orders them). */
export function legalHoldsOf(db: Db | Knex, tenant: BillingTenant) {
  return db<LegalHoldRow>('legal_holds').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

export async function insertLegalHold(trx: Knex.Transaction, row: Omit<LegalHoldRow, 'id' | 'released_at' | 'released_by_key_id'>) {
  const [inserted] = await trx<LegalHoldRow>('legal_holds').insert(row).returning('*');
  return inserted;
}

/** Releases the hold if it is the tenant's and still active; answers the released row, or undefined. */
export async function releaseLegalHoldRow(
  trx: Knex.Transaction,
  tenant: BillingTenant,
  id: string,
  by: { keyId: string | null; at: Date },
) {
  const [row] = await legalHoldsOf(trx, tenant)
    .andWhere({ id })
    .whereNull('released_at')
    .update({ released_at: by.at, released_by_key_id: by.keyId })
    .returning('*');
  return row as LegalHoldRow | undefined;
}

/** The environments whose recordings settings name a retention, with it. */
export async function environmentsWithRetention(db: Db): Promise<Array<BillingTenant & { retentionDays: number }>> {
  const rows = await db('billing_accounts')
    .whereRaw("jsonb_typeof(recordings -> 'retention_days') = 'number'")
    .orderBy(['workspace_id', 'environment'])
    .select<Array<{ workspace_id: string; environment: 'test' | 'live'; days: number }>>(
      'workspace_id',
      'environment',
      db.raw("(recordings ->> 'retention_days')::int as days"),
    );
  return rows
    .filter((row) => row.days >= 1)
    .map((row) => ({ workspaceId: row.workspace_id, environment: row.environment, retentionDays: row.days }));
}

/**
 * Calls of the environment whose stored objects are all older than `storedBefore`, not under an active legal hold
 * (on the call, or on its from or to number), oldest first: what the retention schedule deletes next.
 */
export async function callsPastRetention(db: Db, tenant: BillingTenant, window: { storedBefore: Date; limit: number }): Promise<string[]> {
  const rows = await db('call_objects as o')
    .join('calls as c', 'c.id', 'o.call_id')
    .where({ 'o.workspace_id': tenant.workspaceId, 'o.environment': tenant.environment })
    .whereNotExists((held) =>
      held
        .select(db.raw('1'))
        .from('legal_holds as h')
        .whereRaw('h.workspace_id = o.workspace_id and h.environment = o.environment and h.released_at is null')
        .andWhereRaw('(h.call_id = c.id or h.phone_number = c.from_number or h.phone_number = c.to_number)'),
    )
    .groupBy('o.call_id')
    .havingRaw('max(o.stored_at) < ?', [window.storedBefore])
    .orderByRaw('max(o.stored_at) asc')
    .limit(window.limit)
    .select<Array<{ call_id: string }>>('o.call_id');
  return rows.map((row) => row.call_id);
}

/** Whether the call is under an active legal hold (on itself or on its from or to number). */
export async function callIsHeld(db: Db | Knex, callId: string): Promise<boolean> {
  const row = await db('calls as c')
    .where('c.id', callId)
    .whereExists((held) =>
      held
        .select(db.raw('1'))
        .from('legal_holds as h')
        .whereRaw('h.workspace_id = c.workspace_id and h.environment = c.environment and h.released_at is null')
        .andWhereRaw('(h.call_id = c.id or h.phone_number = c.from_number or h.phone_number = c.to_number)'),
    )
    .first('c.id');
  return row !== undefined;
}

/** The active legal holds that keep the call (on itself, or on its from or to number), oldest first. */
export async function holdsCoveringCall(db: Db | Knex, callId: string): Promise<LegalHoldRow[]> {
  return db<LegalHoldRow>('legal_holds as h')
    .join('calls as c', (on) => on.on('c.workspace_id', 'h.workspace_id').andOn('c.environment', 'h.environment'))
    .where('c.id', callId)
    .whereNull('h.released_at')
    .andWhereRaw('(h.call_id = c.id or h.phone_number = c.from_number or h.phone_number = c.to_number)')
    .orderBy('h.created_at', 'asc')
    .select('h.*');
}

/** Whether the retention schedule deleted the call's stored objects (then nothing is copied or served again). */
export async function callObjectsDeleted(db: Db | Knex, callId: string): Promise<boolean> {
  return (await db('call_objects_deleted').where({ call_id: callId }).first('call_id')) !== undefined;
}

/** Records that the call's objects were deleted (kept once: the first deletion's time and objects stay). */
export async function recordCallObjectsDeleted(
  trx: Knex.Transaction,
  row: { call_id: string; workspace_id: string; environment: 'test' | 'live'; objects: unknown; deleted_at: Date },
): Promise<void> {
  await trx('call_objects_deleted')
    .insert({ ...row, objects: JSON.stringify(row.objects) })
    .onConflict('call_id')
    .ignore();
}

/** Removes the call's rows of the objects named (their objects are gone from the store); answers the rows removed. */
export async function deleteCallObjectRows(
  trx: Knex.Transaction,
  callId: string,
  kinds: readonly CallObjectKind[],
): Promise<CallObjectRow[]> {
  return trx<CallObjectRow>('call_objects').where({ call_id: callId }).whereIn('kind', kinds).del().returning('*');
}

/** A `call_copy_failures` row (migration 0057): the copy of one object of a call has failed since it was last stored. */
interface CopyFailureRow {
  call_id: string;
  kind: CallObjectKind;
  workspace_id: string;
  environment: 'test' | 'live';
  reason: CopyFailureReason;
  attempts: number;
  retrying: boolean;
  first_failed_at: Date;
  last_failed_at: Date;
}

/**
 * Records a failed attempt to copy the call's object of `kind`: the first starts the row, each next one counts and
 * replaces the reason and time of the last. Nothing for a call that does not exist.
 */
export async function recordCopyFailureRow(
  db: Db,
  failure: { callId: string; kind: CallObjectKind; reason: CopyFailureReason; retrying: boolean; at: Date },
): Promise<void> {
  const fields = { reason: failure.reason, retrying: failure.retrying, at: failure.at };
  await db.raw(
    `insert into call_copy_failures (call_id, kind, workspace_id, environment, reason, attempts, retrying, first_failed_at, last_failed_at)
     select c.id, :kind, c.workspace_id, c.environment, :reason, 1, :retrying, :at, :at from calls c where c.id = :callId
     on conflict (call_id, kind) do update set
       reason = excluded.reason,
       retrying = excluded.retrying,
       attempts = call_copy_failures.attempts + 1,
       last_failed_at = greatest(call_copy_failures.last_failed_at, excluded.last_failed_at)`,
    { ...fields, kind: failure.kind, callId: failure.callId },
  );
}

/** Forgets the failures of the call's object of `kind` (it is no longer pending: stored, or not wanted any more). */
export async function clearCopyFailure(db: Db, callId: string, kind: CallObjectKind): Promise<void> {
  await db('call_copy_failures').where({ call_id: callId, kind }).del();
}

export async function copyFailuresOfCall(db: Db | Knex, callId: string): Promise<CopyFailure[]> {
  const rows = await db<CopyFailureRow>('call_copy_failures').where({ call_id: callId });
  return rows.map((row) => ({
    kind: row.kind,
    reason: row.reason,
    attempts: row.attempts,
    retrying: row.retrying,
    firstFailedAt: row.first_failed_at,
    lastFailedAt: row.last_failed_at,
  }));
}

/** When the retention schedule deleted the call's objects, or undefined. */
export async function callObjectsDeletedAt(db: Db | Knex, callId: string): Promise<Date | undefined> {
  const row = await db('call_objects_deleted').where({ call_id: callId }).first<{ deleted_at: Date } | undefined>('deleted_at');
  return row?.deleted_at;
}

/** Calls of the environment whose copy is failing now (retried or refused), not deleted by the retention since. */
export async function failingCopiesCount(db: Db | Knex, tenant: BillingTenant): Promise<number> {
  const [row] = await db('call_copy_failures as f')
    .where({ 'f.workspace_id': tenant.workspaceId, 'f.environment': tenant.environment })
    .whereNotExists((deleted) => deleted.select(db.raw('1')).from('call_objects_deleted as d').whereRaw('d.call_id = f.call_id'))
    .countDistinct<Array<{ count: string | number }>>({ count: 'f.call_id' });
  return Number(row?.count ?? 0);
}
