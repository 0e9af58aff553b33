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
import http from 'node:http';
import autocannon from 'autocannon';
import Koa from 'koa';
import { createApp } from '../api/app';
import { intFromEnv, loadConfig, type Config } from '../src/platform/config';
import { createDb } from '../src/platform/db/knex';
import { startEphemeralStack } from '../src/platform/infra/stack';
import { createLogger } from '../src/platform/logger';
import { connectTemporalClient } from '../src/platform/temporal/client';
import { mintUserKey } from '../src/domain/workspaces/service';
import { closeServer, listen } from './support/http';
import { createCleanups, reportFailures, runBench } from './support/run';
import { fmt, printTable, ratio, RATIO_LABEL } from './support/table';
import { createBenchWorkspace, insertActiveLine } from './support/tenant';

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

function bareKoa(): Koa {
  const koa = new Koa();
  koa.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  return koa;
}

/**
 * Bare Koa answering with one row read by primary key through the same kind of knex pool: the least any
 * "read a row over HTTP" can cost on this machine, where Postgres shares the cores with the server and the load.
 */
function koaWithOneSelect(db: ReturnType<typeof createDb>, lineId: string): Koa {
  const koa = new Koa();
  koa.use(async (ctx) => {
    ctx.body = { line: await db('lines').where({ id: lineId }).first() };
  });
  return koa;
}

function printSummaries(baseline: Summary, switchboard: Summary, oneSelect: Summary): void {
  const header = ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests'];
  const rows = [baseline, oneSelect, switchboard].map((r) => [
    r.title,
    fmt(r.reqPerSec, 0),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    String(r.non2xx),
    String(r.errors),
    String(r.total),
  ]);
  const ratios = [
    ratio(switchboard.reqPerSec, baseline.reqPerSec, 3),
    ratio(switchboard.p50, baseline.p50, 2),
    ratio(switchboard.p99, baseline.p99, 2),
  ];
  const selectRatios = [
    ratio(switchboard.reqPerSec, oneSelect.reqPerSec, 3),
    ratio(switchboard.p50, oneSelect.p50, 2),
    ratio(switchboard.p99, oneSelect.p99, 2),
  ];
  printTable(header, [...rows, [RATIO_LABEL, ...ratios, '', '', ''], ['ratio switchboard/koa+select', ...selectRatios, '', '', '']]);
}

async function main(): Promise<number> {
  const connections = intFromEnv('BENCH_CONNECTIONS', 50);
  const durationSec = intFromEnv('BENCH_DURATION', 10);
  const warmupSec = intFromEnv('BENCH_WARMUP', 2);
  if (connections < 1 || durationSec < 1) throw new Error('BENCH_CONNECTIONS and BENCH_DURATION must be at least 1');

  const cleanups = createCleanups();

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
    // Wired as src/main/api.ts does: key cache with its NOTIFY listener, last_used_at batched.
    const app = createApp({ config, db, temporal, logger, now: () => new Date() });
    await app.listenForKeyChanges(stack.databaseUrl);
    cleanups.push(() => app.close());
    const { koa } = app;
    const apiServer = http.createServer(koa.callback());
    const apiUrl = await listen(apiServer);
    cleanups.push(() => closeServer(apiServer));

    const baselineServer = http.createServer(bareKoa().callback());
    const baselineUrl = await listen(baselineServer);
    cleanups.push(() => closeServer(baselineServer));

    // A tenant with a standard test key, and an active line inserted directly (no worker needed).
    const { workspace, owner } = await createBenchWorkspace(db);
    const key = (await mintUserKey(db, { user: owner, environment: 'test', kind: 'standard', name: 'bench' })).plaintext;
    const lineId = await insertActiveLine(db, { workspace, owner, webhookUrl: 'https://agent.example.test/hooks' });

    const selectServer = http.createServer(koaWithOneSelect(db, lineId).callback());
    const selectUrl = await listen(selectServer);
    cleanups.push(() => closeServer(selectServer));

    const linePath = `/api/v1/lines/${lineId}`;
    const authHeaders = { authorization: `Bearer ${key}` };

    // Sanity check: the benchmarked request must succeed and return the line.
    const probe = await fetch(`${apiUrl}${linePath}`, { headers: authHeaders });
    const probeBody = (await probe.json()) as { line?: { id?: string } };
    if (probe.status !== 200 || probeBody.line?.id !== lineId) {
      throw new Error(`GET ${linePath} answered ${probe.status} ${JSON.stringify(probeBody)}; refusing to benchmark`);
    }

    console.log(
      `[bench] ${connections} connections, ${warmupSec}s warm-up + ${durationSec}s measured per target, load generator in a child process`,
    );
    const common = { connections, durationSec, warmupSec };
    const baseline = await measureInChild({ ...common, title: 'baseline (bare Koa)', url: `${baselineUrl}/`, headers: {} });
    const oneSelect = await measureInChild({ ...common, title: 'bare Koa + one SELECT', url: `${selectUrl}/`, headers: {} });
    const switchboard = await measureInChild({
      ...common,
      title: 'switchboard GET line',
      url: `${apiUrl}${linePath}`,
      headers: authHeaders,
    });

    console.log('');
    printSummaries(baseline, switchboard, oneSelect);
    console.log('');

    const failed = [switchboard, baseline, oneSelect].filter((r) => r.non2xx > 0 || r.errors > 0 || r.total === 0);
    return reportFailures(
      failed.map(
        (r) => `${r.title} had ${r.non2xx} non-2xx responses and ${r.errors} errors (${r.timeouts} timeouts) over ${r.total} requests`,
      ),
    );
  } finally {
    await cleanups.run();
  }
}

runBench(process.argv.includes(LOADGEN_FLAG) ? loadgenMain : main);
