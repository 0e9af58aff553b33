import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { CarrierRecording } from '../../adapters/carrier/port';
import { ChecksumMismatchError, objectKey, type RecordingStore, type StoredObjectRef } from '../../adapters/storage/port';
import { measuring } from '../../adapters/storage/streams';
import type { Db } from '../../platform/db/knex';
import { recordingPresentation } from '../calls/rules';
import { findCallById, transcriptRecord, type CallRow } from '../calls/store';
import { callRedaction, redactedEventPayload } from './redactTranscript';
import { objectNameOf, pendingKinds, type CallObjectKind, type RecordingSettings } from './rules';
import { asStoredObject, callObjectsDeleted, eventsOfCall, recordingSettings, recordStoredObject, storedObjectsOfCall } from './store';

/** What copying a call's objects reaches: the database, the operator's store and the carrier's recording. */
export interface CopyDeps {
  db: Db;
  store: RecordingStore;
  /** Opens the recording at the carrier, with the carrier's credentials (the carrier port's `openRecording`). */
  openRecording(request: { callId: string; recordingUrl: string }): Promise<CarrierRecording>;
  now: () => Date;
}

export type CopyOutcome =
  | {
      kind: CallObjectKind;
      stored: true;
      name: string;
      size: number;
      sha256: string;
      replaced?: string;
      /** A recording whose workspace deletes the carrier's copy once stored (`recordings.delete_at_carrier`, as read now). */
      deleteAtCarrier?: boolean;
    }
  | { kind: CallObjectKind; stored: false; reason: 'no_call' | 'not_pending' };

const facts = (call: CallRow) => ({
  ended: call.ended_at !== null,
  recordingUrl: call.recording_url,
  hasTranscript: Array.isArray(call.transcript) && call.transcript.length > 0,
});

/** What is left to store of the call (src/domain/recordings/rules.ts `pendingKinds`); nothing for a call that is not. */
export async function pendingCopies(deps: Pick<CopyDeps, 'db'>, callId: string): Promise<CallObjectKind[]> {
  const call = await findCallById(deps.db, callId);
  return call ? (await pendingOf(deps, call)).pending : [];
}

async function pendingOf(deps: Pick<CopyDeps, 'db'>, call: CallRow): Promise<{ pending: CallObjectKind[]; settings: RecordingSettings }> {
  const [stored, settings] = await Promise.all([
    storedObjectsOfCall(deps.db, call.id),
    recordingSettings(deps.db, { workspaceId: call.workspace_id, environment: call.environment }),
  ]);
  // Deleted by the retention schedule: never copied again (the carrier may still hold the recording).
  if (await callObjectsDeleted(deps.db, call.id)) return { pending: [], settings };
  return { pending: pendingKinds(facts(call), stored.map(asStoredObject), settings), settings };
}

/**
 * Copies one object of a call into the store, if it is still pending: the bytes are hashed (SHA-256) as they come,
 * written with that checksum (the store keeps nothing that does not match it), then read back (`head`) and compared
 * in size and checksum; only then is the `call_objects` row written, so a row means a verified copy. Retried as a
 * whole: a crash anywhere before the row leaves nothing recorded, and the next attempt writes the object again (a
 * write replaces it atomically). Nothing is deleted at the carrier here: the outcome says whether the workspace wants it
 * (`deleteRecordingAtCarrier`, ./deleteAtCarrier.ts, is the next step's).
 */
export async function copyCallObject(deps: CopyDeps, callId: string, kind: CallObjectKind): Promise<CopyOutcome> {
  const call = await findCallById(deps.db, callId);
  if (!call) return { kind, stored: false, reason: 'no_call' };
  const { pending, settings } = await pendingOf(deps, call);
  if (!pending.includes(kind)) return { kind, stored: false, reason: 'not_pending' };
  const base = { workspaceId: call.workspace_id, environment: call.environment, callId };
  const carrierUrl = kind === 'recording' ? call.recording_url : null;
  const written =
    kind === 'recording'
      ? await writeRecording(deps, base, call.recording_url!)
      : await writeJson(deps, base, kind, await jsonOf(deps, call, kind));
  const head = await deps.store.head(written.ref);
  if (head.size !== written.size || head.sha256 !== written.sha256)
    throw new ChecksumMismatchError(
      `${objectKey(written.ref)}: the store holds ${head.size} bytes hashing to ${head.sha256}, not the ${written.size} bytes hashing to ${written.sha256} written`,
    );
  const replaced = await recordStoredObject(deps.db, {
    call_id: callId,
    kind,
    workspace_id: call.workspace_id,
    environment: call.environment,
    name: written.ref.name,
    store: deps.store.kind,
    store_key: objectKey(written.ref),
    size_bytes: written.size,
    sha256: written.sha256,
    content_type: written.contentType,
    carrier_url: carrierUrl,
    stored_at: deps.now(),
  });
  // A recording copied again in another format: the earlier object is no longer any row's.
  if (replaced && replaced.name !== written.ref.name) await deps.store.delete({ ...base, name: replaced.name });
  const stored = { kind, stored: true as const, name: written.ref.name, size: written.size, sha256: written.sha256 };
  return kind === 'recording' ? { ...stored, deleteAtCarrier: settings.delete_at_carrier } : stored;
}

interface Written {
  ref: StoredObjectRef;
  size: number;
  sha256: string;
  contentType: string;
}

/**
 * The transcript or the events as JSON. Both are redacted as the workspace asks now (./redactTranscript.ts): the
 * transcript was redacted as it was written, and this adds only what a rule set since then finds; the events keep
 * the caller's words as sent to the agent unless the workspace redacts webhook payloads, so they are redacted here.
 */
async function jsonOf(deps: Pick<CopyDeps, 'db'>, call: CallRow, kind: Exclude<CallObjectKind, 'recording'>): Promise<unknown> {
  const redaction = await callRedaction(deps.db, call.id);
  if (kind === 'transcript') return { call_id: call.id, transcript: redaction.entries(transcriptRecord(call) ?? []) };
  const events = await eventsOfCall(deps.db, call.id);
  return {
    call_id: call.id,
    events: events.map((event) => ({ ...event, payload: redactedEventPayload(redaction, event.type, event.payload) })),
  };
}

async function writeJson(deps: CopyDeps, base: Omit<StoredObjectRef, 'name'>, kind: CallObjectKind, value: unknown): Promise<Written> {
  const bytes = Buffer.from(JSON.stringify(value), 'utf8');
  const contentType = 'application/json';
  const [size, sha256] = [bytes.length, crypto.createHash('sha256').update(bytes).digest('hex')];
  const ref = { ...base, name: objectNameOf(kind) };
  await deps.store.put(ref, bytes, { contentType, sha256 });
  return { ref, size, sha256, contentType };
}

/**
 * The recording, streamed from the carrier into a temporary file (0600) while it is hashed, then written to the store
 * with its checksum. The file is removed whatever happens.
 */
async function writeRecording(deps: CopyDeps, base: Omit<StoredObjectRef, 'name'>, recordingUrl: string): Promise<Written> {
  const recording = await deps.openRecording({ callId: base.callId, recordingUrl });
  const { contentType, extension } = recordingPresentation(recording.contentType);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'switchboard-copy-'));
  const file = path.join(dir, `recording.${extension}`);
  try {
    const { through, digest } = measuring();
    await pipeline(recording.body, through, fs.createWriteStream(file, { mode: 0o600 }));
    const { size, sha256 } = digest();
    const ref = { ...base, name: objectNameOf('recording', contentType) };
    await deps.store.put(ref, fs.createReadStream(file), { contentType, sha256 });
    return { ref, size, sha256, contentType };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
