import type { Config } from '../platform/config';
import { requireSetting } from '../platform/config';
import { FilesystemRecordingStore } from '../adapters/storage/filesystemStore';
import type { RecordingStore } from '../adapters/storage/port';
import { S3RecordingStore } from '../adapters/storage/s3Store';

/** The recordings store `RECORDINGS_STORE` names (src/adapters/storage/port.ts), built from the configuration. */
export function recordingStoreFromConfig(config: Pick<Config, 'recordings'>): RecordingStore {
  const { store, dir, s3 } = config.recordings;
  if (store === 'filesystem') return new FilesystemRecordingStore(dir);
  return new S3RecordingStore({
    bucket: requireSetting(s3.bucket, 'S3_BUCKET'),
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    serverSideEncryption: s3.serverSideEncryption,
    kmsKeyId: s3.kmsKeyId,
  });
}
