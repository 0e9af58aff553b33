/**
 * Webhook delivery benchmark: N `call_ended` events published through the real path
 * (`createEvent` row in Postgres + `startDelivery` of one `deliverEventWorkflow` each, run by
 * an in-process Temporal worker that signs and POSTs every attempt) to a local receiver that
 * answers 200 at once, against the same N JSON bodies POSTed by a bare fetch loop.
 *
 *   npm run bench:webhooks
 *   BENCH_EVENTS=2000 BENCH_CONCURRENCY=100 BENCH_TIMEOUT_S=300 npm run bench:webhooks
 *
 * Latency is measured from just before `createEvent` (baseline: just before `fetch`) to the
 * receiver's receipt of that event_id; deliveries/s is distinct events received over the wall
 * time from the first publish to the last receipt. Every event is counted: published, received
 * (distinct event_ids), missing (published − received) and duplicates (extra receipts of an
 * event_id). Exits 1 if any published event is missing by the deadline, or publishing failed.
 *
 * Uses DATABASE_URL / TEMPORAL_ADDRESS when set, otherwise an ephemeral stack (see
 * src/platform/infra/stack.ts). Everything (publisher, worker, receiver, baseline loop) runs in this
 * process, so both rows share one event loop with the receiver; compare the ratio.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { buildActivityDeps } from '../src/main/activityDeps';
import { intFromEnv, loadConfig } from '../src/platform/config';
import { LOOPBACK_NETWORKS } from '../src/platform/net/egress';
import { generateSecretsKey, parseSecretsKey } from '../src/platform/crypto/secretBox';
import { createDb, type Db } from '../src/platform/db/knex';
import { startEphemeralStack } from '../src/platform/infra/stack';
import { createCurrentSecret } from '../src/domain/lines/secrets';
import { connectTemporalClient } from '../src/platform/temporal/client';
import { createEvent, startDelivery } from '../src/domain/webhooks/publish';
import { createWorkspace } from '../src/domain/workspaces/service';
import { createCleanups } from './cleanups';

// Worker concurrency: enough slots that 50 concurrent publishers never queue behind the
// worker's own limits on a 2-core machine; Postgres and CPU are the real bounds.
const WORKER_OPTIONS = { maxConcurrentActivityTaskExecutions: 100, maxConcurrentWorkflowTaskExecutions: 100 };
// Same pool sizes as the production processes: API (publisher side) 20, worker 10.
const PUBLISHER_DB_POOL = 20;
const WORKER_DB_POOL = 10;
// Global fetch is undici bundled with Node; the `undici` package itself is not installed.
const BASELINE_LABEL = 'baseline: fetch (undici) loop';

// ---------------------------------------------------------------------------------------
// Receiver: records when each event_id arrives, answers 200 immediately.
// ---------------------------------------------------------------------------------------

interface Receiver {
  url: string;
  /** event_id → receipt times (performance.now()), one per request carrying it. */
  receipts: Map<string, number[]>;
  unparsable: number;
  close(): Promise<void>;
}

async function startBenchReceiver(): Promise<Receiver> {
  const receipts = new Map<string, number[]>();
  const state = { unparsable: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      let eventId: unknown;
      try {
        eventId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event_id?: unknown }).event_id;
      } catch {
        eventId = undefined;
      }
      if (typeof eventId !== 'string') {
        state.unparsable += 1;
        return;
      }
      const times = receipts.get(eventId);
      if (times) times.push(at);
      else receipts.set(eventId, [at]);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receipts,
    get unparsable() {
      return state.unparsable;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------
// Measurement helpers.
// ---------------------------------------------------------------------------------------

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight. */
async function runBounded(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next;
      next += 1;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, lane));
}

async function waitFor(done: () => boolean, deadline: number): Promise<void> {
  while (!done() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

interface Run {
  /** event_id → time just before it was created (engine) or sent (baseline). */
  sentAt: Map<string, number>;
  publishErrors: number;
  firstError?: string;
}

interface Row {
  title: string;
  published: number;
  received: number;
  missing: number;
  duplicates: number;
  publishErrors: number;
  perSec: number;
  p50: number;
  p99: number;
  max: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

function summarize(title: string, run: Run, receiver: Receiver): Row {
  const latencies: number[] = [];
  let duplicates = 0;
  let firstSent = Infinity;
  let lastReceipt = -Infinity;
  for (const [eventId, sent] of run.sentAt) {
    firstSent = Math.min(firstSent, sent);
    const times = receiver.receipts.get(eventId);
    if (!times) continue;
    duplicates += times.length - 1;
    const first = Math.min(...times);
    latencies.push(first - sent);
    lastReceipt = Math.max(lastReceipt, first);
  }
  latencies.sort((a, b) => a - b);
  const received = latencies.length;
  const wallSec = (lastReceipt - firstSent) / 1000;
  return {
    title,
    published: run.sentAt.size,
    received,
    missing: run.sentAt.size - received,
    duplicates,
    publishErrors: run.publishErrors,
    perSec: received > 0 && wallSec > 0 ? received / wallSec : Number.NaN,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies.length ? latencies[latencies.length - 1] : Number.NaN,
  };
}

const allReceived = (run: Run, receiver: Receiver) => () => {
  for (const eventId of run.sentAt.keys()) if (!receiver.receipts.has(eventId)) return false;
  return true;
};

const fmt = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function printTable(rows: Row[], ratio: { perSec: number; p50: number; p99: number }): void {
  const header = ['target', 'published', 'received', 'missing', 'dupes', 'deliveries/s', 'p50 ms', 'p99 ms', 'max ms'];
  const body = rows.map((r) => [r.title, String(r.published), String(r.received), String(r.missing), String(r.duplicates), fmt(r.perSec, 0), fmt(r.p50, 1), fmt(r.p99, 1), fmt(r.max, 1)]);
  body.push(['ratio switchboard/baseline', '', '', '', '', `${fmt(ratio.perSec, 3)}x`, `${fmt(ratio.p50, 1)}x`, `${fmt(ratio.p99, 1)}x`, '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of body) console.log(line(row));
}

// ---------------------------------------------------------------------------------------
// The two senders.
// ---------------------------------------------------------------------------------------

interface Target {
  db: Db;
  temporal: Client;
  taskQueue: string;
  workspaceId: string;
  lineId: string;
}

const payload = (i: number) => ({ call_id: crypto.randomUUID(), duration_sec: 30 + (i % 60) });

async function publishEvents(target: Target, n: number, concurrency: number): Promise<Run> {
  const run: Run = { sentAt: new Map(), publishErrors: 0 };
  await runBounded(n, concurrency, async (i) => {
    const t0 = performance.now();
    try {
      const eventId = await createEvent(target.db, { workspaceId: target.workspaceId, environment: 'test', lineId: target.lineId, type: 'call_ended', target: 'webhook', payload: payload(i), now: new Date() });
      await startDelivery(target.temporal, target.taskQueue, eventId, 'call_ended');
      run.sentAt.set(eventId, t0);
    } catch (err) {
      run.publishErrors += 1;
      run.firstError ??= (err as Error).message;
    }
  });
  return run;
}

/** The same body shape the delivery activity sends, POSTed straight to the receiver. */
async function sendBare(url: string, lineId: string, n: number, concurrency: number): Promise<Run> {
  const run: Run = { sentAt: new Map(), publishErrors: 0 };
  await runBounded(n, concurrency, async (i) => {
    const eventId = crypto.randomUUID();
    const body = JSON.stringify({ ...payload(i), event: 'call_ended', event_id: eventId, line_id: lineId });
    const t0 = performance.now();
    run.sentAt.set(eventId, t0);
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await response.text();
      if (!response.ok) throw new Error(`receiver answered ${response.status}`);
    } catch (err) {
      run.sentAt.delete(eventId);
      run.publishErrors += 1;
      run.firstError ??= (err as Error).message;
    }
  });
  return run;
}

// ---------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const events = intFromEnv('BENCH_EVENTS', 500);
  const concurrency = intFromEnv('BENCH_CONCURRENCY', 50);
  const timeoutSec = intFromEnv('BENCH_TIMEOUT_S', 120);
  const warmupEvents = intFromEnv('BENCH_WARMUP_EVENTS', 20);
  if (events < 1 || concurrency < 1 || timeoutSec < 1) throw new Error('BENCH_EVENTS, BENCH_CONCURRENCY and BENCH_TIMEOUT_S must be at least 1');

  // Once, before any native connection: keep the Temporal core and worker logs to warnings.
  Runtime.install({ logger: new DefaultLogger('WARN') });

  const cleanups = createCleanups();
  const cleanup = cleanups.run;

  try {
    const stack = await startEphemeralStack({ name: 'bench_webhooks' });
    cleanups.push(() => stack.stop());
    const config = loadConfig();
    const taskQueue = `bench-webhooks-${crypto.randomUUID()}`;
    const secretsKey = parseSecretsKey(generateSecretsKey());

    const receiver = await startBenchReceiver();
    cleanups.push(() => receiver.close());

    const db = createDb(stack.databaseUrl, { max: PUBLISHER_DB_POOL });
    cleanups.push(() => db.destroy());
    const temporal = await connectTemporalClient(stack.temporalAddress, config.temporalNamespace);
    cleanups.push(() => temporal.connection.close());

    // The worker, as src/main/worker.ts builds it, with its own pool and connection.
    const workerDb = createDb(stack.databaseUrl, { max: WORKER_DB_POOL });
    cleanups.push(() => workerDb.destroy());
    const connection = await NativeConnection.connect({ address: stack.temporalAddress });
    cleanups.push(() => connection.close());
    const worker = await Worker.create({
      connection,
      namespace: config.temporalNamespace,
      taskQueue,
      workflowsPath: require.resolve('../workflows'),
      activities: createActivities(
        buildActivityDeps(
          {
            ...config,
            // Deliveries never reach the carrier or the processors here: random keys stand in.
            carrierApiKey: crypto.randomBytes(32).toString('hex'),
            paymentsApiKey: crypto.randomBytes(32).toString('hex'),
            // The bench's receivers listen on loopback.
            outboundAllowedNetworks: [...LOOPBACK_NETWORKS],
          },
          { db: workerDb, temporal: () => temporal, secretsKey },
        ),
      ),
      ...WORKER_OPTIONS,
      shutdownGraceTime: '10 seconds',
    });
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
    });

    // A tenant and an active webhook line pointing at the receiver, inserted directly (no carrier).
    const suffix = crypto.randomBytes(6).toString('hex');
    const { workspace, owner } = await createWorkspace(db, { name: `Bench ${suffix}`, ownerEmail: `bench+${suffix}@example.test` });
    const [line] = await db('lines')
      .insert({
        workspace_id: workspace.id,
        user_id: owner.id,
        environment: 'test',
        name: 'Bench line',
        mode: 'webhook',
        webhook_url: receiver.url,
        phone_number: '+15005550100',
        status: 'active',
        activated_at: new Date(),
      })
      .returning<{ id: string }[]>('id');
    await createCurrentSecret(db, secretsKey, line.id, new Date());
    const target: Target = { db, temporal, taskQueue, workspaceId: workspace.id, lineId: line.id };

    // Warm-up (not counted): worker isolate and caches, pools, keep-alive sockets.
    if (warmupEvents > 0) {
      const warm = await publishEvents(target, warmupEvents, concurrency);
      await waitFor(allReceived(warm, receiver), performance.now() + timeoutSec * 1000);
      if (!allReceived(warm, receiver)() || warm.publishErrors > 0) throw new Error(`warm-up failed: ${summarize('warm-up', warm, receiver).missing} missing, ${warm.publishErrors} publish errors (${warm.firstError ?? 'no error'})`);
      await sendBare(receiver.url, line.id, warmupEvents, concurrency);
    }

    console.log(
      `[bench] ${events} call_ended events, ${concurrency} concurrent publishers, deadline ${timeoutSec}s; ` +
        `worker maxConcurrentActivityTaskExecutions=${WORKER_OPTIONS.maxConcurrentActivityTaskExecutions} maxConcurrentWorkflowTaskExecutions=${WORKER_OPTIONS.maxConcurrentWorkflowTaskExecutions}, ` +
        `db pools ${PUBLISHER_DB_POOL} (publisher) / ${WORKER_DB_POOL} (worker); ${warmupEvents} warm-up events per target`,
    );

    const baselineRun = await sendBare(receiver.url, line.id, events, concurrency);
    await waitFor(allReceived(baselineRun, receiver), performance.now() + timeoutSec * 1000);
    const baseline = summarize(BASELINE_LABEL, baselineRun, receiver);

    const started = performance.now();
    const cpu0 = process.cpuUsage();
    const engineRun = await publishEvents(target, events, concurrency);
    const publishSec = (performance.now() - started) / 1000;
    await waitFor(allReceived(engineRun, receiver), started + timeoutSec * 1000);
    const switchboard = summarize('switchboard deliverEventWorkflow', engineRun, receiver);
    const engineSec = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);

    // Let the workflows record their outcome before the worker shuts down.
    const succeeded = async () => Number((await workerDb('webhook_deliveries').whereIn('event_id', [...engineRun.sentAt.keys()]).where({ status: 'success' }).countDistinct({ n: 'event_id' }))[0].n);
    const settleDeadline = performance.now() + 10_000;
    let recorded = await succeeded();
    while (recorded < switchboard.received && performance.now() < settleDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      recorded = await succeeded();
    }

    console.log('');
    printTable([baseline, switchboard], { perSec: switchboard.perSec / baseline.perSec, p50: switchboard.p50 / baseline.p50, p99: switchboard.p99 / baseline.p99 });
    console.log('');
    // Where the time went: if this process was mostly idle, the wait was on Temporal or Postgres.
    console.log(`[bench] switchboard: publishing took ${publishSec.toFixed(1)}s of ${engineSec.toFixed(1)}s; this process (publisher + worker + receiver) used ${((cpu.user + cpu.system) / 1e6).toFixed(1)}s CPU meanwhile`);
    console.log(`[bench] switchboard: ${recorded} of ${switchboard.published} events logged as delivered in webhook_deliveries; receiver saw ${receiver.unparsable} requests without an event_id`);

    let failed = false;
    for (const [row, run] of [
      [switchboard, engineRun],
      [baseline, baselineRun],
    ] as const) {
      if (row.publishErrors > 0) {
        console.error(`[bench] FAIL: ${row.title}: ${row.publishErrors} of ${events} sends failed (first: ${run.firstError})`);
        failed = true;
      }
      if (row.missing > 0) {
        console.error(`[bench] FAIL: ${row.title}: ${row.missing} of ${row.published} published events never reached the receiver within ${timeoutSec}s`);
        failed = true;
      }
    }
    return failed ? 1 : 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
