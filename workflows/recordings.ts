import { ActivityFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { RecordingActivities } from '../activities/recordings';
import * as options from './activityOptions';
import { callCopyWantedSignal, type CallCopyInput, type CallCopyResult, type RecordingsRetentionResult } from './definitions/recordings';

const lookups = proxyActivities<RecordingActivities>(options.store);
const copies = proxyActivities<RecordingActivities>(options.recordingCopy);
const sweeps = proxyActivities<RecordingActivities>(options.webhookSweep);
const retention = proxyActivities<RecordingActivities>(options.recordingRetention);

/**
 * The durable copy of one call (issue 32; docs/decisions/recordings.md "The durable copy"): stores whatever the call
 * has that the store does not hold yet (its recording, streamed from the carrier; its transcript; its events when the
 * environment asks), each object verified before its row is written, each retried until stored. Started when the
 * call ends, again when a late recording arrives (`callCopyWantedSignal` with start: a running copy looks again
 * before it ends), and by the sweeper for calls whose start was lost. Workflow id `call-copy:<call id>`.
 */
export async function callCopyWorkflow(input: CallCopyInput): Promise<CallCopyResult> {
  let wanted = true;
  setHandler(callCopyWantedSignal, () => void (wanted = true));
  const result: CallCopyResult = { stored: [], failed: [] };
  while (wanted) {
    wanted = false;
    for (const kind of await lookups.pendingCallCopies(input.callId)) {
      try {
        const outcome = await copies.copyCallObject({ callId: input.callId, kind });
        if (outcome.stored) result.stored.push({ kind, name: outcome.name, size: outcome.size });
        // The carrier's copy goes only now, after the recording was stored and verified (the workspace's
        // `delete_at_carrier`): the store then holds a verified copy of the very URL the carrier serves.
        if (outcome.stored && outcome.deleteAtCarrier) await deleteAtCarrier(input.callId, result);
      } catch (err) {
        // Only a final refusal gets here (every other failure is retried); the next kinds are still copied.
        if (!(err instanceof ActivityFailure)) throw err;
        result.failed.push({ kind, error: err.cause?.message ?? err.message });
      }
    }
  }
  return result;
}

/** Deletes the stored recording at the carrier; a final refusal is recorded in the result (the recording stays there). */
async function deleteAtCarrier(callId: string, result: CallCopyResult): Promise<void> {
  try {
    result.deletedAtCarrier = (await copies.deleteRecordingAtCarrier({ callId })).deleted;
    delete result.carrierDeleteError;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    result.deletedAtCarrier = false;
    result.carrierDeleteError = err.cause?.message ?? err.message;
  }
}

/**
 * The backstop (a Temporal Schedule runs it every 5 minutes, src/main/schedules.ts): calls ended a while ago with a
 * recording or transcript the store has no copy of (the starter crashed, or the start was lost) get their copy.
 */
export async function sweepCallCopiesWorkflow(): Promise<{ started: number }> {
  return sweeps.startMissingCallCopies();
}

/**
 * The recordings retention (a Temporal Schedule runs it daily, src/main/schedules.ts; docs/decisions/recordings.md
 * "Retention and legal hold"): deletes, batch by batch, the stored objects of calls older than their environment's
 * `retention_days`, except calls on legal hold. Judged at the run's own time (the workflow clock), passed to every
 * batch, so a retried batch judges as the first did. Batches are idempotent: a crash resumes where it stopped.
 */
export async function recordingsRetentionWorkflow(): Promise<RecordingsRetentionResult> {
  const at = new Date(Date.now()).toISOString();
  const total: RecordingsRetentionResult = { calls: 0, objects: 0 };
  for (;;) {
    const batch = await retention.deleteExpiredCallObjects({ at });
    total.calls += batch.calls;
    total.objects += batch.objects;
    // A full batch that deleted nothing (every call in it held) would loop for ever: the held are skipped by the query, so
    // a full batch always deletes; stop anyway when one deletes nothing.
    if (!batch.more || batch.calls === 0) return total;
  }
}
