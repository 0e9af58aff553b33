import { CarrierRejectedError } from '../../adapters/carrier/port';
import {
  ChecksumMismatchError,
  RecordingStoreError,
  StoreCredentialsRefusedError,
  StoreUnavailableError,
} from '../../adapters/storage/port';
import type { Db } from '../../platform/db/knex';
import type { CallRow } from '../calls/store';
import { pendingCopies } from './copy';
import { recordingStorageOf, type CallObjectKind, type CopyFailureReason, type RecordingStorage } from './rules';
import { callObjectsDeletedAt, clearCopyFailure, copyFailuresOfCall, recordCopyFailureRow, storedObjectsOfCall } from './store';

/*
 * Where a call's copy into the operator's store stands (issue 32, "a store that is down or refuses credentials delays
 * the copy, visible in metrics and the portal"; docs/decisions/recordings.md "The copy's state"): each failed attempt
 * is recorded as a reason class beside the metric, cleared when the object is stored, and read back as the
 * `recording_storage` of `GET /calls/{id}` and the call's portal page.
 */

/**
 * The carrier's recording could not be opened for a reason other than a refusal (unreachable, timed out, 5xx): the
 * copy's `openRecording` wraps such failures so they are told apart from the store's. Retried as any error.
 */
export class CarrierRecordingUnreachableError extends Error {
  constructor(cause: unknown) {
    super(`the carrier's recording could not be fetched: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'CarrierRecordingUnreachableError';
  }
}

/** Opens a recording at the carrier, telling a carrier that cannot be reached from one that refuses. */
export function openingAtCarrier<R>(open: () => Promise<R>): Promise<R> {
  return open().catch((err: unknown) => {
    throw err instanceof CarrierRejectedError ? err : new CarrierRecordingUnreachableError(err);
  });
}

/** The failure's class (the metric's `reason` and the copy's state): never the failure's own words. */
export function copyFailureReason(err: unknown): CopyFailureReason {
  if (err instanceof StoreUnavailableError) return 'store_unavailable';
  if (err instanceof StoreCredentialsRefusedError) return 'credentials_refused';
  if (err instanceof ChecksumMismatchError) return 'checksum_mismatch';
  if (err instanceof RecordingStoreError) return 'store_refused';
  if (err instanceof CarrierRejectedError) return 'carrier_refused';
  if (err instanceof CarrierRecordingUnreachableError) return 'carrier_unavailable';
  return 'error';
}

/** Whether the failure is final (not retried by the copy; the sweeper tries again): a refusal by the carrier or the store. */
export function isFinalCopyFailure(err: unknown): boolean {
  return err instanceof CarrierRejectedError || (err instanceof RecordingStoreError && !err.retryable);
}

/** Records a failed attempt to copy the call's object of `kind` (the activity's, beside its metric and log line). */
export async function recordCopyFailure(
  deps: { db: Db; now: () => Date },
  failure: { callId: string; kind: CallObjectKind; error: unknown },
): Promise<void> {
  await recordCopyFailureRow(deps.db, {
    callId: failure.callId,
    kind: failure.kind,
    reason: copyFailureReason(failure.error),
    retrying: !isFinalCopyFailure(failure.error),
    at: deps.now(),
  });
}

/** The object is not pending any more (the copy found nothing to do): whatever failed before says nothing now. */
export async function forgetCopyFailure(deps: { db: Db }, callId: string, kind: CallObjectKind): Promise<void> {
  await clearCopyFailure(deps.db, callId, kind);
}

/**
 * The call's `recording_storage`: what is stored, what is failing and why, what is left, or deleted by the retention.
 * Read in one snapshot (a read-only repeatable-read transaction): read apart, an object stored between the reads could
 * be missing from `objects` yet no longer pending, and the answer `stored` with an object short (a full run showed it).
 */
export async function recordingStorageOfCall(deps: { db: Db }, call: Pick<CallRow, 'id'>): Promise<RecordingStorage> {
  const [stored, failures, pending, deletedAt] = await deps.db.transaction(
    async (trx) =>
      [
        await storedObjectsOfCall(trx, call.id),
        await copyFailuresOfCall(trx, call.id),
        await pendingCopies({ db: trx }, call.id),
        await callObjectsDeletedAt(trx, call.id),
      ] as const,
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  return recordingStorageOf({
    stored: stored.map((row) => ({ kind: row.kind, sizeBytes: Number(row.size_bytes), storedAt: row.stored_at })),
    failures,
    pending,
    deletedAt: deletedAt ?? null,
  });
}
