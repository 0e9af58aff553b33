/**
 * Call turn benchmark: real calls in webhook mode, driven through the carrier simulator, with
 * the whole system in this process (test/support/harness.ts: API server, an in-process worker
 * on its own task queue, the carrier simulator) against an ephemeral Postgres + Temporal.
 *
 *   npm run bench:calls
 *   BENCH_TURNS=500 BENCH_CALLS=30 BENCH_SECONDS=60 BENCH_DOUBLE=1 npm run bench:calls
 *
 * (a) Added turn latency: BENCH_TURNS (200) turns spread over BENCH_TURN_CALLS (4) concurrent
 *     calls, one turn at a time per call. Each turn is a unique caller sentence:
 *       say→message   from just before the simulator control `POST /control/calls/{id}/say` to the
 *                     receiver's receipt of the `message` event carrying that text;
 *       chunk→speak   from the receiver writing the first NDJSON line of its answer to the
 *                     simulator's carrier-API `speak` handler receiving that text. The simulator
 *                     runs in this process, so `speak` is observed by wrapping the simulator
 *                     state's `speak` method (exact, not polled);
 *       say→speak     the whole turn as the caller hears it, with a receiver that answers at once.
 *     Baseline: the same number of bare loopback HTTP POST round trips (fetch → a local server
 *     that answers 200 at once), sequentially over BENCH_TURN_CALLS lanes like the turns.
 * (b) Capacity: BENCH_CALLS (20) concurrent calls, each doing one turn every 5 s (phases
 *     staggered) for BENCH_SECONDS (30); reports say→speak p50/p99 and whether p99 < 150 ms.
 *     BENCH_DOUBLE=1 repeats it with 2 × BENCH_CALLS calls. Missing the target is reported, not
 *     a failure; the run exits 1 only if turns went unanswered or setup failed.
 *
 * A line carries one call at a time, so every call gets its own line, and every 10 lines a fresh
 * tenant (lines.create is limited to 10/hour per workspace). Calls are hung up, the harness closed and the stack stopped at the end.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { intFromEnv } from '../src/config';
import { generateSecretsKey } from '../src/crypto/secretBox';
import { startEphemeralStack } from '../src/infra/stack';
import { createTenant, startHarness, type Harness, type Tenant } from '../test/support/harness';
import { createCleanups } from './cleanups';

const TARGET_P99_MS = 150;
const TURN_TIMEOUT_MS = 10_000;
const CAPACITY_PERIOD_MS = 5_000;

// ---------------------------------------------------------------------------------------
// Receiver: records when each `message` arrives and when the first NDJSON line was written.
// ---------------------------------------------------------------------------------------

interface Receiver {
  url: string;
  /** Caller text → receipt time of its `message` event. */
  messageAt: Map<string, number>;
  /** Caller text → time the first NDJSON line of the answer was written. */
  firstChunkAt: Map<string, number>;
  close(): Promise<void>;
}

const replyTo = (text: string) => `ok ${text}`;

async function startTurnReceiver(): Promise<Receiver> {
  const messageAt = new Map<string, number>();
  const firstChunkAt = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      let body: { event?: unknown; text?: unknown } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        body = {};
      }
      if (body.event !== 'message' || typeof body.text !== 'string') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      const text = body.text;
      if (!messageAt.has(text)) messageAt.set(text, at);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (!firstChunkAt.has(text)) firstChunkAt.set(text, performance.now());
      res.write(`${JSON.stringify({ text: replyTo(text) })}\n`);
      res.end(`${JSON.stringify({ done: true })}\n`);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    messageAt,
    firstChunkAt,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Wraps the in-process simulator's `speak` so each spoken text's first arrival is timed. */
function observeSpeak(h: Harness): { speakAt: Map<string, number>; waiters: Map<string, () => void> } {
  const speakAt = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const calls = h.simulator.state.calls;
  const original = calls.speak.bind(calls);
  calls.speak = (carrierCallId, speakId, text) => {
    const at = performance.now();
    if (!speakAt.has(text)) {
      speakAt.set(text, at);
      waiters.get(text)?.();
      waiters.delete(text);
    }
    return original(carrierCallId, speakId, text);
  };
  return { speakAt, waiters };
}

// ---------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  title: string;
  count: number;
  missing: number;
  p50: number;
  p99: number;
  max: number;
}

function row(title: string, samples: number[], missing: number): Row {
  const sorted = [...samples].sort((a, b) => a - b);
  return { title, count: sorted.length, missing, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.length ? sorted[sorted.length - 1] : Number.NaN };
}

function printTable(rows: Row[]): void {
  const header = ['measure', 'count', 'missing', 'p50 ms', 'p99 ms', 'max ms'];
  const body = rows.map((r) => [r.title, String(r.count), String(r.missing), fmt(r.p50), fmt(r.p99), fmt(r.max)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const cells of body) console.log(line(cells));
}

async function postJson(url: string, body: unknown): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.text();
  return response.status;
}

// ---------------------------------------------------------------------------------------
// Calls and turns.
// ---------------------------------------------------------------------------------------

interface Bench {
  h: Harness;
  receiver: Receiver;
  speak: ReturnType<typeof observeSpeak>;
  /** Call ids still to hang up. */
  live: Map<string, string>;
}

interface Turn {
  text: string;
  sayAt: number;
  spoken: boolean;
}

/** Lines a workspace may create per hour (lines.create) — one tenant per this many calls. */
const LINES_PER_TENANT = 10;

async function placeCalls(bench: Bench, count: number): Promise<string[]> {
  const { h } = bench;
  // A line carries one call at a time: one line per call, and a fresh tenant per 10 lines.
  const tenants: Tenant[] = [];
  for (let i = 0; i < count; i += LINES_PER_TENANT) tenants.push(await createTenant(h.db));
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const tenant = tenants[Math.floor(i / LINES_PER_TENANT)];
      const lineResponse = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: { name: `Bench line ${i}`, mode: 'webhook', webhook_url: bench.receiver.url } });
      if (lineResponse.status !== 201) throw new Error(`line creation answered ${lineResponse.status}: ${lineResponse.text}`);
      const placed = await h.request('POST', '/api/v1/calls', { key: tenant.keys.test, body: { line_id: lineResponse.body.line.id, to_number: '+14155552671' } });
      if (placed.status !== 201) throw new Error(`call placement answered ${placed.status}: ${placed.text}`);
      const id = placed.body.call.id as string;
      bench.live.set(id, tenant.keys.test);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const status = (await h.request('GET', `/api/v1/calls/${id}`, { key: tenant.keys.test })).body.call.status;
        if (status === 'in_progress') return id;
        if (Date.now() > deadline) throw new Error(`call ${id} still ${status} after 30 s`);
        await sleep(50);
      }
    }),
  );
}

/** One turn: say a unique sentence, wait (up to TURN_TIMEOUT_MS) for the reply to be spoken. */
async function turn(bench: Bench, callId: string, label: string): Promise<Turn> {
  const text = `${label} ${crypto.randomBytes(4).toString('hex')}`;
  const reply = replyTo(text);
  const spoken = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      bench.speak.waiters.delete(reply);
      resolve(false);
    }, TURN_TIMEOUT_MS);
    bench.speak.waiters.set(reply, () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  const sayAt = performance.now();
  const status = await postJson(`${bench.h.simulator.url}/control/calls/${callId}/say`, { text });
  if (status !== 202) throw new Error(`say on ${callId} answered ${status}`);
  return { text, sayAt, spoken: await spoken };
}

function turnRows(bench: Bench, turns: Turn[], prefix: string): { rows: Row[]; endToEnd: Row } {
  const sayToMessage: number[] = [];
  const chunkToSpeak: number[] = [];
  const sayToSpeak: number[] = [];
  for (const t of turns) {
    const message = bench.receiver.messageAt.get(t.text);
    const chunk = bench.receiver.firstChunkAt.get(t.text);
    const speak = bench.speak.speakAt.get(replyTo(t.text));
    if (message !== undefined) sayToMessage.push(message - t.sayAt);
    if (chunk !== undefined && speak !== undefined) chunkToSpeak.push(speak - chunk);
    if (speak !== undefined) sayToSpeak.push(speak - t.sayAt);
  }
  const endToEnd = row(`${prefix}say→speak (turn)`, sayToSpeak, turns.length - sayToSpeak.length);
  return {
    rows: [row(`${prefix}say→message`, sayToMessage, turns.length - sayToMessage.length), row(`${prefix}first chunk→speak`, chunkToSpeak, turns.length - chunkToSpeak.length), endToEnd],
    endToEnd,
  };
}

/** Hangs the calls up and waits (up to 15 s) until each has left the active states. */
async function hangUp(bench: Bench, ids: string[]): Promise<void> {
  await Promise.all(
    ids.map(async (id) => {
      const key = bench.live.get(id);
      if (!key) return;
      await bench.h.request('POST', `/api/v1/calls/${id}/hangup`, { key });
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const status = (await bench.h.request('GET', `/api/v1/calls/${id}`, { key })).body?.call?.status;
        if (!['initiated', 'ringing', 'in_progress'].includes(status)) break;
        await sleep(100);
      }
      bench.live.delete(id);
    }),
  );
}

// ---------------------------------------------------------------------------------------
// Baseline: bare loopback POST round trips.
// ---------------------------------------------------------------------------------------

async function baselineRoundTrips(n: number, lanes: number): Promise<number[]> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const samples: number[] = [];
  try {
    // Warm-up (not counted): one keep-alive socket per lane.
    await Promise.all(Array.from({ length: lanes * 5 }, (_, i) => postJson(url, { event: 'message', text: `warmup ${i}` })));
    let next = 0;
    const lane = async () => {
      while (next < n) {
        next += 1;
        const t0 = performance.now();
        await postJson(url, { event: 'message', text: `baseline ${next}` });
        samples.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
  return samples;
}

// ---------------------------------------------------------------------------------------
// Phases.
// ---------------------------------------------------------------------------------------

async function latencyPhase(bench: Bench, turns: number, callCount: number, warmupTurns: number): Promise<{ rows: Row[]; missing: number }> {
  const ids = await placeCalls(bench, callCount);
  for (const [i, id] of ids.entries()) for (let w = 0; w < warmupTurns; w += 1) await turn(bench, id, `warmup c${i} t${w}`);
  const done: Turn[] = [];
  let next = 0;
  await Promise.all(
    ids.map(async (id, i) => {
      while (next < turns) {
        next += 1;
        done.push(await turn(bench, id, `latency c${i} t${next}`));
      }
    }),
  );
  await hangUp(bench, ids);
  const baseline = await baselineRoundTrips(turns, callCount);
  const { rows, endToEnd } = turnRows(bench, done, '');
  return { rows: [...rows, row('baseline: loopback POST round trip', baseline, 0)], missing: endToEnd.missing };
}

async function capacityPhase(bench: Bench, callCount: number, seconds: number): Promise<{ row: Row; turns: number }> {
  const ids = await placeCalls(bench, callCount);
  const done: Turn[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    ids.map(async (id, i) => {
      // Stagger the calls across the period so turns arrive evenly, not in bursts.
      let at = start + (CAPACITY_PERIOD_MS * i) / callCount;
      for (let t = 0; at < end; t += 1, at += CAPACITY_PERIOD_MS) {
        const wait = at - performance.now();
        if (wait > 0) await sleep(wait);
        done.push(await turn(bench, id, `capacity k${callCount} c${i} t${t}`));
      }
    }),
  );
  await hangUp(bench, ids);
  return { row: turnRows(bench, done, `K=${callCount} `).endToEnd, turns: done.length };
}

// ---------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const turns = intFromEnv('BENCH_TURNS', 200);
  const turnCalls = intFromEnv('BENCH_TURN_CALLS', 4);
  const calls = intFromEnv('BENCH_CALLS', 20);
  const seconds = intFromEnv('BENCH_SECONDS', 30);
  const double = process.env.BENCH_DOUBLE === '1';
  if (turns < 1 || turnCalls < 1 || calls < 1 || seconds < 1) throw new Error('BENCH_TURNS, BENCH_TURN_CALLS, BENCH_CALLS and BENCH_SECONDS must be at least 1');

  Runtime.install({ logger: new DefaultLogger('WARN') });

  const cleanups = createCleanups();
  const cleanup = cleanups.run;

  const t0 = performance.now();
  const log = (line: string) => console.log(`[bench] +${((performance.now() - t0) / 1000).toFixed(1)}s ${line}`);
  try {
    const stack = await startEphemeralStack({ name: 'bench_calls' });
    cleanups.push(() => stack.stop());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-bundle-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const noop = () => undefined;
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop } });
    const bundlePath = path.join(dir, 'workflow-bundle.js');
    fs.writeFileSync(bundlePath, code);
    process.env.DATABASE_URL = stack.databaseUrl;
    process.env.TEMPORAL_ADDRESS = stack.temporalAddress;
    process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
    process.env.SECRETS_KEY = process.env.SECRETS_KEY ?? generateSecretsKey();
    process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';

    log('stack up, workflow bundle built');
    const h = await startHarness();
    cleanups.push(() => h.close());
    // Before closing: drop the simulator's pending carrier events and let in-flight ones land,
    // so nothing calls into the API's Temporal client after it has been closed.
    cleanups.push(async () => {
      await postJson(`${h.simulator.url}/control/calls/reset`, {});
      await sleep(1_000);
    });
    await h.startWorker();
    const receiver = await startTurnReceiver();
    cleanups.push(() => receiver.close());
    const bench: Bench = { h, receiver, speak: observeSpeak(h), live: new Map() };
    cleanups.push(() => hangUp(bench, [...bench.live.keys()]));
    // Fast text-to-speech, so a reply has finished playing before the next sentence.
    await postJson(`${h.simulator.url}/control/speech`, { words_per_second: 1000 });

    console.log(`[bench] (a) ${turns} turns over ${turnCalls} concurrent calls (one turn at a time per call, 2 warm-up turns per call not counted)`);
    const latency = await latencyPhase(bench, turns, turnCalls, 2);
    console.log('');
    printTable(latency.rows);
    console.log('[bench] first chunk→speak: receiver wrote its first NDJSON line → in-process simulator speak() saw the text (exact, not polled)');
    console.log('');

    const capacityRuns = [calls, ...(double ? [calls * 2] : [])];
    let missing = latency.missing;
    const capacityRows: Row[] = [];
    for (const k of capacityRuns) {
      console.log(`[bench] (b) K=${k} concurrent calls, one turn per call every ${CAPACITY_PERIOD_MS / 1000} s for ${seconds} s`);
      const cpu0 = process.cpuUsage();
      const capacity = await capacityPhase(bench, k, seconds);
      const cpu = process.cpuUsage(cpu0);
      capacityRows.push(capacity.row);
      missing += capacity.row.missing;
      console.log(`[bench] K=${k}: ${capacity.turns} turns, this process used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`);
    }
    console.log('');
    printTable(capacityRows);
    for (const r of capacityRows) {
      const ok = r.p99 < TARGET_P99_MS;
      console.log(`[bench] ${r.title}: p99 ${fmt(r.p99)} ms ${ok ? '<' : '>='} ${TARGET_P99_MS} ms target: ${ok ? 'MET' : 'MISSED'}`);
    }
    if (missing > 0) {
      console.error(`[bench] FAIL: ${missing} turns were not spoken within ${TURN_TIMEOUT_MS / 1000} s`);
      return 1;
    }
    return 0;
  } finally {
    log('cleaning up');
    await cleanup();
    log('done');
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
