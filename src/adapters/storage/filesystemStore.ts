import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ChecksumMismatchError,
  objectKey,
  RecordingStoreError,
  resolveRange,
  StoredObjectNotFoundError,
  StoreUnavailableError,
  type ByteRange,
  type PutOptions,
  type RecordingStore,
  type StoredObjectHead,
  type StoredObjectRead,
  type StoredObjectRef,
} from './port';
import { measuring, verifyingSha256 } from './streams';

/**
 * The recordings store on a local filesystem: `npm run up`'s default, under the data directory (`RECORDINGS_DIR`,
 * `.data/recordings`). Each object is a directory named by its key holding the bytes in a file named by their
 * SHA-256 and `head.json` (size, checksum, content type), which points at that file:
 *
 *     <root>/workspaces/<ws>/<env>/calls/<call>/recording.wav/head.json
 *     <root>/workspaces/<ws>/<env>/calls/<call>/recording.wav/<sha256>.bin
 *
 * A write streams into a temporary file under `<root>/.tmp` (same filesystem) while hashing, syncs it, renames it
 * into place, then writes `head.json` the same way: that second rename is the commit, so a reader (or a crash)
 * sees the old object or the new one, never a part. The bytes of a replaced object are removed by a later write of
 * the key once a minute old (`removeUnreferencedBytes`), or with the object. A temporary file a crash left behind (kill -9 mid-write) is
 * removed by the first write of a later process once it is an hour old. Files are 0600 and directories 0700. Not encrypted by
 * Switchboard: docs/decisions/recordings.md ("Encryption at rest") says why the disk's encryption is the answer here.
 */
export class FilesystemRecordingStore implements RecordingStore {
  readonly kind = 'filesystem' as const;
  private readonly tmpDir: string;
  private swept: Promise<void> | undefined;

  constructor(private readonly root: string) {
    this.tmpDir = path.join(root, '.tmp');
  }

  async put(ref: StoredObjectRef, body: Buffer | Readable, options: PutOptions): Promise<StoredObjectHead> {
    const key = objectKey(ref);
    const dir = this.objectDir(key);
    const tmp = path.join(this.tmpDir, `${crypto.randomUUID()}.part`);
    const measure = measuring();
    try {
      await this.mkdirs(this.tmpDir);
      this.swept ??= this.sweepTemporaryFiles(STALE_TEMPORARY_FILE_MS);
      await this.swept;
      // `flush`: the bytes are synced to the disk before the file closes, so the rename below commits written bytes.
      const file = fs.createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true });
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, measure.through, file);
      const { size, sha256 } = measure.digest();
      if (options.sha256 !== undefined && options.sha256.toLowerCase() !== sha256)
        throw new ChecksumMismatchError(`${key}: the bytes written hash to ${sha256}, not the ${options.sha256} given; nothing kept`);
      const head: StoredObjectHead = { key, size, sha256, contentType: options.contentType };
      await this.mkdirs(dir);
      await fsp.rename(tmp, path.join(dir, `${sha256}.bin`));
      await this.writeAtomically(path.join(dir, 'head.json'), JSON.stringify(head));
      await syncDir(dir);
      await this.removeUnreferencedBytes(key, dir);
      return head;
    } catch (err) {
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      throw mapFsError(err, key, 'write');
    }
  }

  async head(ref: StoredObjectRef): Promise<StoredObjectHead> {
    const key = objectKey(ref);
    return this.readHead(key);
  }

  async get(ref: StoredObjectRef, range?: ByteRange): Promise<StoredObjectRead> {
    const key = objectKey(ref);
    const head = await this.readHead(key);
    const { start, end } = resolveRange(key, head.size, range);
    if (head.size === 0) return { head, start, end, body: Readable.from([]) };
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(path.join(this.objectDir(key), `${head.sha256}.bin`), 'r');
    } catch (err) {
      // Replaced between reading head.json and opening its bytes: the reader sees the object as missing, not a mix.
      throw mapFsError(err, key);
    }
    const stream = handle.createReadStream({ start, end, autoClose: true });
    if (range !== undefined) return { head, start, end, body: stream };
    const body = stream.pipe(verifyingSha256(key, head.sha256));
    stream.once('error', (err) => body.destroy(err));
    return { head, start, end, body };
  }

  async delete(ref: StoredObjectRef): Promise<void> {
    const key = objectKey(ref);
    const dir = this.objectDir(key);
    try {
      // head.json first: once it is gone the object is, whatever a crash leaves of its bytes.
      await fsp.rm(path.join(dir, 'head.json'), { force: true });
      await fsp.rm(dir, { recursive: true, force: true });
    } catch (err) {
      throw mapFsError(err, key);
    }
  }

  /**
   * Removes the bytes of replaced objects: files no `head.json` points at (read again now, so a write that committed
   * after this one keeps its bytes) and older than a minute, since a concurrent write of the key renames its bytes
   * into place a moment before it commits. Younger ones go with the next write of the key, or its delete.
   */
  private async removeUnreferencedBytes(key: string, dir: string): Promise<void> {
    const current = await this.readHead(key);
    const cutoff = Date.now() - UNREFERENCED_BYTES_GRACE_MS;
    for (const entry of await fsp.readdir(dir)) {
      if (!entry.endsWith('.bin') || entry === `${current.sha256}.bin`) continue;
      const stat = await fsp.stat(path.join(dir, entry)).catch(() => undefined);
      if (stat && stat.mtimeMs < cutoff) await fsp.rm(path.join(dir, entry), { force: true });
    }
  }

  /** Removes temporary files older than `olderThanMs`: what writes cut short by a crash left (errors ignored). */
  private async sweepTemporaryFiles(olderThanMs: number): Promise<void> {
    const cutoff = Date.now() - olderThanMs;
    for (const entry of await fsp.readdir(this.tmpDir).catch(() => [] as string[])) {
      const file = path.join(this.tmpDir, entry);
      const stat = await fsp.stat(file).catch(() => undefined);
      if (stat && stat.mtimeMs < cutoff) await fsp.rm(file, { force: true }).catch(() => undefined);
    }
  }

  private objectDir(key: string): string {
    return path.join(this.root, ...key.split('/'));
  }

  private async readHead(key: string): Promise<StoredObjectHead> {
    let text: string;
    try {
      text = await fsp.readFile(path.join(this.objectDir(key), 'head.json'), 'utf8');
    } catch (err) {
      throw mapFsError(err, key);
    }
    return JSON.parse(text) as StoredObjectHead;
  }

  private async writeAtomically(file: string, content: string): Promise<void> {
    const tmp = path.join(this.tmpDir, `${crypto.randomUUID()}.part`);
    const handle = await fsp.open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(tmp, file);
  }

  private async mkdirs(dir: string): Promise<void> {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  }
}

/** A temporary file this old belongs to no write in progress: a write streams continuously or fails. */
const STALE_TEMPORARY_FILE_MS = 60 * 60 * 1000;

/** How long a file of bytes no object points at is left alone: a concurrent write may be about to commit it. */
const UNREFERENCED_BYTES_GRACE_MS = 60 * 1000;

/**
 * A file missing on a read is a missing object; anything else (a full disk, a read-only or unmounted volume, a
 * root that is not a directory, any failure of a write) is the store being unavailable.
 */
function mapFsError(err: unknown, key: string, doing: 'read' | 'write' = 'read'): Error {
  if (err instanceof RecordingStoreError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (doing === 'read' && code === 'ENOENT') return new StoredObjectNotFoundError(key);
  return new StoreUnavailableError(`${key}: ${(err as Error).message}`, { cause: err });
}

/** Makes the renames in `dir` durable (a power loss after the answer keeps them); best effort where a platform cannot. */
async function syncDir(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, fs.constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}
