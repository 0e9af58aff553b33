import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3ServerSideEncryption } from '../../platform/config';
import {
  ChecksumMismatchError,
  objectKey,
  RangeNotSatisfiableError,
  rangeHeader,
  RecordingStoreError,
  checkRange,
  StoreCredentialsRefusedError,
  StoredObjectNotFoundError,
  StoreRequestRefusedError,
  StoreUnavailableError,
  type ByteRange,
  type PutOptions,
  type RecordingStore,
  type StoredObjectHead,
  type StoredObjectRead,
  type StoredObjectRef,
} from './port';
import { measuring, verifyingSha256 } from './streams';

export interface S3StoreOptions {
  bucket: string;
  /** An S3-compatible endpoint (MinIO, SeaweedFS, R2, a test server); unset: AWS S3 of `region`. */
  endpoint?: string;
  region: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need; AWS takes virtual-host style. */
  forcePathStyle: boolean;
  /** Asked of the store with every write: SSE-S3 (`AES256`), SSE-KMS (`aws:kms`), or none (`S3_SSE`). */
  serverSideEncryption: S3ServerSideEncryption;
  /** The KMS key of SSE-KMS (`aws:kms`); unset: the bucket's or the account's default key. */
  kmsKeyId?: string;
  /** Explicit credentials (tests); unset: the AWS SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, a profile, an instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Attempts of one request, the SDK's own retries of throttling and server errors included (the SDK's default: 3). */
  maxAttempts?: number;
  /** Ceiling on connecting to the endpoint, so a store that is down answers StoreUnavailableError soon (5 s). */
  connectionTimeoutMs?: number;
  /** Ceiling on a request's silence once connected (60 s). */
  requestTimeoutMs?: number;
  /** Where a streamed body is spooled to learn its size and checksum before it is sent (the OS's temporary directory). */
  spoolDir?: string;
}

/** Metadata key carrying the object's SHA-256 in hex (`x-amz-meta-sha256`): read back by every S3-compatible store. */
const SHA256_METADATA = 'sha256';

/**
 * The recordings store on an S3-compatible bucket, through the official AWS SDK v3 client.
 *
 * Every write sends the body's SHA-256 as `x-amz-checksum-sha256`, which S3 verifies (BadDigest: nothing is
 * stored), and keeps it as `x-amz-meta-sha256` too for stores that do not keep checksums; it asks for the
 * configured server-side encryption (`AES256` by default). A PutObject is atomic on S3: readers see the old
 * object or the new one. The SDK's automatic CRC checksums are off (`WHEN_REQUIRED`): several S3-compatible
 * servers refuse their chunked trailers, and the explicit SHA-256 covers the same ground.
 */
export class S3RecordingStore implements RecordingStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly options: S3StoreOptions) {
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      maxAttempts: options.maxAttempts,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: options.connectionTimeoutMs ?? 5_000, requestTimeout: options.requestTimeoutMs ?? 60_000 },
    });
  }

  async put(ref: StoredObjectRef, body: Buffer | Readable, options: PutOptions): Promise<StoredObjectHead> {
    const key = objectKey(ref);
    const spooled = Buffer.isBuffer(body) ? undefined : await spool(body, this.options.spoolDir ?? os.tmpdir());
    try {
      const sha256 =
        spooled?.sha256 ??
        crypto
          .createHash('sha256')
          .update(body as Buffer)
          .digest('hex');
      const size = spooled?.size ?? (body as Buffer).length;
      if (options.sha256 !== undefined && options.sha256.toLowerCase() !== sha256)
        throw new ChecksumMismatchError(`${key}: the bytes hash to ${sha256}, not the ${options.sha256} given; nothing sent`);
      const input: PutObjectCommandInput = {
        Bucket: this.options.bucket,
        Key: key,
        Body: spooled ? fs.createReadStream(spooled.file) : (body as Buffer),
        ContentLength: size,
        ContentType: options.contentType,
        ChecksumAlgorithm: 'SHA256',
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
        Metadata: { [SHA256_METADATA]: sha256 },
        ...this.encryption(),
      };
      const answer = await this.send(key, () => this.client.send(new PutObjectCommand(input)));
      return {
        key,
        size,
        sha256,
        contentType: options.contentType,
        serverSideEncryption: answer.ServerSideEncryption,
      };
    } finally {
      if (spooled) await fsp.rm(spooled.file, { force: true });
    }
  }

  async head(ref: StoredObjectRef): Promise<StoredObjectHead> {
    const key = objectKey(ref);
    const answer = await this.send(key, () =>
      this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key, ChecksumMode: 'ENABLED' })),
    );
    return headOf(key, answer);
  }

  async get(ref: StoredObjectRef, range?: ByteRange): Promise<StoredObjectRead> {
    const key = objectKey(ref);
    if (range !== undefined) checkRange(range);
    const answer = await this.send(key, () =>
      this.client.send(
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: key,
          Range: range === undefined ? undefined : rangeHeader(range),
          ChecksumMode: range === undefined ? 'ENABLED' : undefined,
        }),
      ),
    );
    const stream = answer.Body as Readable;
    const served = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(answer.ContentRange ?? '');
    if (range !== undefined && !served) {
      stream.destroy();
      throw new StoreRequestRefusedError(`${key}: the S3 store ignored the range ${rangeHeader(range)} (no Content-Range in its answer)`);
    }
    const size = served ? Number(served[3]) : (answer.ContentLength ?? 0);
    const head = headOf(key, { ...answer, ContentLength: size });
    if (served) return { head, start: Number(served[1]), end: Number(served[2]), body: stream };
    const body = stream.pipe(verifyingSha256(key, head.sha256));
    stream.once('error', (err) => body.destroy(err));
    return { head, start: 0, end: size - 1, body };
  }

  async delete(ref: StoredObjectRef): Promise<void> {
    const key = objectKey(ref);
    await this.send(key, () => this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key })));
  }

  async presignedGetUrl(ref: StoredObjectRef, options: { expiresInSeconds: number }): Promise<string> {
    const key = objectKey(ref);
    return this.send(key, () =>
      getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.options.bucket, Key: key }), { expiresIn: options.expiresInSeconds }),
    );
  }

  /** Closes the client's connections. */
  destroy(): void {
    this.client.destroy();
  }

  private encryption(): Pick<PutObjectCommandInput, 'ServerSideEncryption' | 'SSEKMSKeyId'> {
    const { serverSideEncryption, kmsKeyId } = this.options;
    if (serverSideEncryption === 'none') return {};
    if (serverSideEncryption === 'aws:kms') return { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: kmsKeyId };
    return { ServerSideEncryption: 'AES256' };
  }

  private async send<T>(key: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw await this.mapError(err, key);
    }
  }

  /** The store's answer as the port's typed errors (port.ts says which are retryable). */
  private async mapError(err: unknown, key: string): Promise<Error> {
    if (err instanceof RecordingStoreError) return err;
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const name = (err as Error).name;
    const message = `${key}: ${name}: ${(err as Error).message}`;
    if (status === undefined || !(err instanceof S3ServiceException))
      // No answer: refused connection, unknown host, timeout, connection reset.
      return new StoreUnavailableError(`the S3 store at ${this.options.endpoint ?? 'AWS'} cannot be reached: ${message}`, { cause: err });
    if (status === 404 && name === 'NoSuchBucket')
      return new StoreUnavailableError(`the bucket ${this.options.bucket} does not exist: ${message}`, { cause: err });
    if (status === 404) return new StoredObjectNotFoundError(key);
    if (status === 416) {
      const size = Number((err as { ActualObjectSize?: string }).ActualObjectSize);
      return new RangeNotSatisfiableError(key, Number.isInteger(size) ? size : (await this.head({ ...refOfKey(key) })).size);
    }
    if (status === 401 || status === 403)
      return new StoreCredentialsRefusedError(`the S3 store refused the credentials: ${message}`, { cause: err });
    if (name === 'BadDigest' || name === 'XAmzContentSHA256Mismatch' || name === 'InvalidDigest')
      return new ChecksumMismatchError(`the S3 store refused the bytes' checksum: ${message}`, { cause: err });
    if (status === 408 || status === 429 || status >= 500)
      return new StoreUnavailableError(`the S3 store answered ${status}: ${message}`, { cause: err });
    return new StoreRequestRefusedError(`the S3 store refused the request (${status}): ${message}`, { cause: err });
  }
}

/** A ref back from its key (`workspaces/<ws>/<env>/calls/<call>/<name>`), for the one follow-up request errors make. */
function refOfKey(key: string): StoredObjectRef {
  const [, workspaceId, environment, , callId, name] = key.split('/');
  return { workspaceId, environment: environment as StoredObjectRef['environment'], callId, name };
}

function headOf(
  key: string,
  answer: {
    ContentLength?: number;
    ContentType?: string;
    Metadata?: Record<string, string>;
    ChecksumSHA256?: string;
    ServerSideEncryption?: string;
  },
): StoredObjectHead {
  const fromChecksum =
    answer.ChecksumSHA256 && !answer.ChecksumSHA256.includes('-')
      ? Buffer.from(answer.ChecksumSHA256, 'base64').toString('hex')
      : undefined;
  return {
    key,
    size: answer.ContentLength ?? 0,
    sha256: answer.Metadata?.[SHA256_METADATA] ?? fromChecksum ?? '',
    contentType: answer.ContentType ?? 'application/octet-stream',
    serverSideEncryption: answer.ServerSideEncryption,
  };
}

/** Writes a stream to a temporary file, hashing and counting it, so it can be sent with its length and checksum. */
async function spool(body: Readable, dir: string): Promise<{ file: string; size: number; sha256: string }> {
  const file = path.join(dir, `switchboard-s3-${crypto.randomUUID()}.part`);
  const measure = measuring();
  try {
    await pipeline(body, measure.through, fs.createWriteStream(file, { mode: 0o600, flags: 'wx' }));
  } catch (err) {
    await fsp.rm(file, { force: true });
    throw err;
  }
  return { file, ...measure.digest() };
}
