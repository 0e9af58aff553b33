/**
 * API overhead benchmark: an authenticated `GET /api/v1/lines/{id}` on the real Switchboard
 * app (key lookup + line read in Postgres, full middleware chain) against a bare Koa
 * hello-world, on the same machine in the same run, with the same load settings.
 *
 *   npm run bench:api
 *   BENCH_DURATION=20 BENCH_CONNECTIONS=100 BENCH_WARMUP=3 npm run bench:api
 *
 * Uses DATABASE_URL / TEMPORAL_ADDRESS when set, otherwise an ephemeral stack (see
 * dev/infra/stack.ts). Exits 1 if either target answered anything but 2xx or had
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
import { on } from 'node:events';
import { performance } from 'node:perf_hooks';
import http from 'node:http';
import crypto from 'node:crypto';
import autocannon from 'autocannon';
import Koa from 'koa';
import pg from 'pg';
import { createApp } from '../api/app';
import { intFromEnv, loadConfig, type Config } from '../src/platform/config';
import { API_DB_POOLS, createDb } from '../src/platform/db/knex';
import { startEphemeralStack } from '../dev/infra/stack';
import { createLogger } from '../src/platform/logger';
import { connectTemporalClient } from '../src/platform/temporal/client';
import { payloadEncryptionCodec } from '../src/platform/codecs/payloadEncryption';
import { generateSecretsKey } from '../src/platform/crypto/secretBox';
import { mintUserKey } from '../src/domain/keys/userKeys';
import { closeServer, listen } from './support/http';
import { cpuSeconds, listeningPid, portOf, postgresCpuMs, processCpuMs } from './support/cpu';
import { createCleanups, onTemporalServer, reportFailures, runBench } from './support/run';
import { fmt, printTable, ratio, RATIO_LABEL } from './support/table';
import { createBenchWorkspace, insertActiveLine } from './support/tenant';
import { countQueries } from './support/queries';
import { toLineRecord, type LineRow } from '../src/domain/lines/store';
import { hashKey } from '../src/domain/keys/format';
import {
  createScratchTable,
  createWriteTenants,
  koaWithInserts,
  SCRATCH_TABLE,
  WRITE_ROUTES,
  writeRequests,
  type WriteLoad,
  type WriteRoute,
} from './support/apiWrites';

const LOADGEN_FLAG = '--loadgen';

interface LoadSpec {
  title: string;
  url: string;
  headers: Record<string, string>;
  write?: WriteLoad;
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
  /**
   * CPU per request (µs) over the target's slices: the servers (this process, where the API and the floors run), the
   * Postgres and Temporal servers (NaN where /proc cannot show them) and the target's load generator.
   */
  cpuUs?: { servers: number; postgres: number; temporal: number; loadgen: number };
}

// ---------------------------------------------------------------------------------------
// Child: the load generator.
// ---------------------------------------------------------------------------------------

/** What the parent asks of a target's load generator: `spec` first (not answered), then each answered once done (`finish` with the Summary). */
type LoadCommand = { kind: 'spec'; spec: LoadSpec } | { kind: 'warmup' } | { kind: 'slice'; seconds: number } | { kind: 'finish' };

/** autocannon's result of a run made with `skipAggregateResult`: encoded histograms, merged by `aggregateResult`. */
type RawResult = autocannon.Result & { totalCompletedRequests: number };
const aggregateResults = (autocannon as unknown as { aggregateResult(results: RawResult[], opts: autocannon.Options): autocannon.Result })
  .aggregateResult;

/**
 * One target's load: a warm-up, then measured slices that the parent interleaves with other targets' slices, then a
 * summary over all of them (latency percentiles from the slices' merged histograms, req/s over their summed time).
 * The requests (a write row's tenants and numbers) carry on from one slice to the next.
 */
async function loadgenMain(): Promise<void> {
  let spec: LoadSpec | undefined;
  let requests: autocannon.Request[] | undefined;
  const slices: RawResult[] = [];
  let measuredSeconds = 0;
  const options = (seconds: number): autocannon.Options => ({
    url: spec!.url,
    headers: spec!.headers,
    connections: spec!.connections,
    pipelining: 1,
    requests,
    duration: seconds,
    title: spec!.title,
    skipAggregateResult: true,
  });
  const run = (seconds: number) => autocannon(options(seconds));
  const answer = (message: unknown) =>
    new Promise<void>((resolve, reject) => process.send!(message as object, (err: Error | null) => (err ? reject(err) : resolve())));
  // The spec comes over IPC: with a write row's tenants (a key each) it is too long for a command line.
  const warmUp = async (): Promise<void> => {
    const warmed = spec!.warmupSec > 0 ? ((await run(spec!.warmupSec)) as RawResult).totalCompletedRequests : 0;
    // A write row's warm-up reaches every tenant at least once, as a fleet in steady state has: each tenant's key is
    // then in the API's key cache, rather than its first use (a key read) counted in the measurement.
    const unreached = (spec!.write?.tenants.length ?? 0) - warmed;
    if (unreached > 0) {
      const { duration: _timed, ...untimed } = options(0);
      await autocannon({ ...untimed, amount: unreached });
    }
  };
  const slice = async (seconds: number): Promise<{ cpuMs: number }> => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    slices.push((await run(seconds)) as RawResult);
    measuredSeconds += (performance.now() - started) / 1000;
    return { cpuMs: cpuSeconds(process.cpuUsage(cpu)) * 1000 };
  };
  const summary = (): Summary => {
    const merged = aggregateResults(slices, { url: spec!.url, connections: spec!.connections, title: spec!.title });
    const total = slices.reduce((sum, one) => sum + one.totalCompletedRequests, 0);
    const { non2xx, errors, timeouts } = merged;
    return {
      title: spec!.title,
      reqPerSec: total / measuredSeconds,
      p50: merged.latency.p50,
      p99: merged.latency.p99,
      non2xx,
      errors,
      timeouts,
      total,
    };
  };
  // The spec comes over IPC (with a write row's tenants, a key each, it is too long for a command line), unanswered;
  // every other command is answered when done.
  for await (const [command] of on(process, 'message') as AsyncIterable<[LoadCommand]>) {
    if (command.kind === 'spec') {
      spec = command.spec;
      requests = spec.write ? writeRequests(spec.write) : undefined;
    } else if (command.kind === 'finish') {
      await answer(summary());
      process.disconnect();
      return;
    } else {
      await answer(command.kind === 'warmup' ? (await warmUp(), {}) : await slice(command.seconds));
    }
  }
}

/** A target's load generator in a child process of its own, driven one command at a time. */
interface LoadGenerator {
  warmUp(): Promise<void>;
  /** Runs a measured slice; resolves to the CPU time (ms) the load generator used in it. */
  slice(seconds: number): Promise<number>;
  finish(): Promise<Summary>;
}

function startLoadGenerator(spec: LoadSpec): LoadGenerator {
  // execArgv is inherited, so the child also runs under `--import tsx`.
  const child = fork(__filename, [LOADGEN_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let pending: { resolve: (message: unknown) => void; reject: (err: Error) => void } | undefined;
  child.on('message', (message) => {
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(message);
  });
  const fail = (err: Error) => {
    const waiting = pending;
    pending = undefined;
    waiting?.reject(err);
  };
  child.on('error', fail);
  child.on('exit', (code, signal) => fail(new Error(`load generator for ${spec.title} exited (code ${code}, signal ${signal})`)));
  const ask = (command: LoadCommand) =>
    new Promise<unknown>((resolve, reject) => {
      pending = { resolve, reject };
      child.send(command);
    });
  child.send({ kind: 'spec', spec } satisfies LoadCommand);
  return {
    warmUp: async () => void (await ask({ kind: 'warmup' })),
    slice: async (seconds) => ((await ask({ kind: 'slice', seconds })) as { cpuMs: number }).cpuMs,
    finish: async () => (await ask({ kind: 'finish' })) as Summary,
  };
}

/**
 * Measures targets in interleaved slices: each warmed up once, then `rounds` rounds in which every target runs
 * `durationSec / rounds` seconds, in turn, the order reversed every other round (A B, B A, ...). A ratio of two
 * targets measured this way compares the same minutes of the machine: on this shared 2-core machine its speed drifts
 * by more than 10% between one row's quarter minute and the next's, which consecutive rows took as the targets' own
 * difference. `betweenSlices` runs after each slice, outside the measurement (an SMS row's hand-over catching up).
 */
async function measureInterleaved(
  specs: readonly LoadSpec[],
  options: { rounds: number; postgresPort: number; temporalPid: number | undefined; betweenSlices?: (spec: LoadSpec) => Promise<void> },
): Promise<Summary[]> {
  const generators = specs.map((spec) => startLoadGenerator(spec));
  for (const generator of generators) await generator.warmUp();
  const seconds = Math.max(1, Math.round(specs[0]!.durationSec / options.rounds));
  const cpuMs = specs.map(() => ({ servers: 0, postgres: 0, temporal: 0, loadgen: 0 }));
  for (let round = 0; round < options.rounds; round += 1) {
    const order = round % 2 === 0 ? specs.map((_, i) => i) : specs.map((_, i) => specs.length - 1 - i);
    for (const i of order) {
      const servers = process.cpuUsage();
      const postgres = postgresCpuMs(options.postgresPort);
      const temporal = processCpuMs(options.temporalPid);
      cpuMs[i]!.loadgen += await generators[i]!.slice(seconds);
      cpuMs[i]!.temporal += (processCpuMs(options.temporalPid) ?? NaN) - (temporal ?? NaN);
      cpuMs[i]!.servers += cpuSeconds(process.cpuUsage(servers)) * 1000;
      cpuMs[i]!.postgres += (postgresCpuMs(options.postgresPort) ?? NaN) - (postgres ?? NaN);
      await options.betweenSlices?.(specs[i]!);
    }
  }
  const summaries: Summary[] = [];
  for (const [i, generator] of generators.entries()) {
    const summary = await generator.finish();
    const perRequest = (ms: number) => (summary.total > 0 ? (ms * 1000) / summary.total : NaN);
    const cpu = cpuMs[i]!;
    summaries.push({
      ...summary,
      cpuUs: {
        servers: perRequest(cpu.servers),
        postgres: perRequest(cpu.postgres),
        temporal: perRequest(cpu.temporal),
        loadgen: perRequest(cpu.loadgen),
      },
    });
  }
  return summaries;
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

/**
 * The same one-row read as a named prepared statement on a raw pg pool (no knex): Postgres parses and plans it
 * once per connection, so this is the ceiling of "one Postgres round trip per request" on this machine.
 */
function koaWithOnePreparedSelect(pool: pg.Pool, lineId: string): Koa {
  const koa = new Koa();
  koa.use(async (ctx) => {
    const result = await pool.query({ name: 'bench_line_by_id', text: 'select * from lines where id = $1', values: [lineId] });
    ctx.body = { line: result.rows[0] };
  });
  return koa;
}

/**
 * The least any conforming `GET /lines/{id}` does, on the same raw pg pool: the bearer key hashed (`hashKey`) and found in an
 * in-memory map (as Switchboard's key cache does), the line read by a prepared SELECT scoped by id, workspace and
 * environment, and the row mapped to its wire record. No request id, CORS, metrics, routing table or validation: what
 * the authenticated GET costs beyond this is Switchboard's own, and how far this row sits below the prepared floor is
 * what authentication and the wire shape cost on this machine (issue 33: how close the 0.85x target can come).
 */
function koaWithKeyAndScopedSelect(pool: pg.Pool, lineId: string, key: { plaintext: string; workspaceId: string }): Koa {
  const keys = new Map([[hashKey(key.plaintext), { workspaceId: key.workspaceId, environment: 'test' }]]);
  const koa = new Koa();
  koa.use(async (ctx) => {
    const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
    const tenant = token === undefined ? undefined : keys.get(hashKey(token));
    if (!tenant) {
      ctx.status = 401;
      return;
    }
    const result = await pool.query({
      name: 'bench_line_by_scope',
      text: 'select * from lines where id = $1 and workspace_id = $2 and environment = $3',
      values: [lineId, tenant.workspaceId, tenant.environment],
    });
    ctx.body = { line: toLineRecord(result.rows[0] as LineRow) };
  });
  return koa;
}

const SUMMARY_HEADER = ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests'];

function summaryRow(r: Summary): string[] {
  return [r.title, fmt(r.reqPerSec, 0), fmt(r.p50, 2), fmt(r.p99, 2), String(r.non2xx), String(r.errors), String(r.total)];
}

/**
 * CPU per request of each target, in µs (summed over its slices, over its requests): what a ratio of req/s comes from
 * on this machine, where the servers, Postgres and the load generator share two cores.
 */
function printCpuPerRequest(rows: readonly Summary[]): void {
  const us = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '-' : fmt(value, 0));
  printTable(
    ['CPU per request (µs)', 'servers', 'postgres', 'temporal', 'load generator', 'total'],
    rows.map((r) => {
      const cpu = r.cpuUs;
      const total = cpu && cpu.servers + cpu.postgres + (Number.isNaN(cpu.temporal) ? 0 : cpu.temporal) + cpu.loadgen;
      return [r.title, us(cpu?.servers), us(cpu?.postgres), us(cpu?.temporal), us(cpu?.loadgen), us(total)];
    }),
  );
}

/** Switchboard's throughput and latencies over those of `other`, as a row of the summary table. */
function ratioRow(label: string, switchboard: Summary, other: Summary): string[] {
  return [
    label,
    ratio(switchboard.reqPerSec, other.reqPerSec, 3),
    ratio(switchboard.p50, other.p50, 2),
    ratio(switchboard.p99, other.p99, 2),
    '',
    '',
    '',
  ];
}

/** One write route against its floor: both rows, the ratio, and the targets' verdict (≥ 0.5× req/s, p99 ≤ 3×). */
function printWriteSummaries(rows: ReadonlyArray<{ floor: Summary; route: Summary }>): string[] {
  const misses: string[] = [];
  printTable(
    SUMMARY_HEADER,
    rows.flatMap(({ floor, route }) => [summaryRow(floor), summaryRow(route), ratioRow(`ratio / its floor`, route, floor)]),
  );
  for (const { floor, route } of rows) {
    const throughput = route.reqPerSec / floor.reqPerSec;
    const tail = route.p99 / floor.p99;
    const verdict = throughput >= WRITE_TARGET.throughput && tail <= WRITE_TARGET.p99 ? 'meets' : 'MISSES';
    console.log(`[bench] ${route.title}: ${fmt(throughput, 3)}x its floor's req/s, p99 ${fmt(tail, 2)}x: ${verdict} the target`);
    if (verdict === 'MISSES') misses.push(route.title);
  }
  return misses;
}

/** Issue 33's targets for each write route against its floor. */
const WRITE_TARGET = { throughput: 0.5, p99: 3 };
/** Issue 33's target for the authenticated GET against Koa with one prepared SELECT. */
const READ_TARGET = 0.85;

function printSummaries(baseline: Summary, switchboard: Summary, oneSelect: Summary, onePrepared: Summary, keyed: Summary): void {
  printTable(SUMMARY_HEADER, [
    ...[baseline, oneSelect, onePrepared, keyed, switchboard].map(summaryRow),
    ratioRow(RATIO_LABEL, switchboard, baseline),
    ratioRow('ratio switchboard/koa+select', switchboard, oneSelect),
    ratioRow('ratio switchboard/koa+prepared', switchboard, onePrepared),
    ratioRow('ratio koa+key+record/koa+prepared', keyed, onePrepared),
  ]);
}

async function main(): Promise<number> {
  const connections = intFromEnv('BENCH_CONNECTIONS', 50);
  const durationSec = intFromEnv('BENCH_DURATION', 10);
  const warmupSec = intFromEnv('BENCH_WARMUP', 2);
  if (connections < 1 || durationSec < 1) throw new Error('BENCH_CONNECTIONS and BENCH_DURATION must be at least 1');
  // The rows compared with each other run in interleaved slices (measureInterleaved).
  const rounds = intFromEnv('BENCH_ROUNDS', 5);
  if (rounds < 1 || rounds > durationSec) throw new Error('BENCH_ROUNDS must be between 1 and BENCH_DURATION');

  const cleanups = createCleanups();

  try {
    const stack = await startEphemeralStack({ name: 'bench_api', temporalServer: onTemporalServer() });
    cleanups.push(() => stack.stop());

    const config: Config = { ...loadConfig(), databaseUrl: stack.databaseUrl, temporalAddress: stack.temporalAddress };
    // Same pool size as the production API process (src/main/api.ts).
    const db = createDb(stack.databaseUrl, API_DB_POOLS);
    cleanups.push(() => db.destroy());
    const temporal = await connectTemporalClient(
      stack.temporalAddress,
      config.temporalNamespace,
      // Encrypted as in production (a key of this run).
      payloadEncryptionCodec(generateSecretsKey()),
    );
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

    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 20 });
    cleanups.push(() => pool.end());
    const preparedServer = http.createServer(koaWithOnePreparedSelect(pool, lineId).callback());
    const preparedUrl = await listen(preparedServer);
    cleanups.push(() => closeServer(preparedServer));
    const keyedServer = http.createServer(
      koaWithKeyAndScopedSelect(pool, lineId, { plaintext: key, workspaceId: workspace.id }).callback(),
    );
    const keyedUrl = await listen(keyedServer);
    cleanups.push(() => closeServer(keyedServer));

    // The write rows: for each route, tenants enough for every request of the run to stay under each workspace's limit
    // (consent 100/hour; messages 10/minute, shared by both SMS routes, so each gets tenants of its own).
    // BENCH_WRITE_TENANTS / BENCH_SMS_TENANTS set the counts; BENCH_WRITES=none leaves the write rows out (e.g. to
    // profile the GET), BENCH_WRITES=message runs one route. BENCH_READS=0 leaves the read rows out.
    const routes = writeRoutesToRun(process.env.BENCH_WRITES);
    const runReads = process.env.BENCH_READS !== '0';
    const tenantsOf = new Map<WriteRoute, WriteLoad['tenants']>();
    for (const route of routes) {
      const count = route === 'consent' ? intFromEnv('BENCH_WRITE_TENANTS', 200) : intFromEnv('BENCH_SMS_TENANTS', 1500);
      tenantsOf.set(route, await createWriteTenants(db, route, count));
    }
    await createScratchTable(db);
    cleanups.push(() => db.schema.dropTableIfExists(SCRATCH_TABLE));
    const floorUrls = new Map<number, string>();
    for (const rows of new Set(routes.map((route) => WRITE_ROUTES[route].rowsWritten.length))) {
      const server = http.createServer(koaWithInserts(db, rows).callback());
      floorUrls.set(rows, await listen(server));
      cleanups.push(() => closeServer(server));
    }

    const linePath = `/api/v1/lines/${lineId}`;
    const authHeaders = { authorization: `Bearer ${key}` };

    // Sanity check: the benchmarked request must succeed and return the line.
    const probe = await fetch(`${apiUrl}${linePath}`, { headers: authHeaders });
    const probeBody = (await probe.json()) as { line?: { id?: string } };
    if (probe.status !== 200 || probeBody.line?.id !== lineId) {
      throw new Error(`GET ${linePath} answered ${probe.status} ${JSON.stringify(probeBody)}; refusing to benchmark`);
    }

    // Each write must succeed too; probed as the last tenant with its last number, which the run reaches only at its very end.
    // BENCH_QUERIES=1 prints the statements each probe sent.
    for (const route of routes) {
      const tenant = tenantsOf.get(route)!.at(-1)!;
      const shape = WRITE_ROUTES[route];
      const queries = process.env.BENCH_QUERIES === '1' ? countQueries(db) : undefined;
      const writeProbe = await fetch(`${apiUrl}${shape.path(tenant)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify(shape.body(tenant, shape.perTenant - 1)),
      });
      queries?.stop();
      if (writeProbe.status !== 201)
        throw new Error(`${shape.title} answered ${writeProbe.status} ${await writeProbe.text()}; refusing to benchmark`);
      if (queries) {
        console.log(`[bench] ${shape.title}: ${queries.total()} statements`);
        for (const [sql] of queries.top(50)) console.log(`  ${sql}`);
      }
    }

    console.log(
      `[bench] ${connections} connections, ${warmupSec}s warm-up + ${durationSec}s measured per target in ${rounds} interleaved slices, load generator in a child process per target`,
    );
    const common = { connections, durationSec, warmupSec };
    const postgresPort = Number(new URL(stack.databaseUrl).port || 5432);
    const temporalPid = stack.temporalServerPid ?? listeningPid(portOf(stack.temporalAddress));
    const failures: string[] = [];
    const measured: Summary[] = [];
    if (runReads && process.env.BENCH_FLOORS === '0') {
      // The GET alone, to profile it (BENCH_FLOORS=0, as for the writes).
      const [get] = await measureInterleaved(
        [{ ...common, title: 'switchboard GET line', url: `${apiUrl}${linePath}`, headers: authHeaders }],
        { rounds: 1, postgresPort, temporalPid },
      );
      measured.push(get!);
    } else if (runReads) {
      const [baseline, oneSelect, onePrepared, keyed, switchboard] = (await measureInterleaved(
        [
          { ...common, title: 'baseline (bare Koa)', url: `${baselineUrl}/`, headers: {} },
          { ...common, title: 'bare Koa + one SELECT', url: `${selectUrl}/`, headers: {} },
          { ...common, title: 'bare Koa + one prepared SELECT (raw pg)', url: `${preparedUrl}/`, headers: {} },
          { ...common, title: 'Koa + key + scoped prepared SELECT + record', url: `${keyedUrl}/`, headers: authHeaders },
          { ...common, title: 'switchboard GET line', url: `${apiUrl}${linePath}`, headers: authHeaders },
        ],
        { rounds, postgresPort, temporalPid },
      )) as [Summary, Summary, Summary, Summary, Summary];
      measured.push(baseline, oneSelect, onePrepared, keyed, switchboard);
      console.log('');
      printSummaries(baseline, switchboard, oneSelect, onePrepared, keyed);
      console.log('');
      printCpuPerRequest([baseline, oneSelect, onePrepared, keyed, switchboard]);
      const readRatio = switchboard.reqPerSec / onePrepared.reqPerSec;
      console.log(
        `[bench] the least a conforming GET does (key, scoped prepared SELECT, wire record): ` +
          `${fmt(keyed.reqPerSec / onePrepared.reqPerSec, 3)}x Koa + one prepared SELECT; switchboard GET ${fmt(switchboard.reqPerSec / keyed.reqPerSec, 3)}x of it`,
      );
      console.log(
        `[bench] GET line: ${fmt(readRatio, 3)}x Koa + one prepared SELECT: ${readRatio >= READ_TARGET ? 'meets' : 'MISSES'} the target`,
      );
      console.log('');
    }

    const writes: Array<{ floor: Summary; route: Summary }> = [];
    for (const route of routes) {
      const shape = WRITE_ROUTES[route];
      const inserts = shape.rowsWritten.length;
      const write: WriteLoad = { route, tenants: tenantsOf.get(route)! };
      const routeSpec: LoadSpec = { ...common, title: shape.title, url: apiUrl, headers: {}, write };
      // BENCH_FLOORS=0 measures the routes alone (to profile them); the verdicts then have nothing to compare with.
      const floorSpec: LoadSpec | undefined =
        process.env.BENCH_FLOORS === '0'
          ? undefined
          : {
              ...common,
              title: `bare Koa + JSON body + ${inserts} INSERTs`,
              url: floorUrls.get(inserts)!,
              headers: {},
              write: { ...write, floor: true },
            };
      // Accepted SMS are handed to their batches' send workflows after the answer (docs/decisions/sms.md): after each of
      // the route's slices, the hand-over catches up before the next slice starts, so that its tail is not counted in
      // the floor's slice (no worker runs the workflows). The bench says how far behind it was and how long it took.
      const handOver = { backlog: 0, seconds: 0 };
      const catchUp = async (spec: LoadSpec): Promise<void> => {
        if (route === 'consent' || spec !== routeSpec) return;
        handOver.backlog += app.messageDispatcher.pending();
        const started = performance.now();
        await app.messageDispatcher.drain(300_000);
        handOver.seconds += (performance.now() - started) / 1000;
      };
      // BENCH_QUERIES=1: which of the route's statements waited longest for Postgres under the load (the floor's
      // INSERTs into the scratch table are counted too).
      const timed = process.env.BENCH_QUERIES === '1' ? countQueries(db) : undefined;
      const [measuredRoute, floor] = await measureInterleaved(floorSpec ? [routeSpec, floorSpec] : [routeSpec], {
        rounds: floorSpec ? rounds : 1,
        postgresPort,
        temporalPid,
        betweenSlices: catchUp,
      });
      timed?.stop();
      for (const q of timed?.slowest(12) ?? []) console.log(`[bench] ${shape.title}: ${fmt(q.meanMs, 2)} ms mean x ${q.count}  ${q.sql}`);
      if (route !== 'consent') {
        console.log(
          `[bench] ${shape.title}: ${handOver.backlog} messages in all still to hand over when its slices stopped; ` +
            `caught up in ${fmt(handOver.seconds, 1)} s in all (${app.messageDispatcher.pending()} left)`,
        );
      }
      measured.push(measuredRoute!);
      if (!floor) continue;
      measured.push(floor);
      writes.push({ floor, route: measuredRoute! });
    }
    if (process.env.BENCH_FLOORS === '0') {
      printTable(SUMMARY_HEADER, measured.map(summaryRow));
      console.log('');
      printCpuPerRequest(measured);
    }
    if (writes.length > 0) {
      failures.push(...printWriteSummaries(writes).map((title) => `${title} misses the write target`));
      console.log('');
      printCpuPerRequest(writes.flatMap(({ floor, route }) => [floor, route]));
      console.log('');
    }
    const failed = measured.filter((r) => r.non2xx > 0 || r.errors > 0 || r.total === 0);
    return reportFailures([
      ...failed.map(
        (r) => `${r.title} had ${r.non2xx} non-2xx responses and ${r.errors} errors (${r.timeouts} timeouts) over ${r.total} requests`,
      ),
      ...failures,
    ]);
  } finally {
    await cleanups.run();
  }
}

/** BENCH_WRITES: `all` (default), `none`, or a comma-separated list of routes (consent, message, line_sms). */
function writeRoutesToRun(setting: string | undefined): WriteRoute[] {
  const all = Object.keys(WRITE_ROUTES) as WriteRoute[];
  if (!setting || setting === 'all') return all;
  if (setting === 'none') return [];
  const asked = setting.split(',').map((s) => s.trim());
  const unknown = asked.filter((s) => !all.includes(s as WriteRoute));
  if (unknown.length > 0) throw new Error(`BENCH_WRITES: unknown route(s) ${unknown.join(', ')}; known: ${all.join(', ')}`);
  return asked as WriteRoute[];
}

runBench(process.argv.includes(LOADGEN_FLAG) ? loadgenMain : main);
