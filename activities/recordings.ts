import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { CarrierAuthError, CarrierRejectedError, type CarrierAdapter } from '../src/adapters/carrier/port';
import type { RecordingStore } from '../src/adapters/storage/port';
import { copyCallObject, pendingCopies, type CopyOutcome } from '../src/domain/recordings/copy';
import {
  copyFailureReason,
  forgetCopyFailure,
  isFinalCopyFailure,
  openingAtCarrier,
  recordCopyFailure,
} from '../src/domain/recordings/copyState';
import { deleteRecordingAtCarrier, type DeleteAtCarrierOutcome } from '../src/domain/recordings/deleteAtCarrier';
import type { CallObjectKind } from '../src/domain/recordings/rules';
import { deleteCallObjectsPastRetention } from '../src/domain/recordings/retention';
import { wantCallCopy } from '../src/domain/recordings/start';
import { callsMissingCopies } from '../src/domain/recordings/store';
import type { Db } from '../src/platform/db/knex';
import { FailureTypes } from '../workflows/definitions/failures';
import { businessMetrics } from './metrics';

export interface RecordingActivityDeps {
  db: Db;
  /** The operator's recordings store (`RECORDINGS_STORE`; src/main/recordingStore.ts). */
  recordingStore: RecordingStore;
  carrier: CarrierAdapter;
  temporal: () => Client;
  taskQueue: string;
  now: () => Date;
}

/** The sweeper's window: calls that ended at least this long ago (their own copy has had its chance)… */
export const SWEEP_AFTER_MS = 10 * 60_000;
/** …and at most this long ago (older ones were swept for a week; a carrier keeps recordings at least that long). */
export const SWEEP_WITHIN_MS = 7 * 24 * 60 * 60_000;
/** Calls started per sweep: the next sweep, 5 minutes later, takes the rest. */
export const SWEEP_BATCH = 100;

/** Calls whose objects one retention batch deletes, per environment: the workflow asks again while a batch was full. */
export const RETENTION_BATCH = 100;

/** The durable copy of calls into the recordings store (workflows/recordings.ts; src/domain/recordings). */
export function createRecordingActivities(deps: RecordingActivityDeps) {
  const { db, recordingStore, carrier, temporal, taskQueue, now } = deps;
  return {
    /** What is left to store of the call. */
    async pendingCallCopies(callId: string): Promise<CallObjectKind[]> {
      return pendingCopies({ db }, callId);
    },

    /**
     * Copies one object of the call and verifies it (src/domain/recordings/copy.ts). Heartbeats while it works, so a
     * dead worker's attempt is retried within the heartbeat timeout. A failure is logged and counted; it is retried
     * unless it is final (the carrier has no such recording; the store refused the request itself).
     */
    async copyCallObject(input: { callId: string; kind: CallObjectKind }): Promise<CopyOutcome> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 2_000);
      try {
        const outcome = await copyCallObject(
          { db, store: recordingStore, openRecording: (request) => openingAtCarrier(() => carrier.openRecording(request)), now },
          input.callId,
          input.kind,
        );
        if (outcome.stored) {
          businessMetrics.recordingCopied(input.kind, recordingStore.kind);
          context.log.info('call object stored', { call_id: input.callId, kind: input.kind, name: outcome.name, size: outcome.size });
        } else if (outcome.reason === 'not_pending') {
          // Nothing left to do for it (stored by an earlier run, or no longer wanted): an earlier failure says nothing now.
          await forgetCopyFailure({ db }, input.callId, input.kind);
        }
        return outcome;
      } catch (err) {
        const reason = copyFailureReason(err);
        businessMetrics.recordingCopyFailed(input.kind, reason);
        const final = isFinalCopyFailure(err);
        // The copy's state for the API and the portal (a reason class, never the error's words); a database that
        // cannot take it must not hide the copy's own failure, which is what is retried.
        await recordCopyFailure({ db, now }, { callId: input.callId, kind: input.kind, error: err }).catch((stateErr: unknown) =>
          context.log.warn('copy failure not recorded', { call_id: input.callId, kind: input.kind, error: (stateErr as Error).message }),
        );
        context.log.warn('call object not stored', {
          call_id: input.callId,
          kind: input.kind,
          reason,
          attempt: context.info.attempt,
          retried: !final,
          error: (err as Error).message,
        });
        if (err instanceof CarrierRejectedError) throw ApplicationFailure.nonRetryable(err.message, FailureTypes.carrierRejected);
        if (final) throw ApplicationFailure.nonRetryable((err as Error).message, FailureTypes.storeRefused);
        throw err;
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Deletes the carrier's copy of the call's recording once the store holds a verified copy of it, when the workspace
     * chooses (src/domain/recordings/deleteAtCarrier.ts), and records the deletion. A carrier that is down or refuses
     * the credentials is retried until the operator fixes it (counted, logged as a warning); any other refusal is
     * final (counted, logged as an error): the recording stays at the carrier, and in the store.
     */
    async deleteRecordingAtCarrier(input: { callId: string }): Promise<DeleteAtCarrierOutcome> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 2_000);
      try {
        const outcome = await deleteRecordingAtCarrier(
          { db, deleteRecording: (request) => carrier.deleteRecording(request), now },
          input.callId,
        );
        if (outcome.deleted) {
          businessMetrics.recordingDeletedAtCarrier();
          context.log.info('recording deleted at the carrier', { call_id: input.callId });
        }
        return outcome;
      } catch (err) {
        const auth = err instanceof CarrierAuthError;
        const final = err instanceof CarrierRejectedError && !auth;
        const reason = auth ? 'carrier_credentials_refused' : final ? 'carrier_refused' : 'carrier_unavailable';
        businessMetrics.recordingCarrierDeleteFailed(reason);
        context.log[final ? 'error' : 'warn']('recording not deleted at the carrier', {
          call_id: input.callId,
          reason,
          attempt: context.info.attempt,
          retried: !final,
          error: (err as Error).message,
        });
        // A refusal of the credentials (CarrierAuthError) is retried: only `CarrierRejected` is final in `recordingCopy`.
        if (final) throw ApplicationFailure.nonRetryable((err as Error).message, FailureTypes.carrierRejected);
        throw err;
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * The call has ended (its workflow's last step): starts its copy when there is anything to store (an unanswered
     * call has nothing), or tells the running copy to look again.
     */
    async wantCallCopy(callId: string): Promise<{ wanted: boolean }> {
      if ((await pendingCopies({ db }, callId)).length === 0) return { wanted: false };
      await wantCallCopy(temporal(), taskQueue, callId);
      return { wanted: true };
    },

    /** The sweeper's backstop: starts the copy of every recently ended call with something not stored. */
    async startMissingCallCopies(): Promise<{ started: number }> {
      const at = now().getTime();
      const callIds = await callsMissingCopies(db, {
        endedAfter: new Date(at - SWEEP_WITHIN_MS),
        endedBefore: new Date(at - SWEEP_AFTER_MS),
        limit: SWEEP_BATCH,
      });
      for (const callId of callIds) await wantCallCopy(temporal(), taskQueue, callId);
      if (callIds.length > 0) Context.current().log.warn('call copies started by the sweeper', { calls: callIds.length });
      return { started: callIds.length };
    },

    /**
     * One batch of the retention (src/domain/recordings/retention.ts), judged at `at` (the schedule's time): deletes
     * the objects of calls past their environment's retention and not on legal hold, each call audited and counted.
     */
    async deleteExpiredCallObjects(input: { at: string }): Promise<{ calls: number; objects: number; more: boolean }> {
      const batch = await deleteCallObjectsPastRetention({ db, store: recordingStore, now }, new Date(input.at), RETENTION_BATCH);
      let objects = 0;
      for (const call of batch.deleted) {
        for (const object of call.objects) businessMetrics.recordingDeleted(object.kind);
        objects += call.objects.length;
      }
      if (batch.deleted.length > 0)
        Context.current().log.info('call objects deleted by the retention', { calls: batch.deleted.length, objects });
      return { calls: batch.deleted.length, objects, more: batch.more };
    },
  };
}

export type RecordingActivities = ReturnType<typeof createRecordingActivities>;
