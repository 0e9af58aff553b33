/**
 * `npm run bench:build`: what the production build (`npm run build`, dev/build.ts) changes at run time, against the
 * TypeScript sources under tsx (docs/performance.md, "Production build"). Per mode, BENCH_ROUNDS (3) rounds of:
 * - worker start to first task: a line is created (its provisioning workflow waits on the task queue, no worker
 *   polls it), then the worker entry point starts as its own process; the figure is from the spawn to the first
 *   WorkflowTaskCompleted of that workflow (the history's event time; one clock, this machine's). From the sources the
 *   worker bundles the workflows at start (development); from the build it loads dist/workflow-bundle.js;
 * - the worker's resident memory at that first task and after BENCH_IDLE_SECONDS (10) idle;
 * - the API entry point: spawn to /healthz, and its resident memory after the same idle time.
 * The build itself is made once (its compile and bundle times are printed). Memory under load: `BENCH_API=process
 * BENCH_WORKER=process [BENCH_BUILD=1] npm run bench:calls`, which prints each process's resident memory.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stopProcess } from '../dev/infra/proc';
import { freePort } from '../src/platform/net/freePort';
import { workflowIds } from '../workflows/definitions/ids';
import { createTenant, startHarness, webhookLine, type Harness } from '../test/support/harness';
import { sleep } from './support/async';
import { startApiProcess, startWorkerProcess, waitForApi } from './calls/processes';
import { startHarnessStack } from './support/harnessStack';
import { residentMb } from './support/memory';
import { createCleanups, elapsedLog, runBench } from './support/run';
import { fmt, printTable } from './support/table';

type Mode = { name: string; buildDir?: string };

async function main(): Promise<number> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = elapsedLog();
  const cleanups = createCleanups({ log });
  try {
    // The stack makes the build (BENCH_BUILD=1); the sources' mode ignores it.
    process.env.BENCH_BUILD = '1';
    const buildStarted = performance.now();
    const { dir, buildDir } = await startHarnessStack('bench_build', cleanups);
    log(`stack up, production build made (${((performance.now() - buildStarted) / 1000).toFixed(1)} s with the stack)`);
    const h = await startHarness();
    cleanups.push(() => h.close());
    const modes: Mode[] = [{ name: 'sources (tsx, bundled at start)' }, { name: 'build (node, prebuilt bundle)', buildDir }];
    const rows: string[][] = [];
    for (let round = 1; round <= rounds; round += 1) {
      for (const mode of modes) {
        const worker = await workerRound(h, mode, dir, idleSeconds);
        const api = await apiRound(h, mode, dir, idleSeconds);
        log(`${mode.name} round ${round}: worker first task ${fmt(worker.firstTaskMs, 0)} ms, API ready ${fmt(api.readyMs, 0)} ms`);
        rows.push([
          mode.name,
          String(round),
          fmt(worker.firstTaskMs, 0),
          fmt(worker.rssAtFirstTask, 0),
          fmt(worker.rssIdle, 0),
          fmt(api.readyMs, 0),
          fmt(api.rssIdle, 0),
        ]);
      }
    }
    printTable(
      [
        'mode',
        'round',
        'worker start → first task (ms)',
        'worker RSS at it (MB)',
        `worker RSS idle ${idleSeconds} s (MB)`,
        'API start → /healthz (ms)',
        `API RSS idle ${idleSeconds} s (MB)`,
      ],
      rows,
    );
    return 0;
  } finally {
    await cleanups.run();
  }
}

/** One worker start: spawn → the first workflow task of a workflow already waiting; its memory then and after `idleSeconds`. */
async function workerRound(h: Harness, mode: Mode, dir: string, idleSeconds: number) {
  const tenant = await createTenant(h.db);
  const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
  if (created.status !== 201) throw new Error(`line creation answered ${created.status}: ${created.text}`);
  const handle = h.temporal.workflow.getHandle(workflowIds.provisionLine(created.body.line.id as string));
  const logFile = path.join(dir, `worker-${Date.now()}.log`);
  const spawnedAt = Date.now();
  // No WORKFLOW_BUNDLE_PATH: from the sources the worker bundles at start (as `npm run worker` does), from the build it
  // loads the bundle beside it (as the image's would without the variable).
  const worker = startWorkerProcess(h, { bundlePath: '', eventsBaseUrl: h.config.publicBaseUrl, logFile, buildDir: mode.buildDir });
  try {
    let firstTaskAt: number | undefined;
    let rssAtFirstTask: number | undefined;
    while (firstTaskAt === undefined) {
      if (worker.exitCode !== null) throw new Error(`the worker exited (${worker.exitCode}); see ${logFile}`);
      const history = await handle.fetchHistory();
      const completed = (history.events ?? []).find((event) => event.workflowTaskCompletedEventAttributes);
      if (completed) {
        rssAtFirstTask = residentMb(worker.pid);
        const time = completed.eventTime!;
        firstTaskAt = Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
      } else await sleep(20); // pacing: poll interval of the history
    }
    await handle.result();
    await sleep(idleSeconds * 1000); // waits out the idle time before the idle reading
    return { firstTaskMs: firstTaskAt - spawnedAt, rssAtFirstTask: rssAtFirstTask ?? NaN, rssIdle: residentMb(worker.pid) ?? NaN };
  } finally {
    await stopProcess(worker as ChildProcess);
  }
}

/** One API start: spawn → /healthz; its memory after `idleSeconds`. */
async function apiRound(h: Harness, mode: Mode, dir: string, idleSeconds: number) {
  const port = await freePort();
  const eventsBaseUrl = `http://127.0.0.1:${port}`;
  const logFile = path.join(dir, `api-${Date.now()}.log`);
  const spawnedAt = performance.now();
  const api = startApiProcess(h, { port, eventsBaseUrl, logFile, buildDir: mode.buildDir });
  try {
    await waitForApi(api, eventsBaseUrl, logFile);
    const readyMs = performance.now() - spawnedAt;
    await sleep(idleSeconds * 1000); // waits out the idle time before the idle reading
    return { readyMs, rssIdle: residentMb(api.pid) ?? NaN };
  } finally {
    await stopProcess(api);
  }
}

runBench(main);
