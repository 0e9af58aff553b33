import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import {
  callPrefix,
  InvalidObjectRefError,
  objectKey,
  RangeNotSatisfiableError,
  resolveRange,
  StoreRequestRefusedError,
} from '../../src/adapters/storage/port';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';
import { requiredSettings } from '../../src/adapters/storage/settings';
import { loadConfig } from '../../src/platform/config';
import { configurationReport } from '../../src/platform/startupCheck';

/** The recordings store's settings (RECORDINGS_STORE, S3_*), its key layout and its range arithmetic (issue 32). */
describe('recordings store settings', () => {
  const dataDir = path.join(os.tmpdir(), `switchboard-no-data-${crypto.randomUUID()}`);
  const load = (env: NodeJS.ProcessEnv) => loadConfig({ SWITCHBOARD_DATA_DIR: dataDir, ...env });

  it('defaults to the filesystem under the data directory, and to SSE-S3 for a bucket', () => {
    expect(load({}).recordings).toEqual({
      store: 'filesystem',
      dir: path.join(dataDir, 'recordings'),
      s3: {
        bucket: undefined,
        endpoint: undefined,
        region: 'us-east-1',
        forcePathStyle: false,
        serverSideEncryption: 'AES256',
        kmsKeyId: undefined,
      },
    });
  });

  it('reads an S3-compatible bucket: path-style by default with an endpoint, SSE-KMS when a key id is given', () => {
    const config = load({
      RECORDINGS_STORE: 's3',
      S3_BUCKET: 'calls',
      S3_ENDPOINT: 'http://minio:9000',
      AWS_REGION: 'eu-west-1',
      S3_SSE_KMS_KEY_ID: 'alias/recordings',
    });
    expect(config.recordings.s3).toEqual({
      bucket: 'calls',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      serverSideEncryption: 'aws:kms',
      kmsKeyId: 'alias/recordings',
    });
    expect(load({ S3_ENDPOINT: 'http://r2', S3_FORCE_PATH_STYLE: 'false', S3_REGION: 'auto' }).recordings.s3).toMatchObject({
      forcePathStyle: false,
      region: 'auto',
    });
  });

  it('refuses a store, an encryption or a combination it does not know, naming the setting', () => {
    expect(() => load({ RECORDINGS_STORE: 'gcs' })).toThrow(/RECORDINGS_STORE must be one of filesystem, s3/);
    expect(() => load({ S3_SSE: 'aes256' })).toThrow(/S3_SSE must be one of AES256, aws:kms, none/);
    expect(() => load({ S3_SSE: 'AES256', S3_SSE_KMS_KEY_ID: 'k' })).toThrow(/S3_SSE_KMS_KEY_ID/);
    expect(() => load({ S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE must be true or false/);
  });

  it('has the API and the worker refuse to start on S3 without a bucket or with an endpoint that is not a URL', () => {
    const config = load({ RECORDINGS_STORE: 's3', S3_ENDPOINT: 'minio:9000' });
    for (const role of ['api', 'worker'] as const)
      expect(requiredSettings(role, config).map((p) => p.setting)).toEqual(['S3_BUCKET', 'S3_ENDPOINT']);
    expect(requiredSettings('simulator', config)).toEqual([]);
    expect(requiredSettings('api', load({ RECORDINGS_STORE: 's3', S3_BUCKET: 'calls' }))).toEqual([]);
  });

  it('is what the startup check of every process runs (PROVIDER_SETTINGS)', () => {
    const settingsOf = (env: NodeJS.ProcessEnv) =>
      configurationReport('worker', load(env), PROVIDER_SETTINGS).problems.map((p) => p.setting);
    expect(settingsOf({ RECORDINGS_STORE: 's3' })).toContain('S3_BUCKET');
    expect(settingsOf({ RECORDINGS_STORE: 's3', S3_BUCKET: 'calls' })).not.toContain('S3_BUCKET');
  });
});

describe('recordings store key layout', () => {
  const ref = {
    workspaceId: '6f1c0e8e-0000-4000-8000-000000000001',
    environment: 'live' as const,
    callId: '6f1c0e8e-0000-4000-8000-000000000002',
  };

  it('puts an object under its workspace, then its environment, then its call', () => {
    expect(objectKey({ ...ref, name: 'recording.wav' })).toBe(`workspaces/${ref.workspaceId}/live/calls/${ref.callId}/recording.wav`);
    expect(callPrefix(ref)).toBe(`workspaces/${ref.workspaceId}/live/calls/${ref.callId}/`);
  });

  it('refuses segments that could leave their place', () => {
    for (const bad of [
      { workspaceId: '' },
      { workspaceId: 'a/b' },
      { callId: '..' },
      { name: '.hidden' },
      { name: 'a..b' },
      { name: 'Recording.wav' },
    ])
      expect(() => objectKey({ ...ref, name: 'recording.wav', ...bad })).toThrow(InvalidObjectRefError);
  });
});

describe('byte ranges', () => {
  it('reads as HTTP Range does: inclusive, clamped at the end, suffixes from the end', () => {
    expect(resolveRange('k', 100, undefined)).toEqual({ start: 0, end: 99 });
    expect(resolveRange('k', 100, { start: 10, end: 19 })).toEqual({ start: 10, end: 19 });
    expect(resolveRange('k', 100, { start: 90, end: 500 })).toEqual({ start: 90, end: 99 });
    expect(resolveRange('k', 100, { suffix: 30 })).toEqual({ start: 70, end: 99 });
    expect(resolveRange('k', 100, { suffix: 300 })).toEqual({ start: 0, end: 99 });
  });

  it('answers 416 for a range past the end or an empty suffix, and refuses a malformed one', () => {
    for (const range of [{ start: 100 }, { suffix: 0 }]) expect(() => resolveRange('k', 100, range)).toThrow(RangeNotSatisfiableError);
    expect(() => resolveRange('k', 0, { start: 0 })).toThrow(RangeNotSatisfiableError);
    for (const range of [{ start: -1 }, { start: 5, end: 4 }, { start: 1.5 }, { suffix: -2 }])
      expect(() => resolveRange('k', 100, range)).toThrow(StoreRequestRefusedError);
  });
});
