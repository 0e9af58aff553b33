import { CarrierRejectedError, type CarrierRecording } from '../../adapters/carrier/port';
import {
  RangeNotSatisfiableError,
  RecordingStoreError,
  StoredObjectNotFoundError,
  type ByteRange,
  type RecordingStore,
  type StoredObjectRead,
} from '../../adapters/storage/port';
import type { Db } from '../../platform/db/knex';
import type { Logger } from '../../platform/logger';
import type { CallRow } from '../calls/store';
import { callObjectsDeleted, storedObjectOf } from './store';

/** What serving a call's recording reaches: the store holding its copy, and the carrier until it does. */
export interface ServeRecordingDeps {
  db: Db;
  log: Logger;
  recordingStore?: RecordingStore;
  openRecording?: (request: { environment: 'test' | 'live'; callId: string; recordingUrl: string }) => Promise<CarrierRecording>;
}

export type RecordingServed =
  /** The stored copy (or the range of it asked for): seekable, with its checksum. */
  | { ok: true; from: 'store'; read: StoredObjectRead; ranged: boolean }
  /** The carrier's, streamed through whole (no range: the copy is not stored yet). */
  | { ok: true; from: 'carrier'; recording: CarrierRecording }
  | { ok: false; refused: 'no_recording' }
  | { ok: false; refused: 'range_not_satisfiable'; size: number }
  | { ok: false; refused: 'unavailable' };

/**
 * A call's recording, for the API (`GET /api/v1/calls/{id}/recording`) and the portal alike; the caller has found
 * the call as the asker's. The store's copy once it holds one of the call's current recording (byte ranges served),
 * else the carrier's, whole (a range is ignored: HTTP lets a server answer 200 with everything). A call without a
 * recording, or whose carrier no longer has it and no copy was stored, has none. A store that cannot answer falls
 * back to the carrier; both down is `unavailable` (503). A recording deleted at the carrier once stored
 * (`delete_at_carrier`) is served from the store only: a store that cannot answer is `unavailable`.
 */
export async function serveCallRecording(deps: ServeRecordingDeps, call: CallRow, range?: ByteRange): Promise<RecordingServed> {
  if (!call.recording_url) return { ok: false, refused: 'no_recording' };
  // Deleted by the retention schedule: gone, never served from the carrier's copy instead (the retention is the
  // workspace's word that it is no longer kept).
  if (await callObjectsDeleted(deps.db, call.id)) return { ok: false, refused: 'no_recording' };
  const stored = await storedObjectOf(deps.db, call.id, 'recording');
  if (stored && stored.carrier_url === call.recording_url && deps.recordingStore) {
    const ref = { workspaceId: call.workspace_id, environment: call.environment, callId: call.id, name: stored.name };
    try {
      return { ok: true, from: 'store', read: await deps.recordingStore.get(ref, range), ranged: range !== undefined };
    } catch (err) {
      if (err instanceof RangeNotSatisfiableError) return { ok: false, refused: 'range_not_satisfiable', size: err.size };
      if (!(err instanceof RecordingStoreError)) throw err;
      // Recorded as stored but not readable: said loudly (a copy should never go missing), and the carrier tried
      // unless it deleted its copy (then the store is the only one: unavailable until it answers).
      const missing = err instanceof StoredObjectNotFoundError;
      deps.log[missing ? 'error' : 'warn'](
        { call_id: call.id, err: err.message, store: deps.recordingStore.kind, carrier_deleted: Boolean(stored.carrier_deleted_at) },
        stored.carrier_deleted_at
          ? 'stored recording not readable; the carrier deleted its copy'
          : 'stored recording not readable; trying the carrier',
      );
      if (stored.carrier_deleted_at) return { ok: false, refused: missing ? 'no_recording' : 'unavailable' };
    }
  }
  // Deleted at the carrier (`delete_at_carrier`) once stored: the store is the only copy, never the carrier.
  if (stored?.carrier_deleted_at && stored.carrier_url === call.recording_url) return { ok: false, refused: 'unavailable' };
  if (!deps.openRecording) return { ok: false, refused: 'no_recording' };
  try {
    const recording = await deps.openRecording({ environment: call.environment, callId: call.id, recordingUrl: call.recording_url });
    return { ok: true, from: 'carrier', recording };
  } catch (err) {
    if (err instanceof CarrierRejectedError) {
      deps.log.warn({ call_id: call.id, err: err.message }, 'recording refused by the carrier adapter');
      return { ok: false, refused: 'no_recording' };
    }
    deps.log.warn({ call_id: call.id, err: (err as Error).message }, 'recording unavailable at the carrier');
    return { ok: false, refused: 'unavailable' };
  }
}
