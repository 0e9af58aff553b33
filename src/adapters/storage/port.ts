import type { Readable } from 'node:stream';

/**
 * Where a call's recording and transcript live once they have left the carrier (issue 32): the operator's own
 * storage, behind this port. Two adapters: the filesystem under the data directory (`npm run up`'s default,
 * filesystemStore.ts) and any S3-compatible bucket through the official AWS SDK (s3Store.ts). Which one a
 * process uses is `RECORDINGS_STORE` (src/platform/config.ts); docs/decisions/recordings.md says why.
 *
 * Objects are named by `StoredObjectRef` only, never by a key built elsewhere: `objectKey` is the one layout,
 * so two workspaces or two environments can never meet on a key.
 *
 * Failures are typed (`RecordingStoreError` and its subclasses), and each says whether trying again later can
 * succeed (`retryable`): a store that is down or refuses the credentials delays a copy and never loses it; a
 * missing object or a range outside it is an answer (404, 416 at the HTTP layer), not a fault.
 */

export type StoreEnvironment = 'test' | 'live';

/** One object of one call: `name` is the object's file name within the call (`recording.wav`, `transcript.json`). */
export interface StoredObjectRef {
  workspaceId: string;
  environment: StoreEnvironment;
  callId: string;
  name: string;
}

/** Ids are opaque to the store but must be one path segment: letters, digits, `_` and `-` (ours are UUIDs). */
const ID_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;
/** A file name: lower case, a letter or digit first, no `..`, so no key can step out of its call. */
const OBJECT_NAME = /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;

/**
 * The key layout, in one place: `workspaces/<workspace id>/<environment>/calls/<call id>/<name>`. The workspace
 * first so an operator can list, copy or delete one tenant's objects by prefix (and grant a bucket policy per
 * workspace); the environment next so test and live data never share a prefix.
 */
export function objectKey(ref: StoredObjectRef): string {
  return `${callPrefix(ref)}${ref.name}`;
}

/** The prefix every object of one call sits under (`…/calls/<call id>/`), for deleting a call's objects together. */
export function callPrefix(ref: Omit<StoredObjectRef, 'name'> & { name?: string }): string {
  for (const [field, value] of [
    ['workspaceId', ref.workspaceId],
    ['callId', ref.callId],
  ] as const)
    if (typeof value !== 'string' || !ID_SEGMENT.test(value))
      throw new InvalidObjectRefError(`${field} must be 1-128 letters, digits, _ or -, got ${JSON.stringify(value)}`);
  if (ref.environment !== 'test' && ref.environment !== 'live')
    throw new InvalidObjectRefError(`environment must be test or live, got ${JSON.stringify(ref.environment)}`);
  if (ref.name !== undefined && (ref.name.length > 100 || !OBJECT_NAME.test(ref.name)))
    throw new InvalidObjectRefError(`name must be a lower-case file name (a-z, 0-9, _, -, dots between), got ${JSON.stringify(ref.name)}`);
  return `workspaces/${ref.workspaceId}/${ref.environment}/calls/${ref.callId}/`;
}

/** What the store knows of an object without reading it. */
export interface StoredObjectHead {
  key: string;
  /** Bytes. */
  size: number;
  /** SHA-256 of the whole object, lower-case hex: computed while writing, checked by the store where it can. */
  sha256: string;
  contentType: string;
  /** The server-side encryption the store reports (`AES256`, `aws:kms`); undefined where it has none (the filesystem). */
  serverSideEncryption?: string;
}

/**
 * A byte range, as HTTP's `Range: bytes=…` means it: `start` to `end` inclusive (`end` past the last byte reads to
 * the end; absent: to the end), or the last `suffix` bytes. A range whose first byte is past the object, or a
 * suffix of 0, is `RangeNotSatisfiableError` (HTTP 416).
 */
export type ByteRange = { start: number; end?: number } | { suffix: number };

export interface StoredObjectRead {
  head: StoredObjectHead;
  /** The bytes served, inclusive (`Content-Range: bytes start-end/size`); the whole object when no range was asked. */
  start: number;
  end: number;
  /** The whole object is checked against `head.sha256` as it streams (a mismatch errors the stream); a range is not. */
  body: Readable;
}

export interface PutOptions {
  contentType: string;
  /** When the caller knows the checksum (lower-case hex), the store refuses to keep bytes that do not match it. */
  sha256?: string;
}

export interface RecordingStore {
  /** `filesystem` or `s3`: what `RECORDINGS_STORE` chose. */
  readonly kind: 'filesystem' | 's3';
  /**
   * Writes the whole object, replacing any previous one, and answers what the store then holds. Atomic: a reader
   * sees the old object or the new one, never part of either, and a crash mid-write leaves the old one.
   */
  put(ref: StoredObjectRef, body: Buffer | Readable, options: PutOptions): Promise<StoredObjectHead>;
  /** Reads the object or a range of it; `StoredObjectNotFoundError` when there is none. */
  get(ref: StoredObjectRef, range?: ByteRange): Promise<StoredObjectRead>;
  /** The object's size and checksum; `StoredObjectNotFoundError` when there is none. */
  head(ref: StoredObjectRef): Promise<StoredObjectHead>;
  /** Deletes the object; deleting one that is not there is not an error. */
  delete(ref: StoredObjectRef): Promise<void>;
  /**
   * A URL anyone holding it may GET the object from (with `Range`) for `expiresInSeconds`, where the store can sign
   * one (S3); absent where it cannot (the filesystem: Switchboard serves the bytes itself).
   */
  presignedGetUrl?(ref: StoredObjectRef, options: { expiresInSeconds: number }): Promise<string>;
}

/** Every failure of a store. `retryable`: trying the same request again later can succeed. */
export abstract class RecordingStoreError extends Error {
  abstract readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No object under that ref (HTTP 404). */
export class StoredObjectNotFoundError extends RecordingStoreError {
  readonly retryable = false;
  constructor(readonly key: string) {
    super(`no stored object ${key}`);
  }
}

/** The range asked for starts past the object's end, or is an empty suffix (HTTP 416, `Content-Range: bytes *\/size`). */
export class RangeNotSatisfiableError extends RecordingStoreError {
  readonly retryable = false;
  constructor(
    readonly key: string,
    readonly size: number,
  ) {
    super(`range not satisfiable: ${key} has ${size} bytes`);
  }
}

/**
 * The store refused the credentials (a wrong or revoked key, no permission on the bucket). Retryable: the copy
 * waits, visibly, until the operator fixes them, and loses nothing meanwhile.
 */
export class StoreCredentialsRefusedError extends RecordingStoreError {
  readonly retryable = true;
}

/** The store cannot be reached or answers a server error (down, timed out, throttled, the bucket missing). */
export class StoreUnavailableError extends RecordingStoreError {
  readonly retryable = true;
}

/** The bytes written do not match the checksum given or recorded: nothing was kept; writing again can succeed. */
export class ChecksumMismatchError extends RecordingStoreError {
  readonly retryable = true;
}

/** The store refused the request itself (a bug on our side, not the store's state): retrying cannot help. */
export class StoreRequestRefusedError extends RecordingStoreError {
  readonly retryable = false;
}

/** A ref that is not one of ours (an id with a slash, an unknown environment): a bug in the caller. */
export class InvalidObjectRefError extends RecordingStoreError {
  readonly retryable = false;
}

/**
 * A range against an object of `size` bytes, as inclusive offsets; `RangeNotSatisfiableError` when it selects
 * nothing. Shared by the adapters so both read the same bytes for the same range.
 */
export function resolveRange(key: string, size: number, range: ByteRange | undefined): { start: number; end: number } {
  if (range === undefined) return { start: 0, end: size - 1 };
  checkRange(range);
  if ('suffix' in range) {
    if (range.suffix === 0 || size === 0) throw new RangeNotSatisfiableError(key, size);
    return { start: Math.max(0, size - range.suffix), end: size - 1 };
  }
  if (range.start >= size) throw new RangeNotSatisfiableError(key, size);
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
}

/** A range that is not one (negative, fractional, ending before it starts): `StoreRequestRefusedError`, a caller's bug. */
export function checkRange(range: ByteRange): void {
  const valid =
    'suffix' in range
      ? Number.isInteger(range.suffix) && range.suffix >= 0
      : Number.isInteger(range.start) &&
        range.start >= 0 &&
        (range.end === undefined || (Number.isInteger(range.end) && range.end >= range.start));
  if (!valid)
    throw new StoreRequestRefusedError(`a range must be integers, 0 <= start <= end or a suffix >= 0, got ${JSON.stringify(range)}`);
}

/** `bytes=…` as S3 and HTTP write a range. */
export function rangeHeader(range: ByteRange): string {
  return 'suffix' in range ? `bytes=-${range.suffix}` : `bytes=${range.start}-${range.end ?? ''}`;
}
