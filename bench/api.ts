/**
 * API overhead benchmark: an authenticated `GET /api/v1/lines/{id}` on the real Switchboard
 * app (key lookup + line read in Postgres, full middleware chain) against a bare Koa
 * hello-world, on the same machine in the same run, with the same load settings.
 *
 *   npm run bench:api
 *   BENCH_DURATION=20 BENCH_CONNECTIONS=100 BENCH_WARMUP=3 npm run bench:api
 *
 * Uses DATABASE_URL / TEMPORAL_ADDRESS when set, otherwise an ephemeral stack (see
 * src/platform/infra/stack.ts). Exits 1 if either target answered anything but 2xx or had
 * connection errors, since the figures would then describe error handling.
 *
 * Process layout: both servers run in this (parent) process; the load generator
 * (autocannon) runs in a forked child process, one per target. A separate process rather
 * than a worker_thread so the generator shares nothing with the servers under test: its
 * own V8 heap and GC, event loop, and libuv threadpool, and the OS can schedule it on the
 * other core (the reference machine has 2). That is the same arrangement as running wrk
 * from another shell, while still producing both figures in a single command.
 */
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import Koa from 'koa';
import { createApp } from '../api/app';
import { intFromEnv, loadConfig, type Config } from '../src/platform/config';
import { createDb } from '../src/platform/db/knex';
import { startEphemeralStack } from '../src/platform/infra/stack';
import { createLogger } from '../src/platform/logger';
import { connectTemporalClient } from '../src/platform/temporal/client';
import { createWorkspace, mintUserKey } from '../src/domain/workspaces/service';
import { createCleanups } from './cleanups';

const LOADGEN_FLAG = '--loadgen';

interface LoadSpec {
  title: string;
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSec: number;
  warmupSec: number;
}

interface Summary {
  title: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  total: number;
}

// ---------------------------------------------------------------------------------------
// Child: the load generator.
// ---------------------------------------------------------------------------------------

async function runLoad(spec: LoadSpec): Promise<Summary> {
  const base = { url: spec.url, headers: spec.headers, connections: spec.connections, pipelining: 1 };
  if (spec.warmupSec > 0) await autocannon({ ...base, duration: spec.warmupSec });
  const result = await autocannon({ ...base, duration: spec.durationSec, title: spec.title });
  return {
    title: spec.title,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    total: result.requests.total,
  };
}

async function loadgenMain(): Promise<void> {
  const spec = JSON.parse(process.argv[process.argv.indexOf(LOADGEN_FLAG) + 1]) as LoadSpec;
  const summary = await runLoad(spec);
  await new Promise<void>((resolve, reject) => process.send!(summary, (err: Error | null) => (err ? reject(err) : resolve())));
}

/** Runs one target's warm-up and measurement in a fresh child process. */
function measureInChild(spec: LoadSpec): Promise<Summary> {
  return new Promise((resolve, reject) => {
    // execArgv is inherited, so the child also runs under `--import tsx`.
    const child = fork(__filename, [LOADGEN_FLAG, JSON.stringify(spec)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let summary: Summary | undefined;
    child.on('message', (message) => {
      summary = message as Summary;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (summary) resolve(summary);
      else reject(new Error(`load generator for ${spec.title} exited (code ${code}, signal ${signal}) without a result`));
    });
  });
}

// ---------------------------------------------------------------------------------------
// Parent: the servers under test.
// ---------------------------------------------------------------------------------------

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function bareKoa(): Koa {
  const koa = new Koa();
  koa.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  return koa;
}

const fmt = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function printTable(rows: Summary[], ratio: { reqPerSec: number; p50: number; p99: number }): void {
  const header = ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests'];
  const body = rows.map((r) => [r.title, fmt(r.reqPerSec, 0), fmt(r.p50, 2), fmt(r.p99, 2), String(r.non2xx), String(r.errors), String(r.total)]);
  body.push(['ratio switchboard/baseline', `${fmt(ratio.reqPerSec, 3)}x`, `${fmt(ratio.p50, 2)}x`, `${fmt(ratio.p99, 2)}x`, '', '', '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of body) console.log(line(row));
}

async function main(): Promise<number> {
  const connections = intFromEnv('BENCH_CONNECTIONS', 50);
  const durationSec = intFromEnv('BENCH_DURATION', 10);
  const warmupSec = intFromEnv('BENCH_WARMUP', 2);
  if (connections < 1 || durationSec < 1) throw new Error('BENCH_CONNECTIONS and BENCH_DURATION must be at least 1');

  const cleanups = createCleanups();
  const cleanup = cleanups.run;

  try {
    const stack = await startEphemeralStack({ name: 'bench_api' });
    cleanups.push(() => stack.stop());

    const config: Config = { ...loadConfig(), databaseUrl: stack.databaseUrl, temporalAddress: stack.temporalAddress };
    // Same pool size as the production API process (src/main/api.ts).
    const db = createDb(stack.databaseUrl, { max: 20 });
    cleanups.push(() => db.destroy());
    const temporal = await connectTemporalClient(stack.temporalAddress, config.temporalNamespace);
    cleanups.push(() => temporal.connection.close());

    // The access log writes one line per request at `info`; keep it off so the figures
    // measure the API rather than stdout. BENCH_LOG_LEVEL=info measures with it on.
    const logger = createLogger('api', process.env.BENCH_LOG_LEVEL ?? 'warn');
    const { koa } = createApp({ config, db, temporal, logger, now: () => new Date() });
    const apiServer = http.createServer(koa.callback());
    const apiUrl = await listen(apiServer);
    cleanups.push(() => closeServer(apiServer));

    const baselineServer = http.createServer(bareKoa().callback());
    const baselineUrl = await listen(baselineServer);
    cleanups.push(() => closeServer(baselineServer));

    // A tenant with a standard test key, and an active line inserted directly (no worker needed).
    const suffix = crypto.randomBytes(6).toString('hex');
    const { workspace, owner } = await createWorkspace(db, { name: `Bench ${suffix}`, ownerEmail: `bench+${suffix}@example.test` });
    const key = (await mintUserKey(db, { user: owner, environment: 'test', kind: 'standard', name: 'bench' })).plaintext;
    const [line] = await db('lines')
      .insert({
        workspace_id: workspace.id,
        user_id: owner.id,
        environment: 'test',
        name: 'Bench line',
        mode: 'webhook',
        webhook_url: 'https://agent.example.test/hooks',
        phone_number: '+15005550100',
        status: 'active',
        activated_at: new Date(),
      })
      .returning<{ id: string }[]>('id');

    const linePath = `/api/v1/lines/${line.id}`;
    const authHeaders = { authorization: `Bearer ${key}` };

    // Sanity check: the benchmarked request must succeed and return the line.
    const probe = await fetch(`${apiUrl}${linePath}`, { headers: authHeaders });
    const probeBody = (await probe.json()) as { line?: { id?: string } };
    if (probe.status !== 200 || probeBody.line?.id !== line.id) {
      throw new Error(`GET ${linePath} answered ${probe.status} ${JSON.stringify(probeBody)}; refusing to benchmark`);
    }

    console.log(`[bench] ${connections} connections, ${warmupSec}s warm-up + ${durationSec}s measured per target, load generator in a child process`);
    const common = { connections, durationSec, warmupSec };
    const baseline = await measureInChild({ ...common, title: 'baseline (bare Koa)', url: `${baselineUrl}/`, headers: {} });
    const switchboard = await measureInChild({ ...common, title: 'switchboard GET line', url: `${apiUrl}${linePath}`, headers: authHeaders });

    console.log('');
    printTable([baseline, switchboard], {
      reqPerSec: switchboard.reqPerSec / baseline.reqPerSec,
      p50: switchboard.p50 / baseline.p50,
      p99: switchboard.p99 / baseline.p99,
    });
    console.log('');

    let failed = false;
    for (const result of [switchboard, baseline]) {
      if (result.non2xx > 0 || result.errors > 0 || result.total === 0) {
        console.error(`[bench] FAIL: ${result.title} had ${result.non2xx} non-2xx responses and ${result.errors} errors (${result.timeouts} timeouts) over ${result.total} requests`);
        failed = true;
      }
    }
    return failed ? 1 : 0;
  } finally {
    await cleanup();
  }
}

if (process.argv.includes(LOADGEN_FLAG)) {
  loadgenMain().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
