import { defineSignal } from '@temporalio/workflow';
import type { CallObjectKind } from '../../src/domain/recordings/rules';

/** The durable copy of one call's objects into the recordings store (workflows/recordings.ts): its contract. */
export interface CallCopyInput {
  callId: string;
}

export interface CallCopyResult {
  /** What this run stored, in order. */
  stored: Array<{ kind: CallObjectKind; name: string; size: number }>;
  /** What could not be stored for good (the carrier refused: it has no such recording); the rest is retried until stored. */
  failed: Array<{ kind: CallObjectKind; error: string }>;
  /**
   * The carrier's copy of the recording (`recordings.delete_at_carrier`): deleted by this run once stored, or why not
   * for good (the carrier refused); absent when not asked.
   */
  deletedAtCarrier?: boolean;
  carrierDeleteError?: string;
}

/** There may be more to store (a late recording): a running copy checks again before it ends. */
export const callCopyWantedSignal = defineSignal('callCopyWanted');

export type CallCopyWorkflow = (input: CallCopyInput) => Promise<CallCopyResult>;

/** The recordings retention (workflows/recordings.ts, run daily by a Temporal Schedule): what it deleted. */
export interface RecordingsRetentionResult {
  calls: number;
  objects: number;
}

export type RecordingsRetentionWorkflow = () => Promise<RecordingsRetentionResult>;
