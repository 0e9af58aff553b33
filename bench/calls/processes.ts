import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { spawnLogged } from '../../dev/infra/proc';
import type { Harness } from '../../test/support/harness';
import { waitUntil } from '../support/async';

/**
 * The API and worker entry points run as their own processes (BENCH_API=process,
 * BENCH_WORKER=process), as a deployment runs them, so their CPU is measured apart.
 */

/** Extra node arguments for the worker processes (BENCH_WORKER=process), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
export const workerNodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
/** The same for the API process (BENCH_API=process). */
const apiNodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

/**
 * Node's arguments for an entry point: the TypeScript source under tsx, or with `buildDir` (BENCH_BUILD=1,
 * bench/support/harnessStack.ts) the production build's JavaScript with plain node, as the image runs it.
 */
const entryArgs = (name: 'api' | 'worker', buildDir: string | undefined) =>
  buildDir
    ? [path.join(buildDir, 'src', 'main', `${name}.js`)]
    : ['--import', 'tsx', path.join(__dirname, '..', '..', 'src', 'main', `${name}.ts`)];

/**
 * The API entry point (src/main/api.ts) on `port`, taking the carrier's call events (then
 * {@link waitForApi}). The harness's in-process API still serves the bench's own requests.
 */
export function startApiProcess(
  h: Harness,
  options: { port: number; eventsBaseUrl: string; logFile: string; buildDir?: string },
): ChildProcess {
  const { port, eventsBaseUrl, logFile } = options;
  return spawnLogged(process.execPath, [...apiNodeArgs, ...entryArgs('api', options.buildDir)], logFile, {
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
  });
}

/** Waits (up to 60 s) until the API process answers /healthz; throws with its log if it exited. */
export async function waitForApi(api: ChildProcess, eventsBaseUrl: string, logFile: string): Promise<void> {
  await waitUntil(
    'the API process to answer /healthz',
    async () => {
      if (api.exitCode !== null)
        throw new Error(`the API process exited (${api.exitCode}): ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
      return fetch(`${eventsBaseUrl}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
    },
    60_000,
    200,
  );
}

/**
 * The worker entry point (src/main/worker.ts) in its own process, as `npm run up` and a
 * deployment run it, on the harness's task queue.
 * BENCH_WORKER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to node, not NODE_OPTIONS, which refuses --cpu-prof.
 */
export function startWorkerProcess(
  h: Harness,
  options: { bundlePath: string; eventsBaseUrl: string; logFile: string; buildDir?: string },
): ChildProcess {
  return spawnLogged(process.execPath, [...workerNodeArgs, ...entryArgs('worker', options.buildDir)], options.logFile, {
    env: {
      ...process.env,
      DATABASE_URL: h.config.databaseUrl,
      TEMPORAL_ADDRESS: h.config.temporalAddress,
      TEMPORAL_TASK_QUEUE: h.config.taskQueue,
      SIMULATOR_URL: h.config.simulatorUrl,
      CARRIER_API_KEY: h.config.carrierApiKey,
      PAYMENTS_API_KEY: h.config.paymentsApiKey,
      WORKFLOW_BUNDLE_PATH: options.bundlePath,
      SECRETS_KEY: h.config.secretsKey,
      PUBLIC_BASE_URL: options.eventsBaseUrl,
      LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'warn',
    },
  });
}

/** Waits (up to 60 s) until the worker process polls the task queue. */
export async function waitForWorker(h: Harness, worker: ChildProcess, logFile: string, taskQueue = h.config.taskQueue): Promise<void> {
  await waitUntil(
    'the worker process to poll',
    async () => {
      if (worker.exitCode !== null)
        throw new Error(`the worker process exited (${worker.exitCode}): ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
      const { pollers } = await h.temporal.workflowService.describeTaskQueue({
        namespace: h.config.temporalNamespace,
        taskQueue: { name: taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      return (pollers ?? []).length > 0;
    },
    60_000,
    200,
  );
}
