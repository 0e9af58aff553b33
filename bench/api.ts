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
import http from 'node:http';
import crypto from 'node:crypto';
import autocannon from 'autocannon';
import Koa from 'koa';
import pg from 'pg';
import getRawBody from 'raw-body';
import { createApp } from '../api/app';
import { intFromEnv, loadConfig, type Config } from '../src/platform/config';
import { createDb } from '../src/platform/db/knex';
import { startEphemeralStack } from '../dev/infra/stack';
import { createLogger } from '../src/platform/logger';
import { connectTemporalClient } from '../src/platform/temporal/client';
import { payloadEncryptionCodec } from '../src/platform/codecs/payloadEncryption';
import { generateSecretsKey } from '../src/platform/crypto/secretBox';
import { mintUserKey } from '../src/domain/keys/userKeys';
import { closeServer, listen } from './support/http';
import { createCleanups, onTemporalServer, reportFailures, runBench } from './support/run';
import { fmt, printTable, ratio, RATIO_LABEL } from './support/table';
import { createBenchWorkspace, insertActiveLine } from './support/tenant';
import { RATE_LIMITS } from '../src/domain/limits/policies';

const LOADGEN_FLAG = '--loadgen';

/** A write target: each request POSTs a new consent, as the tenants' keys in turn, each key at most `perTenant` times. */
interface WriteLoad {
  path: string;
  tenants: Array<{ key: string; lineId: string }>;
  perTenant: number;
}

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
}

// ---------------------------------------------------------------------------------------
// Child: the load generator.
// ---------------------------------------------------------------------------------------

async function runLoad(spec: LoadSpec): Promise<Summary> {
  const base = { url: spec.url, headers: spec.headers, connections: spec.connections, pipelining: 1, requests: writeRequests(spec.write) };
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

/**
 * Consent grants spread over the tenants so that no workspace passes its 100/hour: request n goes to tenant
 * floor(n / perTenant) with a number of its own (a repeat would be 409 `consent_already_granted`).
 * Past the last tenant the requests wrap around and the limiter answers 429, which fails the run.
 */
function writeRequests(write: WriteLoad | undefined): autocannon.Request[] | undefined {
  if (!write) return undefined;
  let sent = 0;
  return [
    {
      method: 'POST',
      path: write.path,
      setupRequest: (req) => {
        const n = sent;
        sent += 1;
        const tenant = write.tenants[Math.floor(n / write.perTenant) % write.tenants.length];
        return {
          ...req,
          headers: {
            authorization: `Bearer ${tenant.key}`,
            'content-type': 'application/json',
            'idempotency-key': crypto.randomUUID(),
          },
          body: JSON.stringify({
            line_id: tenant.lineId,
            phone_number: `+1415555${String(n % write.perTenant).padStart(4, '0')}`,
            consent_type: 'explicit_outbound',
          }),
        };
      },
    },
  ];
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

/** The write row's baseline: bare Koa reading and parsing the JSON body and doing one INSERT into a scratch table, same knex pool. */
function koaWithOneInsert(db: ReturnType<typeof createDb>): Koa {
  const koa = new Koa();
  koa.use(async (ctx) => {
    const body = JSON.parse(await getRawBody(ctx.req, { limit: '1mb', encoding: 'utf8' })) as Record<string, unknown>;
    const [row] = await db('bench_scratch_writes').insert({ body }).returning('*');
    ctx.status = 201;
    ctx.body = { row };
  });
  return koa;
}

const SUMMARY_HEADER = ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests'];

function summaryRow(r: Summary): string[] {
  return [r.title, fmt(r.reqPerSec, 0), fmt(r.p50, 2), fmt(r.p99, 2), String(r.non2xx), String(r.errors), String(r.total)];
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

function printWriteSummaries(baseline: Summary, switchboard: Summary): void {
  printTable(SUMMARY_HEADER, [...[baseline, switchboard].map(summaryRow), ratioRow('ratio switchboard/koa+insert', switchboard, baseline)]);
}

function printSummaries(baseline: Summary, switchboard: Summary, oneSelect: Summary, onePrepared: Summary): void {
  printTable(SUMMARY_HEADER, [
    ...[baseline, oneSelect, onePrepared, switchboard].map(summaryRow),
    ratioRow(RATIO_LABEL, switchboard, baseline),
    ratioRow('ratio switchboard/koa+select', switchboard, oneSelect),
    ratioRow('ratio switchboard/koa+prepared', switchboard, onePrepared),
  ]);
}

async function main(): Promise<number> {
  const connections = intFromEnv('BENCH_CONNECTIONS', 50);
  const durationSec = intFromEnv('BENCH_DURATION', 10);
  const warmupSec = intFromEnv('BENCH_WARMUP', 2);
  if (connections < 1 || durationSec < 1) throw new Error('BENCH_CONNECTIONS and BENCH_DURATION must be at least 1');

  const cleanups = createCleanups();

  try {
    const stack = await startEphemeralStack({ name: 'bench_api', temporalServer: onTemporalServer() });
    cleanups.push(() => stack.stop());

    const config: Config = { ...loadConfig(), databaseUrl: stack.databaseUrl, temporalAddress: stack.temporalAddress };
    // Same pool size as the production API process (src/main/api.ts).
    const db = createDb(stack.databaseUrl, { max: 20 });
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

    // The write row: tenants enough for every consent grant of the run to stay under each workspace's 100/hour
    // (at 1,000 writes/s a 12 s phase needs 120). BENCH_WRITE_TENANTS=0 leaves the write row out (e.g. to profile the GET).
    const perTenant = RATE_LIMITS['consent.create'].limit;
    const tenantCount = intFromEnv('BENCH_WRITE_TENANTS', 200);
    const writeTenant = async (i: number): Promise<WriteLoad['tenants'][number]> => {
      const t = await createBenchWorkspace(db);
      return {
        key: (await mintUserKey(db, { user: t.owner, environment: 'test', kind: 'standard', name: 'bench' })).plaintext,
        lineId: await insertActiveLine(db, {
          ...t,
          webhookUrl: 'https://agent.example.test/hooks',
          phoneNumber: `+1500600${String(i).padStart(4, '0')}`,
        }),
      };
    };
    const tenants: WriteLoad['tenants'] = [];
    // Set up ten at a time: each is a few round trips and a key hash.
    for (let i = 0; i < tenantCount; i += 10) {
      const batch = Array.from({ length: Math.min(10, tenantCount - i) }, (_, j) => writeTenant(i + j));
      tenants.push(...(await Promise.all(batch)));
    }
    await db.schema.dropTableIfExists('bench_scratch_writes');
    await db.schema.createTable('bench_scratch_writes', (t) => {
      t.bigIncrements('id');
      t.jsonb('body').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    });
    cleanups.push(() => db.schema.dropTableIfExists('bench_scratch_writes'));
    const insertServer = http.createServer(koaWithOneInsert(db).callback());
    const insertUrl = await listen(insertServer);
    cleanups.push(() => closeServer(insertServer));

    const linePath = `/api/v1/lines/${lineId}`;
    const authHeaders = { authorization: `Bearer ${key}` };

    // Sanity check: the benchmarked request must succeed and return the line.
    const probe = await fetch(`${apiUrl}${linePath}`, { headers: authHeaders });
    const probeBody = (await probe.json()) as { line?: { id?: string } };
    if (probe.status !== 200 || probeBody.line?.id !== lineId) {
      throw new Error(`GET ${linePath} answered ${probe.status} ${JSON.stringify(probeBody)}; refusing to benchmark`);
    }

    // The write must succeed too; probed as the last tenant, whose slots the run reaches only when it has used them all.
    const probeTenant = tenants.at(-1);
    if (probeTenant) {
      const writeProbe = await fetch(`${apiUrl}/api/v1/consent`, {
        method: 'POST',
        headers: { authorization: `Bearer ${probeTenant.key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ line_id: probeTenant.lineId, phone_number: '+14155559999', consent_type: 'explicit_outbound' }),
      });
      if (writeProbe.status !== 201)
        throw new Error(`POST /api/v1/consent answered ${writeProbe.status} ${await writeProbe.text()}; refusing to benchmark`);
    }

    console.log(
      `[bench] ${connections} connections, ${warmupSec}s warm-up + ${durationSec}s measured per target, load generator in a child process`,
    );
    const common = { connections, durationSec, warmupSec };
    const baseline = await measureInChild({ ...common, title: 'baseline (bare Koa)', url: `${baselineUrl}/`, headers: {} });
    const oneSelect = await measureInChild({ ...common, title: 'bare Koa + one SELECT', url: `${selectUrl}/`, headers: {} });
    const onePrepared = await measureInChild({
      ...common,
      title: 'bare Koa + one prepared SELECT (raw pg)',
      url: `${preparedUrl}/`,
      headers: {},
    });
    const switchboard = await measureInChild({
      ...common,
      title: 'switchboard GET line',
      url: `${apiUrl}${linePath}`,
      headers: authHeaders,
    });

    const writes: Summary[] = [];
    if (tenants.length > 0) {
      const write = { path: '/', tenants, perTenant };
      writes.push(
        await measureInChild({ ...common, title: 'bare Koa + JSON body + one INSERT', url: `${insertUrl}/`, headers: {}, write }),
      );
      const consentWrite = { ...write, path: '/api/v1/consent' };
      writes.push(await measureInChild({ ...common, title: 'switchboard POST consent', url: apiUrl, headers: {}, write: consentWrite }));
    }

    console.log('');
    printSummaries(baseline, switchboard, oneSelect, onePrepared);
    console.log('');
    if (writes.length === 2) {
      printWriteSummaries(writes[0], writes[1]);
      console.log('');
    }

    const failed = [switchboard, baseline, oneSelect, onePrepared, ...writes].filter((r) => r.non2xx > 0 || r.errors > 0 || r.total === 0);
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
