import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config';
import { dropDatabase } from '../../dev/infra/postgres';
import { canConnect, freePortBlock, waitForHttpOk } from '../../dev/infra/proc';
import { freePort } from '../../src/platform/net/freePort';
import { ensureTemporalServerBuild, TEMPORAL_SERVER_PORT_COUNT } from '../../dev/infra/temporalServer';
import { runCli } from '../support/cliRun';
import { webhookLine } from '../support/harness';
import { expectSummaryCodecDecrypts } from '../support/payloadCodec';
import { childProcesses, startUp } from '../support/upProcess';
import { until } from '../support/waits';

/** An API process's command line: the sources under tsx, or the run's build (`up` starts the cluster from it when named). */
const API_ENTRY = /src\/main\/api\.(ts|js)\b/;

/**
 * `npm run up -- --cluster` as an operator runs it: it prints the summary with a key that works
 * through HAProxy, the CLI beside it finds it, an API killed with kill -9 is started again (issue 33),
 * Ctrl-C stops everything, and a second run finds the first run's data.
 */
describe('up --cluster', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cluster-up-'));
  const app = `clusterup_${crypto.randomBytes(4).toString('hex')}`;
  const server = new URL(process.env.DATABASE_URL!);
  const adminUrl = Object.assign(new URL(server), { pathname: '/postgres' }).toString();
  let env: NodeJS.ProcessEnv;
  let up: ChildProcess | undefined;

  beforeAll(async () => {
    // The first run on a machine builds the Temporal server (minutes) here, not inside `up`'s wait for its summary.
    await ensureTemporalServerBuild(loadConfig().toolCacheDir, (line) => process.stderr.write(`[temporal-server] ${line}\n`));
    const simulatorPort = await freePort();
    env = {
      ...process.env,
      SWITCHBOARD_DATA_DIR: dataDir,
      DATABASE_URL: Object.assign(new URL(server), { pathname: `/${app}` }).toString(),
      PORT: String(await freePortBlock(5)),
      TEMPORAL_PORT: String(await freePortBlock(TEMPORAL_SERVER_PORT_COUNT)),
      SIMULATOR_URL: `http://127.0.0.1:${simulatorPort}`,
    };
    // What `up` generates or finds itself (the secrets key is kept in the data directory); the test worker's own
    // namespace (test/support/workerResources.ts) is not `up`'s: it runs as the README has it, on `default`.
    for (const name of ['SECRETS_KEY', 'TEMPORAL_ADDRESS', 'PUBLIC_BASE_URL', 'TEMPORAL_NAMESPACE']) delete env[name];
  }, 1_800_000);
  afterAll(async () => {
    if (up && up.exitCode === null) up.kill('SIGKILL');
    for (const database of [app, `${app}_temporal`, `${app}_temporal_visibility`]) await dropDatabase(adminUrl, database);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts `up --cluster` and reads its summary. */
  async function startCluster(): Promise<{ apiUrl: string; key: string; output: () => string }> {
    const started = await startUp(['--cluster'], env);
    up = started.child;
    const summary = started.output();
    return { apiUrl: /API\s+(\S+)/.exec(summary)![1], key: /Test key\s+(\S+)/.exec(summary)![1], output: started.output };
  }

  async function stopUp(): Promise<number | null> {
    const child = up!;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    return exited;
  }

  it('prints the summary, serves the key through HAProxy, stops on Ctrl-C and keeps its data', async () => {
    const first = await startCluster();
    expect(first.output()).toContain('cluster: two APIs behind HAProxy');
    expect(first.output()).toMatch(/Temporal UI\s+none in the cluster profile/);
    expect(first.apiUrl).toBe(`http://127.0.0.1:${env.PORT}`);
    const created = await fetch(`${first.apiUrl}/api/v1/lines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(webhookLine()),
    });
    expect(created.status).toBe(201);
    // Each worker serves its metrics (the dev profile needs no token) once it has started.
    for (const port of [Number(env.PORT) + 3, Number(env.PORT) + 4]) await waitForHttpOk(`http://127.0.0.1:${port}/metrics`, 30_000);
    const lineId = ((await created.json()) as { line: { id: string } }).line.id;
    // Payloads are encrypted in the cluster's Temporal server; the printed codec endpoint (through HAProxy) decrypts them.
    await expectSummaryCodecDecrypts(first.output(), `line-provision:${lineId}`, lineId);

    // The CLI started on its own, as `npm run cli` beside the cluster: nothing but the data directory tells it where the
    // cluster's Postgres is and which secrets it keeps; the keys it mints work through HAProxy.
    const bootstrap = runCli(['bootstrap', '--json'], {
      SWITCHBOARD_DATA_DIR: dataDir,
      ...Object.fromEntries(
        ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'SWITCHBOARD_PROFILE', 'SECRETS_KEY', 'TEMPORAL_NAMESPACE'].map((name) => [name, undefined]),
      ),
    });
    expect(bootstrap.stderr).toBe('');
    expect(bootstrap.status).toBe(0);
    const listed = await fetch(`${first.apiUrl}/api/v1/lines`, { headers: { authorization: `Bearer ${bootstrap.json.test_key}` } });
    expect(listed.status).toBe(200);

    // One API killed with kill -9: the supervisor starts it again (and HAProxy sends requests to the other meanwhile).
    const api = childProcesses(up!.pid!).find((child) => API_ENTRY.test(child.cmdline))!;
    process.kill(api.pid, 'SIGKILL');
    await until(() => /\[up\] api-[12] restarted \(pid \d+\)/.test(first.output()), 'the API to be restarted', { timeoutMs: 60_000 });
    expect(first.output()).toMatch(/\[up\] api-[12] exited unexpectedly \(signal SIGKILL\); restarting it in 1s/);
    const apis = childProcesses(up!.pid!).filter((child) => API_ENTRY.test(child.cmdline));
    expect(apis.map((child) => child.pid)).not.toContain(api.pid);
    expect(apis).toHaveLength(2);
    for (const port of [Number(env.PORT) + 1, Number(env.PORT) + 2]) await waitForHttpOk(`http://127.0.0.1:${port}/readyz`, 30_000);

    expect(await stopUp()).toBe(0);
    const ports = [Number(env.PORT), Number(env.PORT) + 1, Number(env.PORT) + 2, Number(env.TEMPORAL_PORT)];
    expect(await Promise.all(ports.map((port) => canConnect('127.0.0.1', port)))).toEqual([false, false, false, false]);

    const second = await startCluster();
    const line = await fetch(`${second.apiUrl}/api/v1/lines/${lineId}`, { headers: { authorization: `Bearer ${second.key}` } });
    expect(line.status).toBe(200);
    expect(await stopUp()).toBe(0);
  }, 600_000);
});
