import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { isExecutable, run, spawnLogged, stopProcess, waitForPort, which } from './proc';
import { freePort } from '../../src/platform/net/freePort';
import type { Log } from './toolVenv';

/**
 * Finds or installs stripe-mock (Stripe's own mock of its API, answering from its OpenAPI
 * specification), which the Stripe adapter's tests run against. Order: `STRIPE_MOCK` (a path),
 * PATH, the tool cache (`go-bin/`, outside the clone), then `go install` of the pinned module
 * into that cache (about 40 s, once).
 */
export const STRIPE_MOCK_GO_MODULE = 'github.com/stripe/stripe-mock@v0.203.0';

function goExecutable(): string | undefined {
  return which('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

export function ensureStripeMock(toolCacheDir: string, log: Log): string {
  const fromEnv = process.env.STRIPE_MOCK;
  if (fromEnv && isExecutable(fromEnv)) return fromEnv;
  const cached = path.join(toolCacheDir, 'go-bin', 'stripe-mock');
  for (const candidate of [which('stripe-mock'), cached]) if (candidate && isExecutable(candidate)) return candidate;
  const go = goExecutable();
  if (!go)
    throw new Error(
      `stripe-mock is not installed and Go is not available: run \`go install ${STRIPE_MOCK_GO_MODULE}\` or set STRIPE_MOCK.`,
    );
  log(`go install ${STRIPE_MOCK_GO_MODULE} (into the tool cache, once)`);
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  run(go, ['install', STRIPE_MOCK_GO_MODULE], { env: { ...process.env, CGO_ENABLED: '0', GOBIN: path.dirname(cached) } });
  if (!isExecutable(cached)) throw new Error(`go install ${STRIPE_MOCK_GO_MODULE} left no executable at ${cached}`);
  return cached;
}

export interface StripeMock {
  /** The API base to hand the Stripe client (`STRIPE_API_BASE`). */
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts stripe-mock over plain HTTP on loopback (a free port unless one is given). */
export async function startStripeMock(opts: { executable: string; logFile: string; port?: number }): Promise<StripeMock> {
  const port = opts.port ?? (await freePort());
  const child = spawnLogged(opts.executable, ['-http-addr', `127.0.0.1:${port}`], opts.logFile);
  try {
    await waitForPort('127.0.0.1', port, 30_000, child);
  } catch (err) {
    await stopProcess(child);
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, process: child, stop: () => stopProcess(child) };
}
