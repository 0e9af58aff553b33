/**
 * Audio relay benchmark: N concurrent audio calls through `relayAudio` (activities/audio/relay.ts),
 * each relayed between the carrier simulator (the caller: 20 ms µ-law frames paced in real time)
 * and a local `ws` echo server (the customer, echoing every `media` payload back), against the
 * same frame pattern over a bare ws echo with no relay.
 *
 *   npm run bench:audio
 *   BENCH_AUDIO_CALLS=200 BENCH_SECONDS=20 npm run bench:audio
 *
 * Relay path (per frame):    simulator ─ws→ carrier adapter → relay ─ws→ customer echo ─ws→ relay → adapter ─ws→ simulator
 * Baseline path (per frame): simulator ─ws→ bare echo client ─ws→ simulator
 *
 * The relays (or the bare echo clients) run in this process, like a worker; the simulator and the
 * customer's echo server run in a forked peer process (bench/audioPeer.ts), so this process's CPU
 * time and event loop are the relay's alone. BENCH_AUDIO_IN_PROCESS=1 runs everything in this
 * process instead (one event loop for all: latencies then include the simulator's and the
 * customer's work).
 *
 * Round trip = the simulator sending a frame → the simulator receiving the identical bytes back
 * (every frame is stamped with its index, so the match is exact; see docs/simulator.md). The
 * relay's added latency is the relay round trip minus the baseline round trip at the same
 * percentile. Frames/s counts frames crossing the middle (relay or bare echo) in both directions
 * per second of the measured window.
 *
 * Settings: BENCH_AUDIO_CALLS (100), BENCH_SECONDS (10), BENCH_WARMUP_MS (1000: round trips of
 * frames sent in each call's first second are not counted), BENCH_MAX_MISSING_PPM (1000, i.e.
 * 0.1 %: frames the caller sent that did not come back). Exits 1 if more frames than that went
 * missing in either run, frames came back out of order, a relay ended other than by the call
 * ending, or setup failed.
 */
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { relayAudio, type RelaySummary } from '../src/domain/calls/audioRelay';
import { SimulatorCarrier } from '../src/adapters/carrier/simulatorCarrier';
import { intFromEnv } from '../src/platform/config';
import { createLogger } from '../src/platform/logger';
import { EgressPolicy, LOOPBACK_NETWORKS } from '../src/platform/net/egress';
import type { AudioReport } from '../simulator/media/mediaCall';
import { simulatorControl } from '../dev/simulator';
import { startPeer, talk, type PeerInfo, type TalkResult } from './audioPeer';
import { inBatches, waitUntil } from './support/async';
import { cpuSeconds } from './support/cpu';
import { createCleanups, elapsedLog, reportFailures, runBench } from './support/run';
import { distribution } from './support/stats';
import { fmt, printTable } from './support/table';

process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn';

const SETUP_CONCURRENCY = 20;

/** The far ends: where they listen, and a way to make the callers talk and measure. */
interface Peer {
  info: PeerInfo;
  inProcess: boolean;
  talk(callIds: string[], seconds: number, warmupMs: number): Promise<TalkResult>;
  close(): Promise<void>;
}

interface Env {
  peer: Peer;
  carrier: SimulatorCarrier;
  /** The simulator's control API, with its token. */
  control: ReturnType<typeof simulatorControl>;
}

interface PhaseResult {
  title: string;
  calls: number;
  sent: number;
  echoed: number;
  missing: number;
  roundTrips: number[];
  /** Frames crossing the middle hop (relay or bare echo) in both directions, per second. */
  framesPerSecond: number;
  windowS: number;
  /** CPU time of this process (the relays or the bare echo; everything when in-process) while the callers talked. */
  cpuS: number;
  /** CPU time of the peer process (simulator + customer echo); NaN in-process. */
  peerCpuS: number;
  loopDelayP99Ms: number;
  extra: string;
  failures: string[];
}

/** The peer in a child process (the default), steered over IPC. */
async function forkPeer(): Promise<Peer> {
  const child = fork(path.join(__dirname, 'audioPeer.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve: (result: TalkResult) => void; reject: (err: Error) => void }>();
  let nextId = 0;
  const info = await new Promise<PeerInfo>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`audio peer exited with ${code} before it was ready`)));
    child.on('message', (message: { type: string; id?: number; info?: PeerInfo; result?: TalkResult; error?: string }) => {
      if (message.type === 'ready' && message.info) resolve(message.info);
      if (message.type === 'talked' && message.id !== undefined) {
        const waiter = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.error || !message.result) waiter?.reject(new Error(message.error ?? 'no result'));
        else waiter?.resolve(message.result);
      }
    });
  });
  return {
    info,
    inProcess: false,
    talk: (callIds, seconds, warmupMs) =>
      new Promise((resolve, reject) => {
        nextId += 1;
        waiting.set(nextId, { resolve, reject });
        child.send({ type: 'talk', id: nextId, callIds, seconds, warmupMs });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send({ type: 'stop' });
      }),
  };
}

async function inProcessPeer(): Promise<Peer> {
  const peer = await startPeer();
  return {
    info: peer.info,
    inProcess: true,
    talk: (callIds, seconds, warmupMs) => talk(peer.media, callIds, seconds, warmupMs),
    close: () => peer.close(),
  };
}

// ---------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------

/** A request to the simulator's control API and its JSON answer. */
async function json(env: Env, path: string, method = 'GET', body?: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await env.control(method, path, body);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Someone calls one of our numbers; Switchboard answers. */
async function answeredCall(env: Env, index: number): Promise<AnsweredCall> {
  const { eventsUrl } = env.peer.info;
  const placed = await json(env, '/control/calls/inbound', 'POST', {
    from: '+14155550142',
    to: `+1212555${String(2000 + (index % 8000)).padStart(4, '0')}`,
    events_url: eventsUrl,
  });
  if (placed.status !== 201) throw new Error(`inbound call refused: ${placed.status} ${JSON.stringify(placed.body)}`);
  const carrierCallId = String(placed.body.carrier_call_id);
  const callId = crypto.randomUUID();
  await env.carrier.answerCall({ carrierCallId, callId });
  return { callId, carrierCallId };
}

interface AnsweredCall {
  callId: string;
  carrierCallId: string;
}

/** `count` answered calls (numbers from `firstIndex` on), set up in batches, each joined to its middle by `attach`. */
async function answeredCalls<T>(env: Env, count: number, firstIndex: number, attach: (call: AnsweredCall, i: number) => Promise<T>) {
  const indexes = Array.from({ length: count }, (_, i) => i);
  return inBatches(indexes, SETUP_CONCURRENCY, async (i) => {
    const call = await answeredCall(env, firstIndex + i);
    return { ...call, ...(await attach(call, i)) };
  });
}

async function report(env: Env, callId: string): Promise<AudioReport> {
  const answer = await json(env, `/control/calls/${callId}/audio`);
  if (answer.status !== 200) throw new Error(`audio report for ${callId}: ${answer.status}`);
  return answer.body as unknown as AudioReport;
}

/**
 * Once every call's media socket is connected (to the relay or the bare echo: `middle`), makes the
 * callers talk while this process's CPU time and event loop delay are measured.
 */
async function measure(env: Env, middle: string, callIds: string[], seconds: number, warmupMs: number) {
  const allConnected = async () => (await Promise.all(callIds.map((id) => report(env, id)))).every((r) => r.connected);
  await waitUntil(`every ${middle} connected`, allConnected, 10_000);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const result = await env.peer.talk(callIds, seconds, warmupMs);
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  const sent = result.reports.reduce((sum, r) => sum + r.sent.frames + r.sent.dropped, 0);
  const echoed = result.reports.reduce((sum, r) => sum + r.echo.matched, 0);
  const outOfOrder = result.reports.filter((r) => !r.echo.in_order || !r.received.in_order).length;
  return {
    calls: callIds.length,
    sent,
    echoed,
    missing: sent - echoed,
    roundTrips: result.roundTrips,
    windowS: result.windowMs / 1000,
    cpuS: cpuSeconds(cpu),
    peerCpuS: env.peer.inProcess ? Number.NaN : result.cpuS,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    failures: outOfOrder > 0 ? [`${outOfOrder} calls received frames out of order`] : [],
  };
}

// ---------------------------------------------------------------------------------------
// The two runs.
// ---------------------------------------------------------------------------------------

async function relayPhase(env: Env, calls: number, seconds: number, warmupMs: number): Promise<PhaseResult> {
  // The bench's customer peer listens on loopback.
  const peerEgress = new EgressPolicy({ allowedNetworks: LOOPBACK_NETWORKS });
  const relayLog = createLogger('audio-relay', process.env.LOG_LEVEL === 'info' ? 'info' : 'warn');
  const started = await answeredCalls(env, calls, 0, async (call, i) => {
    const controller = new AbortController();
    const stream = await env.carrier.openMediaStream({ carrierCallId: call.carrierCallId });
    const done = relayAudio({
      carrier: stream,
      handlerUrl: env.peer.info.customerUrl,
      callId: call.callId,
      lineId: 'bench-line',
      streamId: `MZbench${i}`,
      signal: controller.signal,
      egress: peerEgress,
      log: relayLog,
    });
    return { controller, done };
  });
  const measured = await measure(
    env,
    'relay',
    started.map((c) => c.callId),
    seconds,
    warmupMs,
  );
  for (const call of started) call.controller.abort();
  const summaries: RelaySummary[] = await Promise.all(started.map((c) => c.done));
  const failures = [...measured.failures];
  for (const [i, summary] of summaries.entries())
    if (summary.endedBy !== 'call') failures.push(`relay ${i} ended by ${summary.endedBy}${summary.detail ? ` (${summary.detail})` : ''}`);
  const toCustomer = summaries.reduce((sum, s) => sum + s.framesToCustomer, 0);
  const toCaller = summaries.reduce((sum, s) => sum + s.framesToCaller, 0);
  const dropped = summaries.reduce((sum, s) => sum + s.dropped, 0);
  const malformed = summaries.reduce((sum, s) => sum + s.malformed, 0);
  const reconnects = summaries.reduce((sum, s) => sum + s.reconnects, 0);
  await json(env, '/control/calls/reset', 'POST');
  return {
    title: `relay (${calls} calls)`,
    ...measured,
    framesPerSecond: (toCustomer + toCaller) / measured.windowS,
    extra: `relay counters: ${toCustomer} frames caller→customer, ${toCaller} customer→caller, dropped ${dropped}, malformed ${malformed}, reconnects ${reconnects}`,
    failures,
  };
}

async function baselinePhase(env: Env, calls: number, seconds: number, warmupMs: number): Promise<PhaseResult> {
  let echoedFrames = 0;
  const { simUrl, credentials } = env.peer.info;
  const started = await answeredCalls(env, calls, calls, async (call) => {
    // The bare echo: straight on the carrier's media socket, every media payload sent back as is.
    const ws = new WebSocket(`${simUrl.replace(/^http/, 'ws')}/carrier/v1/calls/${call.carrierCallId}/media`, {
      headers: { authorization: `Bearer ${credentials.carrierApiKey}` },
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => undefined);
    let sequence = 0;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event?: string; payload?: string };
      if (message.event === 'media' && typeof message.payload === 'string') {
        sequence += 1;
        ws.send(JSON.stringify({ event: 'media', sequence, payload: message.payload }));
        echoedFrames += 1;
      }
    });
    return { ws };
  });
  const measured = await measure(
    env,
    'echo',
    started.map((c) => c.callId),
    seconds,
    warmupMs,
  );
  for (const call of started) call.ws.terminate();
  await json(env, '/control/calls/reset', 'POST');
  return {
    title: `bare ws echo (${calls} calls)`,
    ...measured,
    framesPerSecond: (echoedFrames * 2) / measured.windowS,
    extra: `echo counters: ${echoedFrames} frames received and sent back`,
  };
}

function printPhases(phases: PhaseResult[]): void {
  const header = [
    'path',
    'frames sent',
    'echoed',
    'missing',
    'rtt p50 ms',
    'rtt p99 ms',
    'rtt max ms',
    'frames/s',
    'CPU s',
    'peer CPU s',
    'loop p99 ms',
  ];
  const rows = phases.map((r) => {
    const rtt = distribution(r.roundTrips);
    const frames = [String(r.sent), String(r.echoed), String(r.missing)];
    const cpu = [fmt(r.cpuS, 1), fmt(r.peerCpuS, 1), fmt(r.loopDelayP99Ms, 1)];
    return [r.title, ...frames, fmt(rtt.p50, 2), fmt(rtt.p99, 2), fmt(rtt.max, 2), fmt(r.framesPerSecond, 0), ...cpu];
  });
  printTable(header, rows);
}

async function main(): Promise<number> {
  const calls = intFromEnv('BENCH_AUDIO_CALLS', 100);
  const seconds = intFromEnv('BENCH_SECONDS', 10);
  const warmupMs = intFromEnv('BENCH_WARMUP_MS', 1_000);
  const maxMissingPpm = intFromEnv('BENCH_MAX_MISSING_PPM', 1_000);
  const inProcess = process.env.BENCH_AUDIO_IN_PROCESS === '1';
  if (calls < 1 || seconds < 1) throw new Error('BENCH_AUDIO_CALLS and BENCH_SECONDS must be at least 1');
  if (warmupMs >= seconds * 1000) throw new Error('BENCH_WARMUP_MS must be shorter than BENCH_SECONDS');

  const log = elapsedLog();
  const cleanups = createCleanups({ log });

  try {
    const peer = inProcess ? await inProcessPeer() : await forkPeer();
    cleanups.push(() => peer.close());
    const { simUrl, credentials } = peer.info;
    const carrier = new SimulatorCarrier(simUrl, credentials.carrierApiKey);
    const env: Env = { peer, carrier, control: simulatorControl(simUrl, credentials.controlToken) };
    log(
      `simulator and customer echo ${inProcess ? 'in this process (BENCH_AUDIO_IN_PROCESS=1)' : 'in a forked peer process'}; relays in this process`,
    );

    log(
      `relay: ${calls} concurrent audio calls, callers talking ${seconds} s (20 ms µ-law frames in real time; first ${warmupMs} ms of each call not in the latencies)`,
    );
    const relay = await relayPhase(env, calls, seconds, warmupMs);
    log(relay.extra);
    log(`baseline: the same ${calls} callers over a bare ws echo (no relay)`);
    const baseline = await baselinePhase(env, calls, seconds, warmupMs);
    log(baseline.extra);

    console.log('');
    printPhases([relay, baseline]);
    const r = distribution(relay.roundTrips);
    const b = distribution(baseline.roundTrips);
    console.log('');
    console.log(
      `[bench] added relay latency per frame (carrier → customer → carrier, relay rtt − baseline rtt): p50 ${fmt(r.p50 - b.p50, 2)} ms, p99 ${fmt(r.p99 - b.p99, 2)} ms`,
    );
    console.log(
      `[bench] relay: ${fmt(relay.framesPerSecond, 0)} frames/s relayed (both directions) for ${calls} calls over ${fmt(relay.windowS, 1)} s (offered: ${calls * 50 * 2} frames/s)`,
    );
    const busy = relay.windowS > 0 ? (100 * relay.cpuS) / relay.windowS : Number.NaN;
    console.log(
      `[bench] CPU of this process while relaying: ${fmt(relay.cpuS, 1)} s (${fmt(busy, 0)} % of one core${inProcess ? ', simulator and customer included' : ''}); ${fmt((relay.cpuS * 1e6) / Math.max(1, relay.framesPerSecond * relay.windowS), 1)} µs per relayed frame`,
    );

    const failures = [...relay.failures.map((f) => `${relay.title}: ${f}`), ...baseline.failures.map((f) => `${baseline.title}: ${f}`)];
    for (const run of [relay, baseline]) {
      const ppm = run.sent === 0 ? 1e6 : (run.missing * 1e6) / run.sent;
      if (ppm > maxMissingPpm)
        failures.push(
          `${run.title}: ${run.missing} of ${run.sent} frames missing (${fmt(ppm / 1e4, 3)} %, tolerance ${fmt(maxMissingPpm / 1e4, 3)} %)`,
        );
    }
    return reportFailures(failures);
  } finally {
    await cleanups.run();
  }
}

runBench(main);
