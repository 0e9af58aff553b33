import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureMotoServer, startS3Server, type S3TestServer } from '../../dev/infra/s3Server';
import { loadConfig } from '../../src/platform/config';

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
