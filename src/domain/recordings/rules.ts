import type { ByteRange } from '../../adapters/storage/port';
import { recordingPresentation } from '../calls/rules';
import { DEFAULT_REDACTION, redactionSettingsOf, type RedactionSettings } from './redactionSettings';

/*
 * The durable copy of a call's recording, transcript and events into the operator's recordings store (issue 32,
 * docs/decisions/recordings.md "The durable copy"), and how the copy is served: the pure rules.
 */

/** What a call keeps in the store: one object of each kind at most. */
export const CALL_OBJECT_KINDS = ['recording', 'transcript', 'events'] as const;
export type CallObjectKind = (typeof CALL_OBJECT_KINDS)[number];

/** The recordings settings of a workspace's environment (`billing_accounts.recordings`, `GET /api/v1/settings`). */
export interface RecordingSettings {
  /** Also keep the call's events (the webhook events it raised, as sent) as `events.json` beside the recording. */
  store_events: boolean;
  /**
   * Days a call's stored objects are kept (counted from when each was stored); the retention schedule deletes them
   * after, unless the call is on legal hold. Null: kept until deleted by hand.
   */
  retention_days: number | null;
  /**
   * Delete the carrier's copy of each recording once the store holds a verified copy of it (never before), so the
   * recording is kept only where the operator keeps it.
   */
  delete_at_carrier: boolean;
  /** What is redacted from transcripts before they are stored, and whether from webhook payloads too (./redactionSettings.ts). */
  redaction: RedactionSettings;
}

export const DEFAULT_RECORDING_SETTINGS: RecordingSettings = {
  store_events: false,
  retention_days: null,
  delete_at_carrier: false,
  redaction: DEFAULT_REDACTION,
};

/** The settings as stored (a JSON object that may lack fields added later), with their defaults. */
export function recordingSettingsOf(stored: unknown): RecordingSettings {
  const value = (stored && typeof stored === 'object' ? stored : {}) as Partial<RecordingSettings>;
  const retention = value.retention_days;
  return {
    store_events: value.store_events === true,
    retention_days: typeof retention === 'number' && Number.isInteger(retention) && retention >= 1 ? retention : null,
    delete_at_carrier: value.delete_at_carrier === true,
    redaction: redactionSettingsOf(value.redaction),
  };
}

/** What the copy needs to know of a call to decide what is left to store. */
export interface CopyableCall {
  ended: boolean;
  /** The carrier's URL of the recording (the `calls.recording_url` column), if the carrier reported one. */
  recordingUrl: string | null;
  hasTranscript: boolean;
}

/** What the store already holds of the call (`call_objects` rows). */
export interface StoredCallObject {
  kind: CallObjectKind;
  carrierUrl: string | null;
}

/**
 * What is left to store of a call: its recording when the carrier has one and the store has no copy of that one (a
 * copy of an earlier URL does not count), its transcript once the call has ended with one, and, when the
 * environment asks, its events once it has ended. Recording first: it is the one the carrier may lose.
 */
export function pendingKinds(call: CopyableCall, stored: readonly StoredCallObject[], settings: RecordingSettings): CallObjectKind[] {
  const has = (kind: CallObjectKind, carrierUrl?: string) =>
    stored.some((object) => object.kind === kind && (carrierUrl === undefined || object.carrierUrl === carrierUrl));
  const pending: CallObjectKind[] = [];
  if (call.recordingUrl && !has('recording', call.recordingUrl)) pending.push('recording');
  if (call.ended && call.hasTranscript && !has('transcript')) pending.push('transcript');
  if (call.ended && settings.store_events && !has('events')) pending.push('events');
  return pending;
}

/** The object's file name within the call's prefix: the recording's extension follows its audio type. */
export function objectNameOf(kind: CallObjectKind, contentType?: string): string {
  if (kind === 'recording') return `recording.${recordingPresentation(contentType ?? '').extension}`;
  return `${kind}.json`;
}

/**
 * A call's `recording_url` as the API and webhooks show it: Switchboard's own URL, whether the recording is
 * already in the store or still only at the carrier (`GET /api/v1/calls/{id}/recording` serves either).
 */
export function servedRecordingUrl(publicBaseUrl: string, callId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/api/v1/calls/${callId}/recording`;
}

/**
 * An HTTP `Range` header as a byte range, or undefined when it is absent or not one this server serves: a
 * malformed header or several ranges (RFC 9110 lets a server ignore Range and answer the whole object).
 */
export function byteRangeOf(header: string | undefined): ByteRange | undefined {
  if (!header) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') return { suffix: Number(last) };
  const start = Number(first);
  if (last === '') return { start };
  const end = Number(last);
  if (end < start || !Number.isSafeInteger(end) || !Number.isSafeInteger(start)) return undefined;
  return { start, end };
}

/**
 * Why an attempt to copy an object of a call failed, as a class (the metric's `reason`, the copy's state in the API
 * and the portal): never the store's or the carrier's own words, which may name a key, a bucket or an account.
 * `store_unavailable` (unreachable, timed out, 5xx, throttled, the bucket missing), `credentials_refused` (the store
 * refused the credentials), `checksum_mismatch` (what the store holds is not what was written), `carrier_unavailable`
 * (the carrier's recording could not be fetched: unreachable, timed out, 5xx): all retried until stored;
 * `carrier_refused` (the carrier has no such recording, or refused the credentials) and `store_refused` (the store
 * refused the request itself): final, tried again by the sweeper; `error`: anything else, retried.
 */
export const COPY_FAILURE_REASONS = [
  'store_unavailable',
  'credentials_refused',
  'checksum_mismatch',
  'carrier_unavailable',
  'carrier_refused',
  'store_refused',
  'error',
] as const;
export type CopyFailureReason = (typeof COPY_FAILURE_REASONS)[number];

/**
 * Where a call's copy into the operator's store stands (`recording_storage` on `GET /calls/{id}` and the call's portal
 * page): `none` (nothing to store: no recording, no transcript yet), `pending` (something is left to store and no
 * attempt has failed: the copy is under way or about to start), `retrying` (an attempt failed and the copy is being
 * retried), `failed` (refused for good; the sweeper tries again within the week), `stored` (everything there is to
 * store is stored and verified), `deleted` (the retention schedule deleted it).
 */
export const RECORDING_STORAGE_STATES = ['none', 'pending', 'retrying', 'failed', 'stored', 'deleted'] as const;
export type RecordingStorageState = (typeof RECORDING_STORAGE_STATES)[number];

/** A failing copy of one object of a call (a `call_copy_failures` row, migration 0057). */
export interface CopyFailure {
  kind: CallObjectKind;
  reason: CopyFailureReason;
  attempts: number;
  retrying: boolean;
  firstFailedAt: Date;
  lastFailedAt: Date;
}

export interface RecordingStorage {
  state: RecordingStorageState;
  /** The objects stored, each verified (kind, size, when). */
  objects: Array<{ kind: CallObjectKind; size_bytes: number; stored_at: string }>;
  /** Failed attempts since the failing began (the object failing last), 0 when nothing is failing. */
  attempts: number;
  /** When the copy began failing (the earliest failing object's first failure), null when nothing is failing. */
  failing_since: string | null;
  last_failure: { kind: CallObjectKind; reason: CopyFailureReason; at: string } | null;
  /** When the retention schedule deleted the call's objects (`deleted`), else null. */
  deleted_at: string | null;
}

/** The copy's state from what is stored, what is failing, what is left and whether the retention deleted it. */
export function recordingStorageOf(facts: {
  stored: ReadonlyArray<{ kind: CallObjectKind; sizeBytes: number; storedAt: Date }>;
  failures: readonly CopyFailure[];
  pending: readonly CallObjectKind[];
  deletedAt: Date | null;
}): RecordingStorage {
  const objects = [...facts.stored]
    .sort((a, b) => CALL_OBJECT_KINDS.indexOf(a.kind) - CALL_OBJECT_KINDS.indexOf(b.kind))
    .map((o) => ({ kind: o.kind, size_bytes: o.sizeBytes, stored_at: o.storedAt.toISOString() }));
  const none = { attempts: 0, failing_since: null, last_failure: null };
  if (facts.deletedAt) return { state: 'deleted', objects: [], ...none, deleted_at: facts.deletedAt.toISOString() };
  // A failure of an object no longer pending (stored meanwhile under another row, not wanted any more) says nothing.
  const failing = facts.failures.filter((f) => facts.pending.includes(f.kind));
  if (failing.length > 0) {
    const last = failing.reduce((a, b) => (b.lastFailedAt > a.lastFailedAt ? b : a));
    const since = failing.reduce((a, b) => (b.firstFailedAt < a.firstFailedAt ? b : a)).firstFailedAt;
    return {
      state: failing.some((f) => f.retrying) ? 'retrying' : 'failed',
      objects,
      attempts: last.attempts,
      failing_since: since.toISOString(),
      last_failure: { kind: last.kind, reason: last.reason, at: last.lastFailedAt.toISOString() },
      deleted_at: null,
    };
  }
  const state: RecordingStorageState = facts.pending.length > 0 ? 'pending' : objects.length > 0 ? 'stored' : 'none';
  return { state, objects, ...none, deleted_at: null };
}
