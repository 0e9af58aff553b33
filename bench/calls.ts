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
 * BENCH_BUNDLE_AT_START=1 gives that worker no bundle: from the sources it bundles them at start (`npm run worker`).
 * BENCH_BUILD=1 makes the production build first (`npm run build`, into the run's folder) and runs those processes
 * from it with plain node and its prebuilt workflow bundle, as the image does (docs/performance.md, "Production build").
 *
 * A line carries one call at a time, so every call gets its own line, and every 10 lines a fresh
 * tenant (lines.create is limited to 10/hour per workspace); calls are set up 20 at a time. Calls
 * are hung up, the harness closed and the stack stopped at the end.
 *
 * The measures live in bench/calls/: turns.ts (calls, turns, rows), latency.ts (a), hops.ts (the
 * hop split), reference.ts and comparison.ts (the reference loops and the ratios), capacity.ts (b),
 * loops.ts (closed and paced loops, CPU per turn), processes.ts (BENCH_API/BENCH_WORKER=process).
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { intFromEnv } from '../src/platform/config';
import { freePort } from '../src/platform/net/freePort';
import { stopProcess } from '../dev/infra/proc';
import { startHarness } from '../test/support/harness';
import { sleep } from './support/async';
import { residentMb, sampleResidentMemory } from './support/memory';
import { cpuSeconds, listeningPid, portOf } from './support/cpu';
import { startHarnessStack } from './support/harnessStack';
import { createCleanups, elapsedLog, reportFailures, runBench } from './support/run';
import { fmt } from './support/table';
import { capacityPhase, TARGET_P99_MS } from './calls/capacity';
import { searchCapacity, type CapacitySearch } from './calls/capacitySearch';
import { printPacedComparison, printThroughput } from './calls/comparison';
import { latencyPhase } from './calls/latency';
import { CAPACITY_PERIOD_MS } from './calls/loops';
import { startApiProcess, startWorkerProcess, waitForApi, waitForWorker } from './calls/processes';
import { referenceTurns } from './calls/reference';
import { control, hangUp, observeSpeak, printRows, row, startTurnReceiver, TURN_TIMEOUT_MS, type Bench, type Row } from './calls/turns';

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
    const { stack, dir, bundlePath, buildDir } = await startHarnessStack('bench_calls', cleanups);
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
      const logFile = path.join(dir, 'api.log');
      const apiProcess = startApiProcess(h, { port, eventsBaseUrl, logFile, buildDir });
      api = apiProcess;
      cleanups.push(() => stopProcess(apiProcess));
      await waitForApi(apiProcess, eventsBaseUrl, logFile);
      // The simulator posts call events only under its callback base.
      h.simulator.state.calls.callbacks?.setBaseUrl(eventsBaseUrl);
    }
    let workerPid: number | undefined;
    if (workerMode === 'inline') {
      await h.startWorker();
    } else {
      const logFile = path.join(dir, 'worker.log');
      // BENCH_BUNDLE_AT_START=1: no bundle given, so the worker (under tsx) bundles the sources at start, as the image did before issue 33.
      const workerBundle = process.env.BENCH_BUNDLE_AT_START === '1' ? '' : bundlePath;
      const worker = startWorkerProcess(h, { bundlePath: workerBundle, eventsBaseUrl, logFile, buildDir });
      cleanups.push(() => stopProcess(worker));
      workerPid = worker.pid;
      await waitForWorker(h, worker, logFile);
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
    // The processes' resident memory: at idle now (started, nothing asked yet), then the highest sample under the phases.
    const processes = { API: api?.pid, worker: workerPid };
    const idle = Object.entries(processes).flatMap(([name, pid]) => (pid ? [`${name} ${fmt(residentMb(pid) ?? NaN, 0)} MB`] : []));
    if (idle.length > 0) console.log(`[bench] resident memory at idle: ${idle.join(', ')}`);
    const memory = sampleResidentMemory(processes);
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

    let capacity: CapacitySearch | undefined;
    if (findCapacity) {
      // Unanswered turns fail a step, not the run.
      capacity = await searchCapacity(calls[0], maxCalls, async (k) => passes(await runCapacity(k)));
    } else {
      for (const k of [...calls, ...(double ? [Math.max(...calls) * 2] : [])]) missing += (await runCapacity(k)).missing;
    }
    console.log('');
    printPacedComparison(referencePhase, reference.paced);
    console.log('');
    printRows(capacityRows);
    const underLoad = Object.entries(memory.stop()).map(([name, mb]) => `${name} ${fmt(mb, 0)} MB`);
    if (underLoad.length > 0) console.log(`[bench] resident memory under the phases (highest sample): ${underLoad.join(', ')}`);
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
