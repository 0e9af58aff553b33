import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureMotoServer, startS3Server, type S3TestServer } from '../../dev/infra/s3Server';
import { loadConfig, type Config } from '../../src/platform/config';
import { startTcpProxy, type TcpProxy } from './tcpProxy';

/**
 * A real S3-compatible server (moto's, dev/infra/s3Server.ts) for the test file that calls this at its top level:
 * installed into the tool cache on first use, started before the file's tests on a port of its own, stopped after
 * them. `authenticate`: every request's signature is checked against the one access key the server hands out.
 * Returns a getter, valid inside tests.
 */
export function useS3Server(opts: { authenticate: boolean }): () => S3TestServer {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-s3-'));
  let server: S3TestServer | undefined;
  beforeAll(async () => {
    const executable = ensureMotoServer(loadConfig().toolCacheDir, (line) => process.stderr.write(`[setup] ${line}\n`));
    server = await startS3Server({ executable, logFile: path.join(logDir, 'moto.log'), authenticate: opts.authenticate });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(logDir, { recursive: true, force: true });
  });
  return () => {
    if (!server) throw new Error('the S3 server is not started: useS3Server works inside tests only');
    return server;
  };
}

/**
 * The harness's recordings settings for `server`'s bucket (path-style, SSE-S3), with the AWS SDK's own credential chain
 * given the server's key through the environment for the file's tests, as a deployment gives it, and put back after.
 * Call at the top level of the file, after `useS3Server`; pass the returned function as the suite's overrides.
 * `endpoint`: reach the server through another address (a proxy a test takes down) instead.
 */
export function useS3RecordingsStore(server: () => S3TestServer, options: { endpoint?: () => string } = {}): () => Partial<Config> {
  const saved = { AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY };
  beforeAll(() => {
    process.env.AWS_ACCESS_KEY_ID = server().credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = server().credentials.secretAccessKey;
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });
  return () => ({
    recordings: {
      store: 's3',
      dir: os.tmpdir(),
      s3: {
        bucket: server().bucket,
        endpoint: options.endpoint?.() ?? server().endpoint,
        region: server().region,
        forcePathStyle: true,
        serverSideEncryption: 'AES256',
        kmsKeyId: undefined,
      },
    },
  });
}

/**
 * `useS3RecordingsStore` reached through a TCP proxy (./tcpProxy.ts) started before the file's tests and closed after
 * them, which the tests take down, stall or let pass: the suite's overrides, and the proxy (valid inside tests).
 */
export function useProxiedS3RecordingsStore(server: () => S3TestServer): { overrides: () => Partial<Config>; proxy: () => TcpProxy } {
  let proxy: TcpProxy | undefined;
  beforeAll(async () => {
    proxy = await startTcpProxy(server().endpoint);
  });
  afterAll(async () => {
    await proxy?.close();
  });
  const started = () => {
    if (!proxy) throw new Error('the S3 proxy is not started: useProxiedS3RecordingsStore works inside tests only');
    return proxy;
  };
  return { overrides: useS3RecordingsStore(server, { endpoint: () => started().url }), proxy: started };
}
