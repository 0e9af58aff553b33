import type { RecordingStore } from '../../adapters/storage/port';
import type { Db } from '../../platform/db/knex';
import { recordComplianceEvent } from '../compliance/events';
import { deleteTranscript } from '../calls/store';
import { eraseConversationOfCall } from '../webhooks/store';
import type { BillingTenant } from '../billing/ledger';
import {
  callIsHeld,
  callsPastRetention,
  deleteCallObjectRows,
  environmentsWithRetention,
  recordCallObjectsDeleted,
  storedObjectsOfCall,
} from './store';

/*
 * The retention schedule's work (issue 32; docs/decisions/recordings.md "Retention and legal hold"): in each
 * environment whose recordings settings name `retention_days`, the stored objects of calls stored longer ago than
 * that are deleted from the store, then their `call_objects` rows, unless the call is on an active legal hold (on
 * itself, or on its from or to number). Idempotent: an object already gone deletes fine, and a call's rows go only
 * after its objects, so a crash anywhere leaves the call to the next pass.
 */

const DAY_MS = 24 * 60 * 60_000;

export interface RetentionDeps {
  db: Db;
  store: RecordingStore;
  now: () => Date;
}

export interface DeletedCall {
  callId: string;
  tenant: BillingTenant;
  objects: Array<{ kind: string; name: string; size_bytes: number }>;
}

export interface RetentionBatch {
  /** The calls whose objects this batch deleted. */
  deleted: DeletedCall[];
  /** A batch was full in some environment: there may be more. */
  more: boolean;
}

/**
 * Deletes up to `limit` calls' objects per environment, of calls whose objects were all stored before `at` minus
 * the environment's retention. `at` is the schedule's time (the workflow's clock), so a late run judges by its own.
 * With its objects go the call's transcript in the database (as `GET /calls/{id}` shows it) and what was said in its
 * conversation events and their delivery attempts: the retention is of what was said, wherever Switchboard keeps it.
 */
export async function deleteCallObjectsPastRetention(deps: RetentionDeps, at: Date, limit: number): Promise<RetentionBatch> {
  const deleted: DeletedCall[] = [];
  let more = false;
  for (const environment of await environmentsWithRetention(deps.db)) {
    const storedBefore = new Date(at.getTime() - environment.retentionDays * DAY_MS);
    const callIds = await callsPastRetention(deps.db, environment, { storedBefore, limit });
    if (callIds.length === limit) more = true;
    for (const callId of callIds) {
      const done = await deleteCallObjects(deps, environment, callId, environment.retentionDays);
      if (done) deleted.push(done);
    }
  }
  return { deleted, more };
}

/** One call: its objects from the store, then (with the audit event and the tombstone) its rows. */
async function deleteCallObjects(
  deps: RetentionDeps,
  tenant: BillingTenant,
  callId: string,
  retentionDays: number,
): Promise<DeletedCall | undefined> {
  // A hold placed since the call was listed still keeps it.
  if (await callIsHeld(deps.db, callId)) return undefined;
  const rows = await storedObjectsOfCall(deps.db, callId);
  if (rows.length === 0) return undefined;
  for (const row of rows) {
    await deps.store.delete({ workspaceId: row.workspace_id, environment: row.environment, callId, name: row.name });
  }
  const at = deps.now();
  const objects = rows.map((row) => ({
    kind: row.kind,
    name: row.name,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    stored_at: row.stored_at.toISOString(),
  }));
  await deps.db.transaction(async (trx) => {
    const transcriptDeleted = await deleteTranscript(trx, callId);
    const conversationEventsErased = await eraseConversationOfCall(trx, callId);
    await deleteCallObjectRows(
      trx,
      callId,
      rows.map((row) => row.kind),
    );
    await recordCallObjectsDeleted(trx, { call_id: callId, ...tenantColumns(tenant), objects, deleted_at: at });
    await recordComplianceEvent(trx, {
      ...tenant,
      eventType: 'call_objects_deleted',
      actorKeyId: null,
      callId,
      metadata: {
        by: 'retention_schedule',
        retention_days: retentionDays,
        objects,
        transcript_deleted: transcriptDeleted,
        conversation_events_erased: conversationEventsErased,
      },
      at,
    });
  });
  return { callId, tenant, objects };
}

const tenantColumns = (tenant: BillingTenant) => ({ workspace_id: tenant.workspaceId, environment: tenant.environment });
