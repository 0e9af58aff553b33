import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import type { BillingTenant } from '../billing/ledger';
import { findSettings } from '../billing/settings';
import { recordingSettingsOf, type CallObjectKind, type RecordingSettings, type StoredCallObject } from './rules';

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
