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
 * Process layout: the Switchboard app runs in this (parent) process, the floors in a child
 * process of their own (support/apiFloors.ts), as each is deployed alone; the load generator
 * (autocannon) runs in a forked child process, one per target (support/loadGenerator.ts). A
 * separate process rather than a worker_thread so the generator shares nothing with the
 * servers under test: its own V8 heap and GC, event loop, and libuv threadpool, and the OS can
 * schedule it on the other core (the reference machine has 2). That is the same arrangement as
 * running wrk from another shell, while still producing every figure in a single command.
 */
import { NODE_FLAGS } from '../src/platform/buildLayout';
import { performance } from 'node:perf_hooks';
import http from 'node:http';
import crypto from 'node:crypto';
import { createApp } from '../api/app';
import { intFromEnv, loadConfig, type Config } from '../src/platform/config';
import { API_DB_POOLS, createDb } from '../src/platform/db/knex';
import { startEphemeralStack } from '../dev/infra/stack';
import { startFloors } from './support/apiFloors';
import { measureInterleaved, type LoadSpec, type Summary } from './support/loadGenerator';
import { createLogger } from '../src/platform/logger';
import { connectTemporalClient } from '../src/platform/temporal/client';
import { payloadEncryptionCodec } from '../src/platform/codecs/payloadEncryption';
import { generateSecretsKey } from '../src/platform/crypto/secretBox';
import { mintUserKey } from '../src/domain/keys/userKeys';
import { closeServer, listen } from './support/http';
import { listeningPid, portOf } from './support/cpu';
import { createCleanups, onTemporalServer, reportFailures, runBench } from './support/run';
import { fmt, printTable, ratio, RATIO_LABEL } from './support/table';
import { createBenchWorkspace, insertActiveLine } from './support/tenant';
import { countQueries } from './support/queries';
import { createScratchTable, createWriteTenants, SCRATCH_TABLE, WRITE_ROUTES, type WriteLoad, type WriteRoute } from './support/apiWrites';

// ---------------------------------------------------------------------------------------
// Parent: the servers under test.
// ---------------------------------------------------------------------------------------

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
  // The API runs in this process, so with the API's node flags, as deployed (NODE_FLAGS); the floors and the load
  // generators are forked from it and run with the same.
  const missingFlags = NODE_FLAGS.api.filter((flag) => !process.execArgv.includes(flag));
  if (missingFlags.length > 0)
    throw new Error(`start bench:api with the API's node flags, ${missingFlags.join(' ')} (npm run bench:api does)`);
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

    // A tenant with a standard test key, and an active line inserted directly (no worker needed).
    const { workspace, owner } = await createBenchWorkspace(db);
    const key = (await mintUserKey(db, { user: owner, environment: 'test', kind: 'standard', name: 'bench' })).plaintext;
    const lineId = await insertActiveLine(db, { workspace, owner, webhookUrl: 'https://agent.example.test/hooks' });

    // The write rows: for each route, tenants enough for every request of the run to stay under each workspace's limit
    // (consent 100/hour; messages 10/minute, shared by both SMS routes, so each gets tenants of its own).
    // BENCH_WRITE_TENANTS / BENCH_SMS_TENANTS set the counts; BENCH_WRITES=none leaves the write rows out (e.g. to
    // profile the GET), BENCH_WRITES=message runs one route. BENCH_READS=0 leaves the read rows out.
    const routes = writeRoutesToRun(process.env.BENCH_WRITES);
    const runReads = process.env.BENCH_READS !== '0';
    const tenantsOf = new Map<WriteRoute, WriteLoad['tenants']>();
    for (const route of routes) {
      const count = route === 'consent' ? intFromEnv('BENCH_WRITE_TENANTS', 400) : intFromEnv('BENCH_SMS_TENANTS', 2500);
      tenantsOf.set(route, await createWriteTenants(db, route, count));
    }
    await createScratchTable(db);
    cleanups.push(() => db.schema.dropTableIfExists(SCRATCH_TABLE));
    // The floors run in a process of their own (bench/support/apiFloors.ts says why).
    const floors = await startFloors({
      databaseUrl: stack.databaseUrl,
      lineId,
      key: { plaintext: key, workspaceId: workspace.id },
      inserts: [...new Set(routes.map((route) => WRITE_ROUTES[route].rowsWritten.length))],
    });
    cleanups.push(() => floors.stop());
    const onFloors = { serverPid: floors.pid };

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
          { ...common, ...onFloors, title: 'baseline (bare Koa)', url: `${floors.urls.baseline}/`, headers: {} },
          { ...common, ...onFloors, title: 'bare Koa + one SELECT', url: `${floors.urls.select}/`, headers: {} },
          { ...common, ...onFloors, title: 'bare Koa + one prepared SELECT (raw pg)', url: `${floors.urls.prepared}/`, headers: {} },
          {
            ...common,
            ...onFloors,
            title: 'Koa + key + scoped prepared SELECT + record',
            url: `${floors.urls.keyed}/`,
            headers: authHeaders,
          },
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
      if (readRatio < READ_TARGET) failures.push(`GET line misses the read target (${fmt(readRatio, 3)}x, ${READ_TARGET}x asked)`);
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
              ...onFloors,
              title: `bare Koa + JSON body + ${inserts} INSERTs`,
              url: floors.urls.inserts[inserts]!,
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
      // BENCH_QUERIES=1: which of the route's statements waited longest for Postgres under the load.
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

runBench(main);
