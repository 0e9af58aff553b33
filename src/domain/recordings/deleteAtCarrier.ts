import type { Db } from '../../platform/db/knex';
import { findCallById } from '../calls/store';
import { recordCarrierDeletion, recordingSettings, storedObjectOf } from './store';

/** What deleting the carrier's copy reaches: the database and the carrier (the carrier port's `deleteRecording`). */
export interface DeleteAtCarrierDeps {
  db: Db;
  deleteRecording(request: { callId: string; recordingUrl: string }): Promise<void>;
  now: () => Date;
}

export type DeleteAtCarrierOutcome =
  | { deleted: true }
  | {
      deleted: false;
      /**
       * `not_stored`: the store holds no verified copy of the call's current recording (never delete then);
       * `setting_off`: the workspace keeps the carrier's copy (`recordings.delete_at_carrier` off);
       * `already_deleted`: an earlier attempt deleted and recorded it.
       */
      reason: 'no_call' | 'not_stored' | 'setting_off' | 'already_deleted';
    };

/**
 * Deletes the carrier's copy of a call's recording, when the workspace's environment chooses it
 * (`recordings.delete_at_carrier`) and only once the store holds a verified copy of the very URL the call names (its
 * `call_objects` row, written after the copy was read back and compared): then records the deletion on that row.
 * The call's `recording_url` keeps the carrier's URL. Safe to repeat: the carrier's delete is idempotent (a
 * recording it no longer has is success), and a recorded deletion is not asked again. Carrier failures are thrown
 * as the port types them (`CarrierAuthError`, `CarrierRejectedError`, plain errors).
 */
export async function deleteRecordingAtCarrier(deps: DeleteAtCarrierDeps, callId: string): Promise<DeleteAtCarrierOutcome> {
  const call = await findCallById(deps.db, callId);
  if (!call) return { deleted: false, reason: 'no_call' };
  const stored = await storedObjectOf(deps.db, callId, 'recording');
  if (!call.recording_url || !stored || stored.carrier_url !== call.recording_url) return { deleted: false, reason: 'not_stored' };
  if (stored.carrier_deleted_at) return { deleted: false, reason: 'already_deleted' };
  const settings = await recordingSettings(deps.db, { workspaceId: call.workspace_id, environment: call.environment });
  if (!settings.delete_at_carrier) return { deleted: false, reason: 'setting_off' };
  await deps.deleteRecording({ callId, recordingUrl: stored.carrier_url });
  await recordCarrierDeletion(deps.db, callId, stored.carrier_url, deps.now());
  return { deleted: true };
}
