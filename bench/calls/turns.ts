import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ACTIVE_CALL_STATUSES } from '../../src/domain/calls/rules';
import { createTenant, type Harness, type Tenant } from '../../test/support/harness';
import { inBatches, pollUntil, waitUntil } from '../support/async';
import { startJsonReceiver } from '../support/receivers';
import { distribution } from '../support/stats';
import { fmt, printTable } from '../support/table';

/**
 * The calls of the call bench and their turns: the receiver that answers each `message` at once
 * (timing its arrival and its first NDJSON line), the simulator's `speak` observed in process,
 * calls placed one per fresh line, one timed turn, and the rows every measure prints.
 */

export const TURN_TIMEOUT_MS = 10_000;
/** How long after the reply is spoken a turn waits (untimed) for the carrier to report it played. */
const PLAYED_GRACE_MS = 2_000;

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

export const replyTo = (text: string) => `ok ${text}`;

export async function startTurnReceiver(): Promise<Receiver> {
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
export function observeSpeak(h: Harness): {
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

export interface Row {
  title: string;
  count: number;
  missing: number;
  p50: number;
  p99: number;
  max: number;
}

export function row(title: string, samples: number[], missing: number): Row {
  const { count, p50, p99, max } = distribution(samples);
  return { title, count, missing, p50, p99, max };
}

export function printRows(rows: Row[]): void {
  const header = ['measure', 'count', 'missing', 'p50 ms', 'p99 ms', 'max ms'];
  printTable(
    header,
    rows.map((r) => [r.title, String(r.count), String(r.missing), fmt(r.p50, 1), fmt(r.p99, 1), fmt(r.max, 1)]),
  );
}

/** A POST to the simulator's control API, with its token. */
export async function control(h: Harness, path: string, body: unknown): Promise<number> {
  const response = await h.simulator.control('POST', path, body);
  await response.text();
  return response.status;
}

export interface Bench {
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

export interface Turn {
  callId: string;
  text: string;
  sayAt: number;
  spoken: boolean;
}

/** Lines a workspace may create per hour (lines.create) — one tenant per this many calls. */
const LINES_PER_TENANT = 10;
/** Calls set up at once. */
const PLACE_BATCH = 20;

export async function placeCalls(bench: Bench, count: number): Promise<string[]> {
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
  let lineStatus = lineResponse.body.line.status as string;
  await waitUntil(
    `line ${lineId} to be active`,
    async () =>
      lineStatus === 'active' ||
      (lineStatus = (await h.request('GET', `/api/v1/lines/${lineId}`, { key: tenant.keys.test })).body.line.status) === 'active',
    30_000,
    100,
  );
  const placed = await h.request('POST', '/api/v1/calls', { key: tenant.keys.test, body: { line_id: lineId, to_number: '+14155552671' } });
  if (placed.status !== 201) throw new Error(`call placement answered ${placed.status}: ${placed.text}`);
  const id = placed.body.call.id as string;
  bench.live.set(id, tenant.keys.test);
  await waitUntil(
    `call ${id} to be in progress`,
    async () => (await h.request('GET', `/api/v1/calls/${id}`, { key: tenant.keys.test })).body.call.status === 'in_progress',
    30_000,
  );
  return id;
}

/**
 * One turn: say a unique sentence, wait (up to TURN_TIMEOUT_MS) for the reply to be spoken, then
 * (not timed) for the carrier to have finished playing it, so that the next sentence follows the
 * reply as a caller's would instead of talking over its last milliseconds (a barge-in).
 */
export async function turn(bench: Bench, callId: string, label: string): Promise<Turn> {
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

export function turnRows(bench: Bench, turns: Turn[], prefix: string): { rows: Row[]; endToEnd: Row } {
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
export async function hangUp(bench: Bench, ids: string[]): Promise<void> {
  await Promise.all(
    ids.map(async (id) => {
      const key = bench.live.get(id);
      if (!key) return;
      await bench.h.request('POST', `/api/v1/calls/${id}/hangup`, { key });
      await pollUntil(
        async () => !ACTIVE_CALL_STATUSES.includes((await bench.h.request('GET', `/api/v1/calls/${id}`, { key })).body?.call?.status),
        15_000,
        100,
      );
      bench.live.delete(id);
    }),
  );
}
