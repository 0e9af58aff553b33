/**
 * Call turn benchmark: real calls in webhook mode, driven through the carrier simulator, with
 * the whole system in this process by default (test/support/harness.ts: API server, an
 * in-process worker on its own task queue, the carrier simulator) against an ephemeral Postgres +
 * Temporal.
 *
 *   npm run bench:calls
 *   BENCH_TURNS=500 BENCH_CALLS=30 BENCH_SECONDS=60 BENCH_DOUBLE=1 npm run bench:calls
 *   BENCH_CALLS=5,10,40 npm run bench:calls          # several capacity runs
 *   BENCH_FIND_CAPACITY=1 npm run bench:calls        # search for the largest passing call count
 *
 * (a) Added turn latency: BENCH_TURNS (200) turns spread over BENCH_TURN_CALLS (4) concurrent
 *     calls, one turn at a time per call, back to back. Each turn is a unique caller sentence:
 *       say→message   from just before the simulator control `POST /control/calls/{id}/say` to the
 *                     receiver's receipt of the `message` event carrying that text;
 *       chunk→speak   from the receiver writing the first NDJSON line of its answer to the
 *                     simulator's carrier-API `speak` handler receiving that text. The simulator
 *                     runs in this process, so `speak` is observed by wrapping the simulator
 *                     state's `speak` method (exact, not polled);
 *       say→speak     the whole turn as the caller hears it, with a receiver that answers at once.
 *     say→message is then split into hops from each call's workflow history (say → signal event,
 *     signal → workflow task started, workflow task started → message), and the CPU time this
 *     process and the Temporal dev server spent per turn is printed.
 *     Each turn's next sentence waits (untimed) until the carrier has finished playing the reply, as
 *     a caller's would. Baselines: the same number of bare loopback HTTP POST round trips (fetch →
 *     a local server that answers 200 at once), sequentially over BENCH_TURN_CALLS lanes like the
 *     turns; and the reference turn loops of bench/turnBaseline in the same closed loop, then paced
 *     at the first K of (b): bare Temporal (signal → local activity POST) and the engine floor (a
 *     signed carrier POST to a bare Koa receiver that verifies the HMAC and signals; a local
 *     activity that signs the message POST and calls the carrier's speak API), with the ratios of
 *     Switchboard's turns/s and K latencies against both.
 * (b) Capacity: BENCH_CALLS (20; or a list, 5,10,20) concurrent calls, each doing one turn every
 *     5 s (phases staggered) for BENCH_SECONDS (30), starting once every call's setup has finished
 *     (its call_started delivered) plus 1 s; reports say→speak p50/p99 and whether p99 < 150 ms.
 *     BENCH_DOUBLE=1 adds a run with twice the largest count. BENCH_FIND_CAPACITY=1 instead
 *     doubles from the first count while p99 < 150 ms (up to BENCH_MAX_CALLS, 320), then bisects
 *     to within max(5, 10 %), and prints the largest passing count. Missing the target is
 *     reported, not a failure; the run exits 1 only if turns went unanswered or setup failed
 *     (outside the search, where both count as missing the target).
 *
 * BENCH_WORKER=process runs the worker entry point (src/main/worker.ts) as its own process, as a
 * deployment does, instead of in this process (inline, the default); the CPU line then shows the
 * worker apart from the API and simulator (BENCH_WORKER_LOG_LEVEL, default warn, is its log level).
 *
 * A line carries one call at a time, so every call gets its own line, and every 10 lines a fresh
 * tenant (lines.create is limited to 10/hour per workspace); calls are set up 20 at a time. Calls
 * are hung up, the harness closed and the stack stopped at the end.
 */
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { intFromEnv } from '../src/platform/config';
import { carrierCallbackHeaders } from '../src/adapters/carrier/callbacks/signature';
import { generateSecretsKey } from '../src/platform/crypto/secretBox';
import { LOOPBACK_NETWORKS } from '../src/platform/net/egress';
import { spawnLogged, stopProcess } from '../dev/infra/proc';
import { startEphemeralStack } from '../dev/infra/stack';
import { ACTIVE_CALL_STATUSES } from '../src/domain/calls/rules';
import { freePort } from '../src/platform/net/freePort';
import { createTenant, startHarness, type Harness, type Tenant } from '../test/support/harness';
import { inBatches, runBounded, sleep, waitUntil } from './support/async';
import { cpuSeconds, listeningPid, portOf, postgresCpuMs, processCpuMs } from './support/cpu';
import { postJson } from './support/http';
import { startJsonReceiver, startStubEndpoint } from './support/receivers';
import { baselineStopSignal, baselineTurnSignal, baselineTurnWorkflow, engineFloorTurnWorkflow } from './turnBaseline/workflows';
import { startFloorCarrierReceiver } from './turnBaseline/carrierReceiver';
import { countDurableRecords, openDurableRecords, resetDurableRecords } from './turnBaseline/durableRecords';
import { startTurnBaselineWorker } from './turnBaseline/worker';
import { createCleanups, elapsedLog, onTemporalServer, reportFailures, runBench } from './support/run';
import { distribution } from './support/stats';
import { fmt, printTable, ratio } from './support/table';
import { FAILURE_CONVERTER_PATH } from '../src/platform/codecs/failureConverter';
import { decryptedHistory } from '../dev/temporalHistory';

const TARGET_P99_MS = 150;
/** Extra node arguments for the worker processes (BENCH_WORKER=process), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const workerNodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
/** The same for the API process (BENCH_API=process). */
const apiNodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

const TURN_TIMEOUT_MS = 10_000;
/** How long after the reply is spoken a turn waits (untimed) for the carrier to report it played. */
const PLAYED_GRACE_MS = 2_000;
const CAPACITY_PERIOD_MS = 5_000;
/** After the calls of a capacity run have started, before its first turn. */
const SETTLE_MS = 1_000;

// ---------------------------------------------------------------------------------------
// Receiver: records when each `message` arrives and when the first NDJSON line was written.
// ---------------------------------------------------------------------------------------

interface Receiver {
  url: string;
  /** Caller text → receipt time of its `message` event. */
  messageAt: Map<string, number>;
  /** Caller text → time the first NDJSON line of the answer was written. */
  firstChunkAt: Map<string, number>;
  /** Calls whose `call_started` event has been delivered. */
  started: Set<string>;
  close(): Promise<void>;
}

const replyTo = (text: string) => `ok ${text}`;

async function startTurnReceiver(): Promise<Receiver> {
  const messageAt = new Map<string, number>();
  const firstChunkAt = new Map<string, number>();
  const started = new Set<string>();
  const endpoint = await startJsonReceiver((parsed, at, res) => {
    const body = (parsed ?? {}) as { event?: unknown; text?: unknown; call_id?: unknown };
    if (body.event === 'call_started' && typeof body.call_id === 'string') started.add(body.call_id);
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
  return { url: `${endpoint.origin}/hooks`, messageAt, firstChunkAt, started, close: endpoint.close };
}

/**
 * Wraps the in-process simulator's `speak` so each spoken text's first arrival is timed, and its
 * event sender so the end of each text's playback (`call.playback` `done: true` handed to the
 * call's event queue) can be awaited.
 */
function observeSpeak(h: Harness): {
  speakAt: Map<string, number>;
  waiters: Map<string, () => void>;
  playedWaiters: Map<string, () => void>;
} {
  const speakAt = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const playedWaiters = new Map<string, () => void>();
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
  calls.onEvent = (event) => {
    if (event.type === 'call.playback' && event.done && event.played_text !== undefined) {
      playedWaiters.get(event.played_text)?.();
      playedWaiters.delete(event.played_text);
    }
  };
  return { speakAt, waiters, playedWaiters };
}

// ---------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------

interface Row {
  title: string;
  count: number;
  missing: number;
  p50: number;
  p99: number;
  max: number;
}

function row(title: string, samples: number[], missing: number): Row {
  const { count, p50, p99, max } = distribution(samples);
  return { title, count, missing, p50, p99, max };
}

function printRows(rows: Row[]): void {
  const header = ['measure', 'count', 'missing', 'p50 ms', 'p99 ms', 'max ms'];
  printTable(
    header,
    rows.map((r) => [r.title, String(r.count), String(r.missing), fmt(r.p50, 1), fmt(r.p99, 1), fmt(r.max, 1)]),
  );
}

/** A POST to the simulator's control API, with its token. */
async function control(h: Harness, path: string, body: unknown): Promise<number> {
  const response = await h.simulator.control('POST', path, body);
  await response.text();
  return response.status;
}

/** Waits (up to 60 s) until the worker process polls the task queue. */
async function waitForWorker(h: Harness, worker: ChildProcess, logFile: string, taskQueue = h.config.taskQueue): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (worker.exitCode !== null)
      throw new Error(`the worker process exited (${worker.exitCode}): ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    const { pollers } = await h.temporal.workflowService.describeTaskQueue({
      namespace: h.config.temporalNamespace,
      taskQueue: { name: taskQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    if ((pollers ?? []).length > 0) return;
    if (Date.now() > deadline) throw new Error('the worker process did not poll within 60 s');
    await sleep(200);
  }
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
  /** The Temporal dev server the stack started (for its CPU time), if it started one. */
  temporalPid: number | undefined;
  /** The worker process (BENCH_WORKER=process), for its CPU time. */
  workerPid: number | undefined;
  /** The API process taking the carrier's events (BENCH_API=process), for its CPU time. */
  apiPid: number | undefined;
}

interface Turn {
  callId: string;
  text: string;
  sayAt: number;
  spoken: boolean;
}

/** Lines a workspace may create per hour (lines.create) — one tenant per this many calls. */
const LINES_PER_TENANT = 10;
/** Calls set up at once. */
const PLACE_BATCH = 20;

async function placeCalls(bench: Bench, count: number): Promise<string[]> {
  const { h } = bench;
  // A line carries one call at a time: one line per call, and a fresh tenant per 10 lines.
  const tenants: Tenant[] = [];
  for (let i = 0; i < count; i += LINES_PER_TENANT) tenants.push(await createTenant(h.db));
  // In batches, so that setting up many calls does not time itself out.
  return inBatches(
    Array.from({ length: count }, (_, i) => i),
    PLACE_BATCH,
    (i) => placeCall(bench, tenants, i),
  );
}

/** One call on its own fresh line, connected (in_progress). */
async function placeCall(bench: Bench, tenants: Tenant[], i: number): Promise<string> {
  const { h } = bench;
  const tenant = tenants[Math.floor(i / LINES_PER_TENANT)];
  const lineResponse = await h.request('POST', '/api/v1/lines', {
    key: tenant.keys.test,
    body: { name: `Bench line ${i}`, mode: 'webhook', webhook_url: bench.receiver.url },
  });
  if (lineResponse.status !== 201) throw new Error(`line creation answered ${lineResponse.status}: ${lineResponse.text}`);
  const lineId = lineResponse.body.line.id as string;
  // Many lines at once may still be provisioning when POST /lines answers.
  for (let status = lineResponse.body.line.status, waited = 0; status !== 'active'; waited += 100) {
    if (waited > 30_000) throw new Error(`line ${lineId} still ${status} after 30 s`);
    await sleep(100);
    status = (await h.request('GET', `/api/v1/lines/${lineId}`, { key: tenant.keys.test })).body.line.status;
  }
  const placed = await h.request('POST', '/api/v1/calls', { key: tenant.keys.test, body: { line_id: lineId, to_number: '+14155552671' } });
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
}

/**
 * One turn: say a unique sentence, wait (up to TURN_TIMEOUT_MS) for the reply to be spoken, then
 * (not timed) for the carrier to have finished playing it, so that the next sentence follows the
 * reply as a caller's would instead of talking over its last milliseconds (a barge-in).
 */
async function turn(bench: Bench, callId: string, label: string): Promise<Turn> {
  const text = `${label} ${crypto.randomBytes(4).toString('hex')}`;
  const reply = replyTo(text);
  const waitFor = (waiters: Map<string, () => void>, ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        waiters.delete(reply);
        resolve(false);
      }, ms);
      waiters.set(reply, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  const spoken = waitFor(bench.speak.waiters, TURN_TIMEOUT_MS);
  const played = waitFor(bench.speak.playedWaiters, TURN_TIMEOUT_MS + PLAYED_GRACE_MS);
  const sayAt = performance.now();
  const status = await control(bench.h, `/control/calls/${callId}/say`, { text });
  if (status !== 202) throw new Error(`say on ${callId} answered ${status}`);
  const result = { callId, text, sayAt, spoken: await spoken };
  if (result.spoken) await played;
  else bench.speak.playedWaiters.delete(reply);
  return result;
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
    rows: [
      row(`${prefix}say→message`, sayToMessage, turns.length - sayToMessage.length),
      row(`${prefix}first chunk→speak`, chunkToSpeak, turns.length - chunkToSpeak.length),
      endToEnd,
    ],
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
        if (!ACTIVE_CALL_STATUSES.includes(status)) break;
        await sleep(100);
      }
      bench.live.delete(id);
    }),
  );
}

// ---------------------------------------------------------------------------------------
// Where the time goes: each turn's hops, from the call's workflow history.
// ---------------------------------------------------------------------------------------

/** A history event as `JSON.stringify` of the client's History renders it. */
interface HistoryEvent {
  eventId: string;
  eventTime: { seconds: string; nanos: number };
  eventType: string;
  workflowExecutionSignaledEventAttributes?: { input?: { payloads?: Array<{ data?: string }> } };
}

/** performance.now() → epoch ms (history event times are epoch; the bench times are monotonic). */
const epochOf = (monotonic: number) => performance.timeOrigin + monotonic;
const eventMs = (e: HistoryEvent) => Number(e.eventTime.seconds) * 1000 + e.eventTime.nanos / 1e6;

const HOPS = [
  // Simulator control call, the carrier event POST, the API, the signal RPC.
  'say → signal in history',
  // Task dispatch, or waiting for the workflow task already in flight.
  'signal → workflow task started',
  // Activation, then the turn's activity (scheduled through the server, or local), the event insert and lookups, the POST.
  'workflow task started → message',
] as const;

/**
 * Splits each turn's say→message time into hops, reading the call's history: the signal that
 * carried the sentence, the next workflow task started, then the receiver's receipt.
 */
async function hopRows(bench: Bench, turns: Turn[]): Promise<Row[]> {
  const samples: number[][] = HOPS.map(() => []);
  const byCall = new Map<string, Turn[]>();
  for (const t of turns) byCall.set(t.callId, [...(byCall.get(t.callId) ?? []), t]);
  let missing = 0;
  for (const [callId, callTurns] of byCall) {
    const history = JSON.parse(JSON.stringify(await decryptedHistory(bench.h.temporal, callId))) as {
      events: HistoryEvent[];
    };
    const events = history.events;
    for (const t of callTurns) {
      const message = bench.receiver.messageAt.get(t.text);
      const signalIndex = events.findIndex((e) => {
        const data = e.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0]?.data;
        if (!data) return false;
        const event = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { type?: string; text?: string };
        return event.type === 'call.utterance' && event.text === t.text;
      });
      const started = events.findIndex((e, i) => i > signalIndex && e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_STARTED');
      if (message === undefined || signalIndex < 0 || started < 0) {
        missing += 1;
        continue;
      }
      const points = [epochOf(t.sayAt), eventMs(events[signalIndex]), eventMs(events[started]), epochOf(message)];
      HOPS.forEach((_, i) => samples[i].push(points[i + 1] - points[i]));
    }
  }
  return HOPS.map((title, i) => row(`  ${title}`, samples[i], missing));
}

// ---------------------------------------------------------------------------------------
// Baseline: bare loopback POST round trips.
// ---------------------------------------------------------------------------------------

async function baselineRoundTrips(n: number, lanes: number): Promise<number[]> {
  const endpoint = await startStubEndpoint(200, '{}');
  const url = `${endpoint.origin}/`;
  const samples: number[] = [];
  try {
    // Warm-up (not counted): one keep-alive socket per lane.
    await Promise.all(Array.from({ length: lanes * 5 }, (_, i) => postJson(url, { event: 'message', text: `warmup ${i}` })));
    await runBounded(n, lanes, async (i) => {
      const t0 = performance.now();
      await postJson(url, { event: 'message', text: `baseline ${i + 1}` });
      samples.push(performance.now() - t0);
    });
  } finally {
    await endpoint.close();
  }
  return samples;
}

// ---------------------------------------------------------------------------------------
// Baseline: a bare-Temporal turn loop (bench/turnBaseline) on the same server and worker settings.
// ---------------------------------------------------------------------------------------

/** Per-turn CPU of each process over a phase: ms of CPU / turns (undefined where not measured). */
interface CpuPerTurn {
  bench: number | undefined;
  /** The API process (BENCH_API=process); its turns' carrier events go there. */
  api: number | undefined;
  worker: number | undefined;
  temporal: number | undefined;
  postgres: number | undefined;
}

/** The Postgres port of DATABASE_URL (for its server's CPU time). */
const postgresPort = () => Number(new URL(process.env.DATABASE_URL ?? 'postgres://localhost:5432').port || 5432);

function cpuMeter(pids: {
  worker: number | undefined;
  temporal: number | undefined;
  api?: number | undefined;
}): (turns: number) => CpuPerTurn {
  const at = () => ({
    bench: processCpuMs(process.pid),
    api: processCpuMs(pids.api),
    worker: processCpuMs(pids.worker),
    temporal: processCpuMs(pids.temporal),
    postgres: postgresCpuMs(postgresPort()),
  });
  const before = at();
  return (turns) => {
    const after = at();
    const per = (b: number | undefined, a: number | undefined) => (b === undefined || a === undefined ? undefined : (a - b) / turns);
    return {
      bench: per(before.bench, after.bench),
      api: per(before.api, after.api),
      worker: per(before.worker, after.worker),
      temporal: per(before.temporal, after.temporal),
      postgres: per(before.postgres, after.postgres),
    };
  };
}

const msOrNa = (ms: number | undefined) => (ms === undefined ? 'n/a' : fmt(ms, 1));

interface ThroughputResult {
  turnsPerSecond: number;
  latency: Row;
  cpu: CpuPerTurn;
}

/** For reading a --cpu-prof profile over one phase only (V8 profiles count time on the same monotonic clock). */
function printWindow(phase: string, start: bigint): void {
  if (process.env.BENCH_PRINT_WINDOW === '1')
    console.log(`[bench] ${phase} window, monotonic µs: ${start / 1000n} ${process.hrtime.bigint() / 1000n}`);
}

/** One paced run: `lanes` lanes, each doing one `turn` every CAPACITY_PERIOD_MS (phases staggered) for `seconds`. */
async function paced<T>(lanes: number, seconds: number, turn: (lane: number, index: number) => Promise<T>): Promise<T[]> {
  const done: T[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: lanes }, async (_, i) => {
      // Stagger the lanes across the period so turns arrive evenly, not in bursts.
      let at = start + (CAPACITY_PERIOD_MS * i) / lanes;
      for (let t = 0; at < end; t += 1, at += CAPACITY_PERIOD_MS) {
        const wait = at - performance.now();
        if (wait > 0) await sleep(wait);
        done.push(await turn(i, t));
      }
    }),
  );
  return done;
}

/** The same closed loop, back to back over `lanes` lanes until `turns` turns are done. */
async function closedLoop<T>(lanes: number, turns: number, turn: (lane: number, index: number) => Promise<T>): Promise<T[]> {
  const done: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, i) => {
      while (next < turns) {
        next += 1;
        done.push(await turn(i, next));
      }
    }),
  );
  return done;
}

/** A waiter per text: resolves to the arrival time (performance.now()) of that text, or rejects after TURN_TIMEOUT_MS. */
function arrivals() {
  const waiting = new Map<string, (at: number) => void>();
  return {
    arrived(text: string, at: number) {
      waiting.get(text)?.(at);
      waiting.delete(text);
    },
    expect(text: string, what: string): Promise<number> {
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(text);
          reject(new Error(`${what} of ${text} not received within ${TURN_TIMEOUT_MS / 1000} s`));
        }, TURN_TIMEOUT_MS);
        waiting.set(text, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
  };
}

interface ReferenceResults {
  bare: ThroughputResult;
  /** The engine floor's closed loop: `latency` is carrier POST → speak, `message` carrier POST → message. */
  floor: ThroughputResult & { message: Row };
  /** The durable floor's closed loop (the engine floor plus the Postgres writes a turn cannot skip across processes). */
  durable: ThroughputResult & { message: Row };
  /** The open loop at K lanes, one turn each every 5 s (as Switchboard's K phase). */
  paced: { k: number; bare: Row; floorMessage: Row; floorSpeak: Row };
}

/**
 * The reference turn loops of bench/turnBaseline on the same server, with their worker run like
 * the project's (inline, or its own process with BENCH_WORKER=process) with WORKER_TUNING:
 *
 * - bare Temporal: a signal, one local activity that POSTs to a local receiver (answering 200 at
 *   once), the next signal. A turn = the signal RPC → the receiver's receipt of the POST.
 * - engine floor: the hops every Switchboard turn makes by the spec, and nothing else: the driver
 *   sends the utterance as a signed carrier POST to a bare Koa receiver that verifies the HMAC and
 *   signals the workflow; the local activity POSTs a signed `message` to a receiver answering as
 *   the bench's receiver does (NDJSON), then hands the reply to a carrier `speak` endpoint. A turn =
 *   the carrier POST → `speak` received (and → `message` received, for say→message).
 * - durable floor: the engine floor plus the writes a turn cannot skip once it runs across several
 *   processes (bench/turnBaseline/durableRecords.ts, raw pg, prepared statements): both carrier events'
 *   signatures accepted once in Postgres, the `message` event recorded before its POST and settled after,
 *   and the carrier's `call.playback` report (the driver sends it signed once `speak` has arrived, untimed,
 *   as the simulator does for Switchboard) recorded. Closed loop only; the bench checks every row is there.
 *
 * Bare and engine floor run the closed loop of phase (a) (same lanes, same turns) and the paced loop
 * of phase (b) at K lanes for `seconds`.
 */
async function referenceTurns(
  bench: Bench,
  options: { turns: number; lanes: number; warmupTurns: number; dir: string; workerMode: 'inline' | 'process'; k: number; seconds: number },
): Promise<ReferenceResults> {
  const { h } = bench;
  const taskQueue = `${h.config.taskQueue}-bare-turns`;
  const noop = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./turnBaseline/workflows'),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop },
  });
  const bundlePath = path.join(options.dir, 'baseline-bundle.js');
  fs.writeFileSync(bundlePath, code);
  const cleanups: Array<() => Promise<void>> = [];
  const bareMessages = arrivals();
  const floorMessages = arrivals();
  const floorSpeaks = arrivals();
  /** The speak ids the carrier's `speak` endpoint was handed, by reply text: the durable floor's playback reports name them. */
  const speakIds = new Map<string, string>();
  const databaseUrl = h.config.databaseUrl!;
  await resetDurableRecords(databaseUrl);
  try {
    const bareReceiver = await startJsonReceiver((body, at, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const text = (body as { text?: string } | undefined)?.text;
      if (text) bareMessages.arrived(text, at);
    });
    cleanups.push(bareReceiver.close);
    // Answers as the bench's receiver answers Switchboard's `message`: NDJSON, the reply's line at once.
    const floorReceiver = await startJsonReceiver((body, at, res) => {
      const text = (body as { text?: string } | undefined)?.text ?? '';
      floorMessages.arrived(text, at);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ text: replyTo(text) })}\n`);
      res.end(`${JSON.stringify({ done: true })}\n`);
    });
    cleanups.push(floorReceiver.close);
    const speakEndpoint = await startJsonReceiver((body, at, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const { text, speak_id: speakId } = (body as { text?: string; speak_id?: string } | undefined) ?? {};
      if (text && speakId) speakIds.set(text, speakId);
      if (text) floorSpeaks.arrived(text, at);
    });
    cleanups.push(speakEndpoint.close);
    const carrierSecret = crypto.randomBytes(32).toString('hex');
    const carrier = await startFloorCarrierReceiver({ client: h.temporal, secret: carrierSecret });
    cleanups.push(carrier.close);
    const carrierRecords = openDurableRecords(databaseUrl);
    cleanups.push(carrierRecords.close);
    const durableCarrier = await startFloorCarrierReceiver({ client: h.temporal, secret: carrierSecret, records: carrierRecords });
    cleanups.push(durableCarrier.close);

    let workerPid: number | undefined;
    if (options.workerMode === 'inline') {
      const worker = await startTurnBaselineWorker({
        temporalAddress: h.config.temporalAddress!,
        namespace: h.config.temporalNamespace,
        taskQueue,
        bundlePath,
        databaseUrl,
        payloadKey: h.config.temporalPayloadKey!,
      });
      cleanups.push(worker.stop);
    } else {
      const logFile = path.join(options.dir, 'baseline-worker.log');
      const child = spawnLogged(
        process.execPath,
        [...workerNodeArgs, '--import', 'tsx', path.join(__dirname, 'turnBaseline', 'worker.ts')],
        logFile,
        {
          env: {
            ...process.env,
            TEMPORAL_ADDRESS: h.config.temporalAddress,
            TEMPORAL_NAMESPACE: h.config.temporalNamespace,
            TEMPORAL_TASK_QUEUE: taskQueue,
            BASELINE_BUNDLE_PATH: bundlePath,
            TEMPORAL_PAYLOAD_KEY: h.config.temporalPayloadKey,
            DATABASE_URL: databaseUrl,
          },
        },
      );
      cleanups.push(() => stopProcess(child));
      workerPid = child.pid;
      await waitForWorker(h, child, logFile, taskQueue);
    }
    const meter = () => cpuMeter({ worker: workerPid, temporal: bench.temporalPid });

    const started: Array<WorkflowHandle<typeof baselineTurnWorkflow>> = [];
    const startBare = (count: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const handle = await h.temporal.workflow.start(baselineTurnWorkflow, {
            taskQueue,
            workflowId: `bare-turns-${crypto.randomUUID()}-${i}`,
            args: [`${bareReceiver.origin}/hooks`],
          });
          started.push(handle);
          return handle;
        }),
      );
    const startFloor = (count: number, durable = false) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const workflowId = `${durable ? 'durable' : 'floor'}-turns-${crypto.randomUUID()}-${i}`;
          const handle = await h.temporal.workflow.start(engineFloorTurnWorkflow, {
            taskQueue,
            workflowId,
            args: [workflowId, `${floorReceiver.origin}/hooks`, `${speakEndpoint.origin}/speak`, durable],
          });
          started.push(handle);
          return workflowId;
        }),
      );
    cleanups.push(async () => {
      await Promise.all(started.map((handle) => handle.signal(baselineStopSignal).catch(() => undefined)));
      await Promise.all(started.map((handle) => handle.result().catch(() => undefined)));
    });

    const bareTurn = async (handle: WorkflowHandle<typeof baselineTurnWorkflow>, label: string): Promise<number> => {
      const text = `${label} ${crypto.randomBytes(4).toString('hex')}`;
      const received = bareMessages.expect(text, 'bare message');
      const t0 = performance.now();
      await handle.signal(baselineTurnSignal, { text });
      return (await received) - t0;
    };
    const postCarrierEvent = async (url: string, event: Record<string, unknown>) => {
      const rawBody = JSON.stringify(event);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...carrierCallbackHeaders({ secret: carrierSecret, rawBody }) },
        body: rawBody,
      });
      await response.text();
      if (response.status !== 200) throw new Error(`the floor's carrier receiver answered ${response.status}`);
    };
    const floorTurn = async (workflowId: string, label: string, durable = false): Promise<{ message: number; speak: number }> => {
      const text = `${label} ${crypto.randomBytes(4).toString('hex')}`;
      const message = floorMessages.expect(text, 'floor message');
      const speak = floorSpeaks.expect(replyTo(text), 'floor speak');
      const url = durable ? durableCarrier.url : carrier.url;
      const t0 = performance.now();
      await postCarrierEvent(url, { type: 'call.utterance', call_id: workflowId, carrier_call_id: workflowId, text, at: Date.now() });
      const sample = { message: (await message) - t0, speak: (await speak) - t0 };
      // The carrier reports the reply played (untimed, as the simulator's report to Switchboard's API).
      if (durable) {
        const speakId = speakIds.get(replyTo(text));
        speakIds.delete(replyTo(text));
        await postCarrierEvent(url, {
          type: 'call.playback',
          call_id: workflowId,
          carrier_call_id: workflowId,
          speak_id: speakId,
          at: Date.now(),
        });
      }
      return sample;
    };

    // Closed loops, as phase (a).
    const bareLanes = await startBare(options.lanes);
    for (const handle of bareLanes) for (let w = 0; w < options.warmupTurns; w += 1) await bareTurn(handle, `warmup bare t${w}`);
    const cpu = meter();
    const wall0 = performance.now();
    const window0 = process.hrtime.bigint();
    const bareSamples = await closedLoop(options.lanes, options.turns, (lane, i) => bareTurn(bareLanes[lane], `bare c${lane} t${i}`));
    const bare: ThroughputResult = {
      turnsPerSecond: bareSamples.length / ((performance.now() - wall0) / 1000),
      latency: row('bare Temporal: signal→POST received', bareSamples, 0),
      cpu: cpu(bareSamples.length),
    };
    printWindow('bare Temporal closed loop', window0);

    /** The engine floor's (or, `durable`, the durable floor's) closed loop, as phase (a): `latency` carrier POST → speak. */
    const floorClosedLoop = async (title: string, durable: boolean) => {
      const tag = durable ? 'durable' : 'floor';
      const lanes = await startFloor(options.lanes, durable);
      for (const id of lanes) for (let w = 0; w < options.warmupTurns; w += 1) await floorTurn(id, `warmup ${tag} t${w}`, durable);
      const cpuOfLoop = meter();
      const started = performance.now();
      const window = process.hrtime.bigint();
      const samples = await closedLoop(options.lanes, options.turns, (lane, i) => floorTurn(lanes[lane], `${tag} c${lane} t${i}`, durable));
      const result = {
        turnsPerSecond: samples.length / ((performance.now() - started) / 1000),
        latency: row(
          `${title}: carrier POST→speak`,
          samples.map((s) => s.speak),
          0,
        ),
        message: row(
          `${title}: carrier POST→message`,
          samples.map((s) => s.message),
          0,
        ),
        cpu: cpuOfLoop(samples.length),
      };
      printWindow(`${title} closed loop`, window);
      return { result, turns: samples.length };
    };
    const floor = (await floorClosedLoop('engine floor', false)).result;
    const durableLoop = await floorClosedLoop('durable floor', true);
    const durable = durableLoop.result;
    await checkDurableRecords(databaseUrl, options.lanes * options.warmupTurns + durableLoop.turns);

    // Paced loops at K, as phase (b).
    const k = options.k;
    const barePaced = await startBare(k);
    const floorPaced = await startFloor(k);
    for (const handle of barePaced) await bareTurn(handle, 'warmup bare paced');
    for (const id of floorPaced) await floorTurn(id, 'warmup floor paced');
    const barePacedSamples = await paced(k, options.seconds, (lane, t) => bareTurn(barePaced[lane], `bare k${k} c${lane} t${t}`));
    const floorPacedSamples = await paced(k, options.seconds, (lane, t) => floorTurn(floorPaced[lane], `floor k${k} c${lane} t${t}`));
    return {
      bare,
      floor,
      durable,
      paced: {
        k,
        bare: row(`K=${k} bare Temporal: signal→POST received`, barePacedSamples, 0),
        floorMessage: row(
          `K=${k} engine floor: carrier POST→message`,
          floorPacedSamples.map((s) => s.message),
          0,
        ),
        floorSpeak: row(
          `K=${k} engine floor: carrier POST→speak`,
          floorPacedSamples.map((s) => s.speak),
          0,
        ),
      },
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** Every durable-floor turn wrote its rows: two accepted carrier signatures, a playback report, a settled `message` event. */
async function checkDurableRecords(databaseUrl: string, turns: number): Promise<void> {
  const counts = await countDurableRecords(databaseUrl);
  const expected = { signatures: 2 * turns, playbacks: turns, messages: turns, settled: turns };
  if (Object.entries(expected).some(([key, value]) => counts[key as keyof typeof counts] !== value))
    throw new Error(`the durable floor's rows are not all there: ${JSON.stringify(counts)}, expected ${JSON.stringify(expected)}`);
}

// ---------------------------------------------------------------------------------------
// Phases.
// ---------------------------------------------------------------------------------------

async function latencyPhase(
  bench: Bench,
  turns: number,
  callCount: number,
  warmupTurns: number,
): Promise<{ rows: Row[]; hops: Row[]; throughput: ThroughputResult; missing: number }> {
  const ids = await placeCalls(bench, callCount);
  for (const [i, id] of ids.entries()) for (let w = 0; w < warmupTurns; w += 1) await turn(bench, id, `warmup c${i} t${w}`);
  const done: Turn[] = [];
  let next = 0;
  const meter = cpuMeter({ worker: bench.workerPid, temporal: bench.temporalPid, api: bench.apiPid });
  const hr0 = process.hrtime.bigint();
  const wall0 = performance.now();
  await Promise.all(
    ids.map(async (id, i) => {
      while (next < turns) {
        next += 1;
        done.push(await turn(bench, id, `latency c${i} t${next}`));
      }
    }),
  );
  const wall = performance.now() - wall0;
  const cpu = meter(done.length);
  printWindow('(a)', hr0);
  await hangUp(bench, ids);
  const baseline = await baselineRoundTrips(turns, callCount);
  const { rows, endToEnd } = turnRows(bench, done, '');
  return {
    rows: [...rows, row('baseline: loopback POST round trip', baseline, 0)],
    hops: await hopRows(bench, done),
    throughput: { turnsPerSecond: done.length / (wall / 1000), latency: endToEnd, cpu },
    missing: endToEnd.missing,
  };
}

const cpuCells = (cpu: CpuPerTurn) => [msOrNa(cpu.bench), msOrNa(cpu.api), msOrNa(cpu.worker), msOrNa(cpu.temporal), msOrNa(cpu.postgres)];

/** Turn throughput and CPU per turn of the project, the engine floor and the bare-Temporal loop, side by side, with the ratios. */
function printThroughput(project: ThroughputResult, reference: ReferenceResults, workerMode: 'inline' | 'process'): void {
  const { bare, floor, durable } = reference;
  const benchLabel =
    workerMode === 'inline' ? 'bench process (API+simulator+worker) CPU ms' : 'bench process (API+simulator / driver+receivers) CPU ms';
  const line = (title: string, r: ThroughputResult) => [
    title,
    fmt(r.turnsPerSecond, 1),
    fmt(r.latency.p50, 1),
    fmt(r.latency.p99, 1),
    ...cpuCells(r.cpu),
  ];
  printTable(
    [
      'closed loop',
      'turns/s',
      'p50 ms',
      'p99 ms',
      benchLabel,
      'API process CPU ms',
      'worker process CPU ms',
      'Temporal server CPU ms',
      'Postgres CPU ms',
    ],
    [
      line('Switchboard say→speak', project),
      line('durable floor carrier POST→speak', durable),
      line('engine floor carrier POST→speak', floor),
      line('bare Temporal signal→POST', bare),
    ],
  );
  console.log(
    `[bench] turn throughput ratio (Switchboard / bare Temporal): ${ratio(project.turnsPerSecond, bare.turnsPerSecond, 2)} ` +
      `(target >= 0.80x: ${project.turnsPerSecond >= 0.8 * bare.turnsPerSecond ? 'MET' : 'MISSED'}); ` +
      `Switchboard / durable floor: ${ratio(project.turnsPerSecond, durable.turnsPerSecond, 2)}; ` +
      `Switchboard / engine floor: ${ratio(project.turnsPerSecond, floor.turnsPerSecond, 2)}; ` +
      `durable floor / bare Temporal: ${ratio(durable.turnsPerSecond, bare.turnsPerSecond, 2)}; ` +
      `engine floor / bare Temporal: ${ratio(floor.turnsPerSecond, bare.turnsPerSecond, 2)}`,
  );
  if (workerMode === 'process' && project.cpu.bench !== undefined && project.cpu.worker !== undefined) {
    // With BENCH_API=process the carrier's events reach the API process: API + worker is measured, not attributed.
    const apiMeasured = project.cpu.api !== undefined;
    const total = (apiMeasured ? project.cpu.api! : project.cpu.bench) + project.cpu.worker;
    const floorTotal = (floor.cpu.bench ?? NaN) + (floor.cpu.worker ?? NaN);
    const apiPart = apiMeasured
      ? `API process ${fmt(project.cpu.api!, 1)} ms (bench process: simulator, driver, receiver ${fmt(project.cpu.bench, 1)} ms)`
      : `API+simulator (bench process) ${fmt(project.cpu.bench, 1)} ms`;
    console.log(
      `[bench] CPU per turn: ${apiPart} + worker ${fmt(project.cpu.worker, 1)} ms = ` +
        `${fmt(total, 1)} ms (target <= 20 ms: ${total <= 20 ? 'MET' : 'MISSED'}); Temporal server ${msOrNa(project.cpu.temporal)} ms, ` +
        `Postgres ${msOrNa(project.cpu.postgres)} ms; engine floor: driver+receivers ${msOrNa(floor.cpu.bench)} + worker ` +
        `${msOrNa(floor.cpu.worker)} = ${fmt(floorTotal, 1)} ms, server ${msOrNa(floor.cpu.temporal)} ms ` +
        `(bare Temporal: driver ${msOrNa(bare.cpu.bench)} + worker ${msOrNa(bare.cpu.worker)}, server ${msOrNa(bare.cpu.temporal)})`,
    );
    if (apiMeasured) {
      // Switchboard's own processes against everything the durable floor runs (its driver and receivers included):
      // with the carrier and the agent on other machines, this is the CPU ratio one box would see.
      const own = project.cpu.api! + project.cpu.worker + (project.cpu.temporal ?? NaN) + (project.cpu.postgres ?? NaN);
      const durableAll =
        (durable.cpu.bench ?? NaN) + (durable.cpu.worker ?? NaN) + (durable.cpu.temporal ?? NaN) + (durable.cpu.postgres ?? NaN);
      console.log(
        `[bench] CPU per turn, all of it: Switchboard's API + worker + Temporal + Postgres ${fmt(own, 1)} ms; durable floor ` +
          `(driver+receivers ${msOrNa(durable.cpu.bench)} + worker ${msOrNa(durable.cpu.worker)} + Temporal ${msOrNa(durable.cpu.temporal)} + ` +
          `Postgres ${msOrNa(durable.cpu.postgres)}) ${fmt(durableAll, 1)} ms; ratio ${ratio(own, durableAll, 2)}`,
      );
    }
  }
}

/** Switchboard's paced phase at K next to the engine floor's and bare Temporal's at the same K, with the ratios of their latencies. */
function printPacedComparison(project: { rows: Row[] } | undefined, reference: ReferenceResults['paced']): void {
  const { k } = reference;
  const message = project?.rows.find((r) => r.title === `K=${k} say→message`);
  const speak = project?.rows.find((r) => r.title === `K=${k} say→speak (turn)`);
  console.log(
    `[bench] K=${k}, one turn per lane every ${CAPACITY_PERIOD_MS / 1000} s: Switchboard against the engine floor and bare Temporal`,
  );
  const rows = [...(message ? [message] : []), reference.floorMessage, reference.bare, ...(speak ? [speak] : []), reference.floorSpeak];
  printRows(rows);
  if (message) {
    const vs = (r: Row) => `p50 ${ratio(message.p50, r.p50, 2)}, p99 ${ratio(message.p99, r.p99, 2)}`;
    console.log(
      `[bench] K=${k} say→message p50 ${fmt(message.p50, 1)} ms (target <= 30: ${message.p50 <= 30 ? 'MET' : 'MISSED'}), ` +
        `p99 ${fmt(message.p99, 1)} ms (target <= 100: ${message.p99 <= 100 ? 'MET' : 'MISSED'}); ` +
        `Switchboard / engine floor: ${vs(reference.floorMessage)}; Switchboard / bare Temporal: ${vs(reference.bare)}`,
    );
  }
}

/**
 * Waits until every call's setup has finished (its `call_started` delivered), then a second
 * more, so that the turns measured are not queued behind the start of K calls at once.
 */
async function settle(bench: Bench, ids: string[]): Promise<void> {
  await waitUntil('every call to finish starting', () => ids.every((id) => bench.receiver.started.has(id)), 30_000);
  await sleep(SETTLE_MS);
}

async function capacityPhase(
  bench: Bench,
  callCount: number,
  seconds: number,
): Promise<{ row: Row; rows: Row[]; hops: Row[]; turns: number }> {
  const ids = await placeCalls(bench, callCount);
  if (process.env.BENCH_SETTLE !== '0') await settle(bench, ids);
  const done = await paced(callCount, seconds, (i, t) => turn(bench, ids[i], `capacity k${callCount} c${i} t${t}`));
  await hangUp(bench, ids);
  const { rows, endToEnd } = turnRows(bench, done, `K=${callCount} `);
  return { row: endToEnd, rows, hops: await hopRows(bench, done), turns: done.length };
}

// ---------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const turns = intFromEnv('BENCH_TURNS', 200);
  const turnCalls = intFromEnv('BENCH_TURN_CALLS', 4);
  const calls = (process.env.BENCH_CALLS || '20').split(',').map((item) => Number(item.trim()));
  const seconds = intFromEnv('BENCH_SECONDS', 30);
  const double = process.env.BENCH_DOUBLE === '1';
  const findCapacity = process.env.BENCH_FIND_CAPACITY === '1';
  const workerMode = process.env.BENCH_WORKER ?? 'inline';
  if (workerMode !== 'process' && workerMode !== 'inline') throw new Error('BENCH_WORKER must be process or inline');
  const apiMode = process.env.BENCH_API ?? 'inline';
  if (apiMode !== 'process' && apiMode !== 'inline') throw new Error('BENCH_API must be process or inline');
  if (apiMode === 'process' && workerMode !== 'process') throw new Error('BENCH_API=process needs BENCH_WORKER=process');
  const maxCalls = intFromEnv('BENCH_MAX_CALLS', 320);
  if (turns < 1 || turnCalls < 1 || seconds < 1 || maxCalls < 1 || calls.some((k) => !Number.isInteger(k) || k < 1)) {
    throw new Error(
      'BENCH_TURNS, BENCH_TURN_CALLS, BENCH_SECONDS and BENCH_MAX_CALLS must be at least 1, BENCH_CALLS one or more such counts (5,10,20)',
    );
  }

  Runtime.install({ logger: new DefaultLogger('WARN') });

  const log = elapsedLog();
  const cleanups = createCleanups({ log });

  try {
    const stack = await startEphemeralStack({ name: 'bench_calls', temporalServer: onTemporalServer() });
    cleanups.push(() => stack.stop());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-bundle-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const noop = () => undefined;
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows'),
      failureConverterPath: FAILURE_CONVERTER_PATH,
      logger: { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop },
    });
    const bundlePath = path.join(dir, 'workflow-bundle.js');
    fs.writeFileSync(bundlePath, code);
    process.env.DATABASE_URL = stack.databaseUrl;
    process.env.TEMPORAL_ADDRESS = stack.temporalAddress;
    process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
    process.env.SECRETS_KEY = process.env.SECRETS_KEY ?? generateSecretsKey();
    process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
    // The bench's receiver listens on loopback, which customer URLs may not reach unless allowed (as `up` and the tests do).
    process.env.OUTBOUND_ALLOWED_NETWORKS = process.env.OUTBOUND_ALLOWED_NETWORKS ?? LOOPBACK_NETWORKS.join(',');

    log('stack up, workflow bundle built');
    const h = await startHarness();
    cleanups.push(() => h.close());
    // Before closing: drop the simulator's pending carrier events and let in-flight ones land,
    // so nothing calls into the API's Temporal client after it has been closed.
    cleanups.push(async () => {
      await control(h, '/control/calls/reset', {});
      await sleep(1_000);
    });
    // BENCH_API=process: the carrier's call events go to the API entry point (src/main/api.ts) in its own
    // process, so its CPU is measured apart from the simulator and the driver; the harness's in-process API
    // still serves the bench's own requests (lines, calls, hang-ups).
    let api: ChildProcess | undefined;
    let eventsBaseUrl = h.config.publicBaseUrl;
    if (apiMode === 'process') {
      const port = await freePort();
      eventsBaseUrl = `http://127.0.0.1:${port}`;
      api = spawnLogged(
        process.execPath,
        [...apiNodeArgs, '--import', 'tsx', path.join(__dirname, '..', 'src', 'main', 'api.ts')],
        path.join(dir, 'api.log'),
        {
          env: {
            ...process.env,
            HOST: '127.0.0.1',
            PORT: String(port),
            DATABASE_URL: h.config.databaseUrl,
            TEMPORAL_ADDRESS: h.config.temporalAddress,
            TEMPORAL_TASK_QUEUE: h.config.taskQueue,
            SIMULATOR_URL: h.config.simulatorUrl,
            CARRIER_WEBHOOK_SECRET: h.config.carrierWebhookSecret,
            CARRIER_API_KEY: h.config.carrierApiKey,
            PAYMENTS_API_KEY: h.config.paymentsApiKey,
            SIMULATOR_CONTROL_TOKEN: h.config.simulatorControlToken,
            SECRETS_KEY: h.config.secretsKey,
            PUBLIC_BASE_URL: eventsBaseUrl,
            SIMULATOR_CALLBACK_BASE_URL: eventsBaseUrl,
            LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL ?? 'warn',
          },
        },
      );
      const apiProcess = api;
      cleanups.push(() => stopProcess(apiProcess));
      await waitUntil(
        'the API process to answer /healthz',
        async () => {
          if (apiProcess.exitCode !== null)
            throw new Error(
              `the API process exited (${apiProcess.exitCode}): ${fs.readFileSync(path.join(dir, 'api.log'), 'utf8').slice(-2000)}`,
            );
          return fetch(`${eventsBaseUrl}/healthz`).then(
            (response) => response.ok,
            () => false,
          );
        },
        60_000,
        200,
      );
      // The simulator posts call events only under its callback base.
      h.simulator.state.calls.callbacks?.setBaseUrl(eventsBaseUrl);
    }
    let workerPid: number | undefined;
    if (workerMode === 'inline') {
      await h.startWorker();
    } else {
      // The worker entry point (src/main/worker.ts) in its own process, as `npm run up` and a
      // deployment run it, on the harness's task queue.
      // BENCH_WORKER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to node, not NODE_OPTIONS, which refuses --cpu-prof.
      const worker = spawnLogged(
        process.execPath,
        [...workerNodeArgs, '--import', 'tsx', path.join(__dirname, '..', 'src', 'main', 'worker.ts')],
        path.join(dir, 'worker.log'),
        {
          env: {
            ...process.env,
            DATABASE_URL: h.config.databaseUrl,
            TEMPORAL_ADDRESS: h.config.temporalAddress,
            TEMPORAL_TASK_QUEUE: h.config.taskQueue,
            SIMULATOR_URL: h.config.simulatorUrl,
            CARRIER_API_KEY: h.config.carrierApiKey,
            PAYMENTS_API_KEY: h.config.paymentsApiKey,
            WORKFLOW_BUNDLE_PATH: bundlePath,
            SECRETS_KEY: h.config.secretsKey,
            PUBLIC_BASE_URL: eventsBaseUrl,
            LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'warn',
          },
        },
      );
      cleanups.push(() => stopProcess(worker));
      workerPid = worker.pid;
      await waitForWorker(h, worker, path.join(dir, 'worker.log'));
    }
    const receiver = await startTurnReceiver();
    cleanups.push(() => receiver.close());
    const bench: Bench = {
      h,
      receiver,
      speak: observeSpeak(h),
      live: new Map(),
      // The server this bench's stack started (dev or, with BENCH_TEMPORAL=server, official), or TEMPORAL_ADDRESS's.
      temporalPid: stack.temporalServerPid ?? listeningPid(portOf(stack.temporalAddress)),
      workerPid,
      apiPid: api?.pid,
    };
    cleanups.push(() => hangUp(bench, [...bench.live.keys()]));
    // Fast text-to-speech, so a reply has finished playing before the next sentence.
    await control(h, '/control/speech', { words_per_second: 1000 });

    console.log(
      `[bench] (a) ${turns} turns over ${turnCalls} concurrent calls (one turn at a time per call, 2 warm-up turns per call not counted)`,
    );
    const latency = await latencyPhase(bench, turns, turnCalls, 2);
    console.log('');
    printRows(latency.rows);
    console.log("[bench] say→message by hop (event times from each call's workflow history):");
    printRows(latency.hops);
    const referenceK = calls[0];
    console.log(
      `[bench] reference loops: bare Temporal (signal → local activity POST → next signal) and the engine floor (signed carrier ` +
        `POST → Koa → signal → local activity: signed message POST, speak call), ${turns} turns over ${turnCalls} workflows each, ` +
        `then K=${referenceK} paced for ${seconds} s each`,
    );
    const reference = await referenceTurns(bench, { turns, lanes: turnCalls, warmupTurns: 2, dir, workerMode, k: referenceK, seconds });
    printRows([
      reference.bare.latency,
      reference.floor.message,
      reference.floor.latency,
      reference.durable.message,
      reference.durable.latency,
    ]);
    console.log('');
    printThroughput(latency.throughput, reference, workerMode);
    console.log(
      '[bench] first chunk→speak: receiver wrote its first NDJSON line → in-process simulator speak() saw the text (exact, not polled)',
    );
    console.log('');

    let missing = latency.missing;
    const capacityRows: Row[] = [];
    let referencePhase: { rows: Row[] } | undefined;
    const runCapacity = async (k: number): Promise<Row> => {
      console.log(`[bench] (b) K=${k} concurrent calls, one turn per call every ${CAPACITY_PERIOD_MS / 1000} s for ${seconds} s`);
      const cpu0 = process.cpuUsage();
      let capacity: Awaited<ReturnType<typeof capacityPhase>>;
      try {
        capacity = await capacityPhase(bench, k, seconds);
      } catch (err) {
        // While searching, a count the stack cannot even set up is a miss, not the end of the run.
        if (!findCapacity) throw err;
        console.log(`[bench] K=${k}: setup failed (${(err as Error).message}); counted as missing the target`);
        await hangUp(bench, [...bench.live.keys()]);
        return row(`K=${k} say→speak (turn)`, [], k);
      }
      const cpu = process.cpuUsage(cpu0);
      capacityRows.push(capacity.row);
      if (k === referenceK && !referencePhase) referencePhase = capacity;
      console.log(`[bench] K=${k}: ${capacity.turns} turns, this process used ${cpuSeconds(cpu).toFixed(1)} s CPU`);
      printRows([...capacity.rows, ...capacity.hops]);
      console.log(
        `[bench] K=${k}: say→speak p50 ${fmt(capacity.row.p50, 1)} ms, p99 ${fmt(capacity.row.p99, 1)} ms, ${capacity.row.missing} unanswered`,
      );
      return capacity.row;
    };
    const passes = (r: Row) => r.missing === 0 && r.p99 < TARGET_P99_MS;

    let capacity: { largestPassing: number | null; smallestFailing: number | null } | undefined;
    if (findCapacity) {
      // Double the call count while the target holds, then bisect between the last passing and
      // the first failing count down to max(5, 10 %). Unanswered turns fail a step, not the run.
      let pass: number | null = null;
      let fail: number | null = null;
      for (let k = calls[0]; fail === null && k <= maxCalls; k *= 2) {
        if (passes(await runCapacity(k))) pass = k;
        else fail = k;
      }
      while (pass !== null && fail !== null && fail - pass > Math.max(5, Math.ceil(pass * 0.1))) {
        const k = Math.round((pass + fail) / 2);
        if (passes(await runCapacity(k))) pass = k;
        else fail = k;
      }
      if (pass === null && fail !== null) {
        // Even the first count failed: halve down to 1.
        for (let k = Math.floor(fail / 2); k >= 1 && pass === null; k = Math.floor(k / 2)) {
          if (passes(await runCapacity(k))) pass = k;
          else fail = k;
        }
      }
      capacity = { largestPassing: pass, smallestFailing: fail };
    } else {
      for (const k of [...calls, ...(double ? [Math.max(...calls) * 2] : [])]) missing += (await runCapacity(k)).missing;
    }
    console.log('');
    printPacedComparison(referencePhase, reference.paced);
    console.log('');
    printRows(capacityRows);
    for (const r of capacityRows) {
      const ok = r.p99 < TARGET_P99_MS;
      console.log(`[bench] ${r.title}: p99 ${fmt(r.p99, 1)} ms ${ok ? '<' : '>='} ${TARGET_P99_MS} ms target: ${ok ? 'MET' : 'MISSED'}`);
    }
    if (capacity) {
      const { largestPassing, smallestFailing } = capacity;
      console.log(
        `[bench] capacity: largest call count with turn p99 < ${TARGET_P99_MS} ms: ${largestPassing ?? 'none'}` +
          (smallestFailing === null
            ? ` (no failure up to ${maxCalls}; BENCH_MAX_CALLS raises the limit)`
            : ` (${smallestFailing} missed it)`),
      );
    }
    return reportFailures(missing > 0 ? [`${missing} turns were not spoken within ${TURN_TIMEOUT_MS / 1000} s`] : []);
  } finally {
    await cleanups.run();
  }
}

runBench(main);
