import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { FilesystemRecordingStore } from '../../src/adapters/storage/filesystemStore';
import {
  ChecksumMismatchError,
  InvalidObjectRefError,
  objectKey,
  RangeNotSatisfiableError,
  StoreCredentialsRefusedError,
  StoredObjectNotFoundError,
  StoreUnavailableError,
  type RecordingStore,
  type StoredObjectRef,
} from '../../src/adapters/storage/port';
import { S3RecordingStore, type S3StoreOptions } from '../../src/adapters/storage/s3Store';
import { freePort } from '../../src/platform/net/freePort';
import { useS3Server } from '../support/s3Server';

/**
 * The recordings store's contract (src/adapters/storage/port.ts), held by both adapters: the filesystem under a
 * directory of this file's, and the S3 store against a real S3-compatible server (moto's, checking every
 * request's signature; test/support/s3Server.ts), never a mock of the SDK.
 */
const s3Server = useS3Server({ authenticate: true });
const fsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-recordings-'));
afterAll(() => fs.rmSync(fsRoot, { recursive: true, force: true }));

function s3Options(overrides: Partial<S3StoreOptions> = {}, server = s3Server()): S3StoreOptions {
  return {
    bucket: server.bucket,
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    serverSideEncryption: 'AES256',
    credentials: server.credentials,
    ...overrides,
  };
}

const stores: Array<[string, () => RecordingStore]> = [
  ['filesystem', () => new FilesystemRecordingStore(fsRoot)],
  ['s3', () => new S3RecordingStore(s3Options())],
];

function ref(overrides: Partial<StoredObjectRef> = {}): StoredObjectRef {
  return { workspaceId: crypto.randomUUID(), environment: 'test', callId: crypto.randomUUID(), name: 'recording.wav', ...overrides };
}

function sha256(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

async function readAll(stream: Readable): Promise<Buffer> {
  return Buffer.concat(await stream.toArray());
}

describe.each(stores)('the %s recording store', (_kind, makeStore) => {
  let store: RecordingStore;
  beforeAll(() => {
    store = makeStore();
  });
  /** 300 KiB: several chunks of every stream on the way. */
  const audio = crypto.randomBytes(300 * 1024);

  it('keeps an object whole: its size and SHA-256 on put and head, the same bytes on get', async () => {
    const at = ref();
    const put = await store.put(at, audio, { contentType: 'audio/wav' });
    expect(put).toMatchObject({ key: objectKey(at), size: audio.length, sha256: sha256(audio), contentType: 'audio/wav' });
    await expect(store.head(at)).resolves.toMatchObject({ size: audio.length, sha256: sha256(audio), contentType: 'audio/wav' });
    const read = await store.get(at);
    expect({ start: read.start, end: read.end }).toEqual({ start: 0, end: audio.length - 1 });
    expect((await readAll(read.body)).equals(audio)).toBe(true);
  });

  it('takes a stream as well as a buffer, and keeps nothing when the bytes do not match the checksum given', async () => {
    const at = ref({ name: 'transcript.json' });
    const transcript = Buffer.from(JSON.stringify({ turns: [{ speaker: 'caller', text: 'hello' }] }));
    await expect(
      store.put(at, Readable.from([transcript.subarray(0, 10), transcript.subarray(10)]), {
        contentType: 'application/json',
        sha256: sha256(transcript),
      }),
    ).resolves.toMatchObject({ size: transcript.length });
    expect((await readAll((await store.get(at)).body)).toString()).toBe(transcript.toString());

    const other = ref();
    const refused = await store
      .put(other, audio, { contentType: 'audio/wav', sha256: sha256(Buffer.from('other bytes')) })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChecksumMismatchError);
    await expect(store.head(other)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
  });

  it('reads ranges: the first bytes, the middle, a suffix, and a range running past the end', async () => {
    const at = ref();
    await store.put(at, audio, { contentType: 'audio/wav' });
    const cases = [
      { range: { start: 0, end: 99 }, from: 0, to: 99 },
      { range: { start: 150_000, end: 150_999 }, from: 150_000, to: 150_999 },
      { range: { suffix: 1000 }, from: audio.length - 1000, to: audio.length - 1 },
      { range: { start: audio.length - 10, end: audio.length + 500 }, from: audio.length - 10, to: audio.length - 1 },
      { range: { start: 200_000 }, from: 200_000, to: audio.length - 1 },
    ];
    for (const { range, from, to } of cases) {
      const read = await store.get(at, range);
      expect({ range, start: read.start, end: read.end, size: read.head.size }).toEqual({
        range,
        start: from,
        end: to,
        size: audio.length,
      });
      expect((await readAll(read.body)).equals(audio.subarray(from, to + 1))).toBe(true);
    }
  });

  it('refuses a range outside the object with RangeNotSatisfiableError carrying the size (HTTP 416)', async () => {
    const at = ref();
    await store.put(at, audio, { contentType: 'audio/wav' });
    for (const range of [{ start: audio.length }, { start: audio.length + 10, end: audio.length + 20 }, { suffix: 0 }]) {
      const err = await store.get(at, range).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RangeNotSatisfiableError);
      expect(err).toMatchObject({ size: audio.length, retryable: false });
    }
  });

  it('answers StoredObjectNotFoundError for an object never written, and after a delete; deleting twice is fine', async () => {
    const at = ref();
    for (const attempt of [store.get(at), store.head(at), store.get(at, { start: 0, end: 1 })])
      await expect(attempt).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    await store.put(at, audio, { contentType: 'audio/wav' });
    await store.delete(at);
    await expect(store.head(at)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    await expect(store.get(at)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    await expect(store.delete(at)).resolves.toBeUndefined();
  });

  it('replaces an object whole', async () => {
    const at = ref();
    await store.put(at, audio, { contentType: 'audio/wav' });
    const second = crypto.randomBytes(1000);
    await store.put(at, second, { contentType: 'audio/mpeg' });
    await expect(store.head(at)).resolves.toMatchObject({ size: 1000, sha256: sha256(second), contentType: 'audio/mpeg' });
    expect((await readAll((await store.get(at)).body)).equals(second)).toBe(true);
  });

  it('never lets two workspaces or two environments meet on a call id and name', async () => {
    const callId = crypto.randomUUID();
    const [first, second] = [crypto.randomUUID(), crypto.randomUUID()];
    const refs = [
      ref({ workspaceId: first, environment: 'test', callId }),
      ref({ workspaceId: first, environment: 'live', callId }),
      ref({ workspaceId: second, environment: 'test', callId }),
      ref({ workspaceId: second, environment: 'live', callId }),
    ];
    expect(new Set(refs.map(objectKey)).size).toBe(4);
    const bodies = refs.map((_, i) => Buffer.from(`object ${i} `.repeat(100)));
    await Promise.all(refs.map((at, i) => store.put(at, bodies[i], { contentType: 'audio/wav' })));
    for (const [i, at] of refs.entries()) expect((await readAll((await store.get(at)).body)).equals(bodies[i])).toBe(true);
    await store.delete(refs[0]);
    await expect(store.head(refs[0])).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    for (const at of refs.slice(1)) await expect(store.head(at)).resolves.toMatchObject({ size: bodies[1].length });
  });

  it('refuses a ref that could step out of its call', async () => {
    for (const bad of [{ workspaceId: '../other' }, { callId: 'a/b' }, { name: '../head.json' }, { name: 'x/..' }, { environment: 'prod' }])
      await expect(store.put(ref(bad as Partial<StoredObjectRef>), audio, { contentType: 'audio/wav' })).rejects.toBeInstanceOf(
        InvalidObjectRefError,
      );
  });
});

describe('the S3 recording store against the server', () => {
  const audio = crypto.randomBytes(64 * 1024);

  it('asks for SSE-S3 by default and SSE-KMS with a key id: the server reports each on head', async () => {
    const aes = new S3RecordingStore(s3Options());
    const at = ref();
    await expect(aes.put(at, audio, { contentType: 'audio/wav' })).resolves.toMatchObject({ serverSideEncryption: 'AES256' });
    await expect(aes.head(at)).resolves.toMatchObject({ serverSideEncryption: 'AES256' });
    const kms = new S3RecordingStore(s3Options({ serverSideEncryption: 'aws:kms', kmsKeyId: 'switchboard-recordings-key' }));
    const kmsAt = ref();
    await kms.put(kmsAt, audio, { contentType: 'audio/wav' });
    await expect(kms.head(kmsAt)).resolves.toMatchObject({ serverSideEncryption: 'aws:kms', sha256: sha256(audio) });
    const none = new S3RecordingStore(s3Options({ serverSideEncryption: 'none' }));
    const plainAt = ref();
    await none.put(plainAt, audio, { contentType: 'audio/wav' });
    expect((await none.head(plainAt)).serverSideEncryption).toBeUndefined();
  });

  it('maps refused credentials to StoreCredentialsRefusedError (retryable), and writes nothing', async () => {
    const wrong = new S3RecordingStore(
      s3Options({ credentials: { ...s3Server().credentials, secretAccessKey: 'not-the-secret' }, maxAttempts: 1 }),
    );
    const at = ref();
    const err = await wrong.put(at, audio, { contentType: 'audio/wav' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreCredentialsRefusedError);
    expect(err).toMatchObject({ retryable: true });
    await expect(new S3RecordingStore(s3Options()).head(at)).rejects.toBeInstanceOf(StoredObjectNotFoundError);
    // Reads too, head (no body to name the error) included.
    await expect(wrong.head(at)).rejects.toBeInstanceOf(StoreCredentialsRefusedError);
    const unknownKey = new S3RecordingStore(
      s3Options({ credentials: { accessKeyId: 'AKIANOSUCHKEY0000000', secretAccessKey: 'x' }, maxAttempts: 1 }),
    );
    await expect(unknownKey.get(at)).rejects.toBeInstanceOf(StoreCredentialsRefusedError);
  });

  it('maps a store that cannot be reached to StoreUnavailableError (retryable), soon', async () => {
    const down = new S3RecordingStore(
      s3Options({ endpoint: `http://127.0.0.1:${await freePort()}`, maxAttempts: 2, connectionTimeoutMs: 1_000 }),
    );
    for (const attempt of [() => down.put(ref(), audio, { contentType: 'audio/wav' }), () => down.head(ref()), () => down.get(ref())]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(err).toMatchObject({ retryable: true });
    }
  });

  it('maps a bucket that does not exist to StoreUnavailableError naming it', async () => {
    const noBucket = new S3RecordingStore(s3Options({ bucket: 'no-such-bucket-here', maxAttempts: 1 }));
    await expect(noBucket.put(ref(), audio, { contentType: 'audio/wav' })).rejects.toThrow(/bucket no-such-bucket-here does not exist/);
  });
});

describe('presigned GET URLs of the S3 store', () => {
  // moto checks no signature of a presigned URL and serves none while it checks headers' (dev/infra/s3Server.ts):
  // this server runs without authentication, so what is held here is the URL's shape and what it serves.
  const openServer = useS3Server({ authenticate: false });

  it('serves the object, and its ranges, to whoever holds the URL until it expires', async () => {
    const server = openServer();
    const store = new S3RecordingStore(s3Options({}, server));
    const at = ref();
    const audio = crypto.randomBytes(10_000);
    await store.put(at, audio, { contentType: 'audio/wav' });
    const url = new URL(await store.presignedGetUrl(at, { expiresInSeconds: 300 }));
    expect(url.pathname).toBe(`/${server.bucket}/${objectKey(at)}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(audio)).toBe(true);
    const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${audio.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(audio.subarray(100, 200))).toBe(true);
  });

  it('is offered by the S3 store only: the filesystem store serves its bytes through Switchboard', () => {
    const store: RecordingStore = new FilesystemRecordingStore(fsRoot);
    expect(store.presignedGetUrl).toBeUndefined();
  });
});

describe('the filesystem recording store on disk', () => {
  const store = new FilesystemRecordingStore(fsRoot);

  it('keeps files readable by its own user only, and no temporary file after a write', async () => {
    const at = ref();
    await store.put(at, crypto.randomBytes(5000), { contentType: 'audio/wav' });
    const dir = path.join(fsRoot, ...objectKey(at).split('/'));
    for (const entry of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, entry)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.join(fsRoot, '.tmp'))).toEqual([]);
  });

  it('keeps the previous object when a write fails midway, and leaves no temporary file', async () => {
    const at = ref();
    const first = crypto.randomBytes(5000);
    await store.put(at, first, { contentType: 'audio/wav' });
    const failing = new Readable({
      read() {
        this.push(crypto.randomBytes(1000));
        this.destroy(new Error('carrier connection reset'));
      },
    });
    await expect(store.put(at, failing, { contentType: 'audio/wav' })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await readAll((await store.get(at)).body)).equals(first)).toBe(true);
    expect(fs.readdirSync(path.join(fsRoot, '.tmp'))).toEqual([]);
  });

  it('errors a whole read whose bytes no longer match their checksum', async () => {
    const at = ref();
    const bytes = crypto.randomBytes(5000);
    const head = await store.put(at, bytes, { contentType: 'audio/wav' });
    const file = path.join(fsRoot, ...objectKey(at).split('/'), `${head.sha256}.bin`);
    const corrupted = Buffer.from(bytes);
    corrupted[1234] ^= 0xff;
    fs.writeFileSync(file, corrupted);
    await expect(readAll((await store.get(at)).body)).rejects.toBeInstanceOf(ChecksumMismatchError);
  });

  it('removes what a crashed write left in its temporary directory once it is an hour old', async () => {
    const tmpDir = path.join(fsRoot, '.tmp');
    fs.mkdirSync(tmpDir, { recursive: true });
    const [stale, fresh] = [path.join(tmpDir, 'crashed.part'), path.join(tmpDir, 'in-progress.part')];
    fs.writeFileSync(stale, 'half a recording');
    fs.writeFileSync(fresh, 'a write in progress');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);
    // A new process's store: its first write sweeps.
    await new FilesystemRecordingStore(fsRoot).put(ref(), Buffer.from('x'), { contentType: 'audio/wav' });
    expect(fs.readdirSync(tmpDir)).toEqual(['in-progress.part']);
    fs.rmSync(fresh);
  });

  it("removes a replaced object's bytes once they are a minute old", async () => {
    const at = ref();
    const first = await store.put(at, crypto.randomBytes(3000), { contentType: 'audio/wav' });
    const dir = path.join(fsRoot, ...objectKey(at).split('/'));
    const twoMinutesAgo = new Date(Date.now() - 2 * 60 * 1000);
    fs.utimesSync(path.join(dir, `${first.sha256}.bin`), twoMinutesAgo, twoMinutesAgo);
    const second = await store.put(at, crypto.randomBytes(3000), { contentType: 'audio/wav' });
    expect(fs.readdirSync(dir).sort()).toEqual([`${second.sha256}.bin`, 'head.json']);
  });

  it('ends concurrent writes of one object with one of them whole, its head and bytes agreeing', async () => {
    const at = ref();
    const bodies = Array.from({ length: 6 }, () => crypto.randomBytes(20_000));
    await Promise.all(bodies.map((body) => store.put(at, body, { contentType: 'audio/wav' })));
    const read = await store.get(at);
    const bytes = await readAll(read.body);
    expect(sha256(bytes)).toBe(read.head.sha256);
    expect(bodies.some((body) => body.equals(bytes))).toBe(true);
    // The replaced objects' bytes are younger than a minute: left for a later write of the key, or its delete.
    await store.delete(at);
    expect(fs.existsSync(path.join(fsRoot, ...objectKey(at).split('/')))).toBe(false);
  });

  it('maps a root it cannot write under to StoreUnavailableError', async () => {
    const notADirectory = path.join(fsRoot, 'a-file');
    fs.writeFileSync(notADirectory, 'x');
    const err = await new FilesystemRecordingStore(notADirectory)
      .put(ref(), Buffer.from('x'), { contentType: 'audio/wav' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
  });
});
