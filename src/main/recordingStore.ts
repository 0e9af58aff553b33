import type { Config } from '../platform/config';
import { requireSetting } from '../platform/config';
import { FilesystemRecordingStore } from '../adapters/storage/filesystemStore';
import type { RecordingStore } from '../adapters/storage/port';

/**
 * The recordings store `RECORDINGS_STORE` names (src/adapters/storage/port.ts), built from the configuration. The S3
 * store (and the AWS SDK it brings, about 60 ms to load) is loaded only when it is the one named.
 */
export function recordingStoreFromConfig(config: Pick<Config, 'recordings'>): RecordingStore {
  const { store, dir, s3 } = config.recordings;
  if (store === 'filesystem') return new FilesystemRecordingStore(dir);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
  const { S3RecordingStore } = require('../adapters/storage/s3Store') as typeof import('../adapters/storage/s3Store');
  return new S3RecordingStore({
    bucket: requireSetting(s3.bucket, 'S3_BUCKET'),
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    serverSideEncryption: s3.serverSideEncryption,
    kmsKeyId: s3.kmsKeyId,
  });
}
