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
