import { spawnSync, type ChildProcess } from 'node:child_process';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { isExecutable, spawnLogged, stopProcess, waitForPort } from './proc';
import { pipInstall, venvBin, type Log } from './toolVenv';
import { freePort } from '../../src/platform/net/freePort';

/**
 * A real S3-compatible server for the recordings store's tests: moto's server (PyPI `moto[server]`), chosen in
 * docs/decisions/recordings.md ("The S3-compatible server of the tests"). Found or installed like the other
 * PyPI tools: `MOTO_SERVER` (a path), the tool cache's own virtualenv for it (`venv-moto`, outside the clone:
 * its Flask and boto pins never meet schemathesis's), then PyPI into that virtualenv (about 30 s, once).
 */
export const MOTO_VERSION = '5.2.5';
export const MOTO_SERVER_WHEEL = `moto[server]==${MOTO_VERSION}`;
const MOTO_VENV = 'venv-moto';

function installedMotoVersion(toolCacheDir: string): string | undefined {
  const python = venvBin(toolCacheDir, 'python', MOTO_VENV);
  if (!isExecutable(python)) return undefined;
  const result = spawnSync(python, ['-c', "import importlib.metadata as m; print(m.version('moto'))"], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

export function ensureMotoServer(toolCacheDir: string, log: Log): string {
  const fromEnv = process.env.MOTO_SERVER;
  if (fromEnv && isExecutable(fromEnv)) return fromEnv;
  const cached = venvBin(toolCacheDir, 'moto_server', MOTO_VENV);
  if (isExecutable(cached) && installedMotoVersion(toolCacheDir) === MOTO_VERSION) return cached;
  if (pipInstall(toolCacheDir, MOTO_SERVER_WHEEL, log, MOTO_VENV) && isExecutable(cached)) return cached;
  throw new Error(
    `moto's S3 server is not installed and could not be installed: run \`${venvBin(toolCacheDir, 'pip', MOTO_VENV)} install '${MOTO_SERVER_WHEEL}'\`, or set MOTO_SERVER to its moto_server.`,
  );
}

export interface S3TestServer {
  /** `S3_ENDPOINT`: path-style, plain HTTP on loopback. */
  endpoint: string;
  region: string;
  /** A bucket created at start. */
  bucket: string;
  /** The credentials the server accepts (with `authenticate`, the only ones: any other key or secret is refused). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  process: ChildProcess;
  stop(): Promise<void>;
}

/** IAM calls made before authentication starts: CreateUser, PutUserPolicy, CreateAccessKey (see `startS3Server`). */
const UNAUTHENTICATED_SETUP_REQUESTS = 3;

/**
 * Starts moto's server on a free loopback port with one bucket. `authenticate: true` makes it check every request's
 * SigV4 signature against its IAM users (moto's `INITIAL_NO_AUTH_ACTION_COUNT`: the first requests pass unchecked,
 * and are spent creating the one user, its S3 policy and its access key), so a wrong secret is refused as AWS
 * refuses it. moto then cannot serve presigned URLs (it reads only the Authorization header): tests of those start
 * a server without `authenticate`, which serves them but checks no signature.
 */
export async function startS3Server(opts: {
  executable: string;
  logFile: string;
  authenticate: boolean;
  bucket?: string;
}): Promise<S3TestServer> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  const bucket = opts.bucket ?? 'switchboard-recordings';
  const child = spawnLogged(opts.executable, ['-H', '127.0.0.1', '-p', String(port)], opts.logFile, {
    env: { ...process.env, ...(opts.authenticate ? { INITIAL_NO_AUTH_ACTION_COUNT: String(UNAUTHENTICATED_SETUP_REQUESTS) } : {}) },
  });
  try {
    await waitForPort('127.0.0.1', port, 60_000, child);
    const credentials = opts.authenticate
      ? await createIamUser(endpoint)
      : { accessKeyId: 'AKIDTESTNOAUTH', secretAccessKey: 'not-checked' };
    const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials });
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    } finally {
      client.destroy();
    }
    return { endpoint, region, bucket, credentials, process: child, stop: () => stopProcess(child) };
  } catch (err) {
    await stopProcess(child);
    throw err;
  }
}

/** A user allowed `s3:*` and its access key, through moto's IAM query API (in the unauthenticated window). */
async function createIamUser(endpoint: string): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  const iam = async (params: Record<string, string>): Promise<string> => {
    const response = await fetch(endpoint, {
      method: 'POST',
      // moto routes by the credential scope's service; the signature is not checked in the setup window.
      headers: {
        authorization: 'AWS4-HMAC-SHA256 Credential=AKIDSETUP/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ ...params, Version: '2010-05-08' }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`moto IAM ${params.Action} answered ${response.status}: ${text.slice(0, 500)}`);
    return text;
  };
  const userName = 'switchboard-recordings';
  await iam({ Action: 'CreateUser', UserName: userName });
  await iam({
    Action: 'PutUserPolicy',
    UserName: userName,
    PolicyName: 's3',
    PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] }),
  });
  const key = await iam({ Action: 'CreateAccessKey', UserName: userName });
  const accessKeyId = /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(key)?.[1];
  const secretAccessKey = /<SecretAccessKey>([^<]+)<\/SecretAccessKey>/.exec(key)?.[1];
  if (!accessKeyId || !secretAccessKey) throw new Error(`moto IAM CreateAccessKey answered no key: ${key.slice(0, 500)}`);
  return { accessKeyId, secretAccessKey };
}
