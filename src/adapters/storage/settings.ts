import type { Config } from '../../platform/config';
import type { ConfigurationProblem, ProcessRole } from '../../platform/startupCheck';

/**
 * What the recordings store needs of a process (src/adapters/settings.ts lists it for the startup check): with
 * `RECORDINGS_STORE=s3`, the API (which serves recordings) and the worker (which copies them) need `S3_BUCKET`,
 * and `S3_ENDPOINT`, when set, must be an http(s) URL. Credentials come from the AWS SDK's chain (an instance
 * role has none in the environment), so their absence is the store's answer, not a refusal to start.
 */
export function requiredSettings(role: ProcessRole, config: Config): ConfigurationProblem[] {
  const { store, s3 } = config.recordings;
  if (store !== 's3' || (role !== 'api' && role !== 'worker')) return [];
  const problems: ConfigurationProblem[] = [];
  if (!s3.bucket)
    problems.push({ setting: 'S3_BUCKET', message: 'is not set, but RECORDINGS_STORE=s3 keeps recordings and transcripts in that bucket' });
  if (s3.endpoint !== undefined && !/^https?:\/\/[^/]/.test(s3.endpoint))
    problems.push({ setting: 'S3_ENDPOINT', message: `must be an http(s) URL of an S3-compatible server, not "${s3.endpoint}"` });
  return problems;
}
