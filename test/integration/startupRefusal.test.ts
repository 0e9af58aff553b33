import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { BUILD_ENTRY_POINTS } from '../../src/platform/buildLayout';
import { projectRoot } from '../../src/platform/config';
import { runBuildDir } from '../support/buildDir';

/** Each entry point's source and its file in a production build. */
const BUILT = {
  'src/main/api.ts': BUILD_ENTRY_POINTS.api,
  'src/main/worker.ts': BUILD_ENTRY_POINTS.worker,
  'src/main/cli.ts': BUILD_ENTRY_POINTS.cli,
  'simulator/main.ts': BUILD_ENTRY_POINTS.simulator,
} as const;

/**
 * Each process's real entry point refuses to start, before it connects to anything, when a
 * setting it needs is missing, weak or a known default, and names the setting (review C1). Run as the image runs them,
 * from the run's production build (the same code: the check is src/platform/startupCheck.ts).
 */
describe('entry points refuse to start without strong secrets', () => {
  const strong = () => crypto.randomBytes(32).toString('hex');
  const baseEnv = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // Nothing listens here: a process that got past its check would fail differently (or hang).
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    SWITCHBOARD_DATA_DIR: path.join(os.tmpdir(), `switchboard-no-data-${crypto.randomUUID()}`),
    PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    SIMULATOR_URL: 'http://127.0.0.1:0',
    TEMPORAL_PAYLOAD_KEY: strong(),
    LOG_LEVEL: 'silent',
  });

  /**
   * The entry point as the image runs it (`node dist/<entry>.js`), from the run's production build when the global setup
   * made one (no tsx compiling it at every start); else the sources under tsx.
   */
  function entryArgs(entry: keyof typeof BUILT): string[] {
    const build = runBuildDir();
    return build ? [path.join(build, BUILT[entry])] : ['--import', 'tsx', path.join(projectRoot, entry)];
  }

  function run(
    entry: keyof typeof BUILT,
    env: NodeJS.ProcessEnv,
    args: string[] = [],
  ): Promise<{ code: number | null; stderr: string; stdout: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [...entryArgs(entry), ...args], {
        cwd: projectRoot,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      // A process that passed its check would keep running: give up and report that.
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr, stdout });
      });
    });
  }

  it('the API: the old default as its webhook secret, and no SECRETS_KEY', async () => {
    const result = await run('src/main/api.ts', { ...baseEnv(), CARRIER_WEBHOOK_SECRET: 'dev-carrier-secret' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^switchboard api refuses to start: 2 settings are missing, weak or not allowed\n/);
    expect(result.stderr).toContain('  - CARRIER_WEBHOOK_SECRET is a known (documented or default) value');
    expect(result.stderr).toContain('  - SECRETS_KEY is not set');
    expect(result.stderr).not.toMatch(/\n\s+at /); // one clear message, no stack
  });

  it('the worker: a weak carrier key and a lenient SECRETS_KEY', async () => {
    const result = await run('src/main/worker.ts', {
      ...baseEnv(),
      CARRIER_API_KEY: 'short',
      PAYMENTS_API_KEY: strong(),
      SECRETS_KEY: 'dGVzdA==',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('switchboard worker refuses to start: 2 settings');
    expect(result.stderr).toContain('CARRIER_API_KEY carries');
    expect(result.stderr).toContain('SECRETS_KEY must be 32 bytes');
  });

  it('the API and the worker: no TEMPORAL_PAYLOAD_KEY, or a patterned one (Temporal payloads would be stored in clear or under a guessable key)', async () => {
    const complete = {
      ...baseEnv(),
      CARRIER_WEBHOOK_SECRET: strong(),
      CARRIER_API_KEY: strong(),
      PAYMENTS_API_KEY: strong(),
      SECRETS_KEY: strong(),
    };
    const missing = await run('src/main/api.ts', { ...complete, TEMPORAL_PAYLOAD_KEY: undefined });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^switchboard api refuses to start: one setting is missing, weak or not allowed\n/);
    expect(missing.stderr).toContain('  - TEMPORAL_PAYLOAD_KEY is not set (encrypts every Temporal payload');
    const patterned = await run('src/main/worker.ts', { ...complete, TEMPORAL_PAYLOAD_KEY: `${strong()},${'ab'.repeat(32)}` });
    expect(patterned.code).toBe(1);
    expect(patterned.stderr).toContain('  - TEMPORAL_PAYLOAD_KEY holds a known or patterned key');
  });

  it('the simulator: no control token', async () => {
    const result = await run('simulator/main.ts', {
      ...baseEnv(),
      CARRIER_WEBHOOK_SECRET: strong(),
      CARRIER_API_KEY: strong(),
      PAYMENTS_API_KEY: strong(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SIMULATOR_CONTROL_TOKEN is not set');
  });

  it('the CLI: the old shared secret, saying what replaced it', async () => {
    const result = await run('src/main/cli.ts', { ...baseEnv(), CARRIER_EVENTS_SECRET: strong() }, ['migrate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('CARRIER_EVENTS_SECRET is no longer read');
    expect(result.stderr).toContain('CARRIER_WEBHOOK_SECRET');
  });
});
