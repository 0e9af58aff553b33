import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../../src/platform/codecs/failureConverter';
import { runBounded } from '../support/async';
import { distribution, type Distribution } from '../support/stats';
import type { BenchActivities } from '../workflows/temporal';

/** The campaign's workflow histories, and the Temporal server's ceiling measured in the same run. */

export interface HistorySizes {
  /** The dispatcher's runs (`campaign:<id>`, continued as new) and the events of each. */
  dispatcherRuns: number;
  dispatcherEvents: Distribution;
  /** Attempt workflows: none since `campaign-dials-calls` (a dispatcher from before it started one a dial). */
  attemptEvents: Distribution;
  callEvents: Distribution;
  /** Every event of the campaign's workflows (dispatcher runs, attempts, calls): the server's work for the campaign. */
  totalEvents: number;
}

async function historyLengths(client: Client, query: string): Promise<number[]> {
  const lengths: number[] = [];
  for await (const execution of client.workflow.list({ query })) lengths.push(execution.historyLength);
  return lengths;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

export async function historySizes(client: Client, taskQueue: string, campaignId: string): Promise<HistorySizes> {
  // A run still open has no history length in visibility: the dispatcher's runs are read whole.
  const dispatcher: number[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = 'campaign:${campaignId}'` }))
    dispatcher.push((await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory()).events?.length ?? 0);
  const ofType = (type: string) => historyLengths(client, `WorkflowType = '${type}' AND TaskQueue = '${taskQueue}'`);
  const [attempts, calls] = [await ofType('campaignAttemptWorkflow'), await ofType('callWorkflow')];
  return {
    dispatcherRuns: dispatcher.length,
    dispatcherEvents: distribution(dispatcher),
    attemptEvents: distribution(attempts),
    callEvents: distribution(calls),
    totalEvents: sum(dispatcher) + sum(attempts) + sum(calls),
  };
}

/**
 * When each of the campaign's calls was due (epoch ms by call id): its workflow's execution time, which for a start
 * delayed to its place in the pace is the instant the dispatcher planned its dial.
 */
export async function callsDueAt(client: Client, taskQueue: string): Promise<Map<string, number>> {
  const due = new Map<string, number>();
  for await (const execution of client.workflow.list({ query: `WorkflowType = 'callWorkflow' AND TaskQueue = '${taskQueue}'` }))
    if (execution.executionTime) due.set(execution.workflowId, execution.executionTime.getTime());
  return due;
}

/** The server's ceiling, as workflows and as history events a second (each one-activity workflow's events counted). */
export interface Ceiling {
  workflowsPerSecond: number;
  eventsPerWorkflow: number;
  eventsPerSecond: number;
}

/**
 * How many workflows of one activity each this server completes a second, `concurrency` in flight
 * (bench:temporal's `oneActivityWorkflow`, its own bundle and worker on its own task queue), and so
 * how many history events a second it writes: what the server can carry here, to be read against the
 * events a dial costs.
 */
export async function temporalCeiling(
  client: Client,
  address: string,
  namespace: string,
  count: number,
  concurrency: number,
): Promise<Ceiling> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows/temporal'),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
  });
  const taskQueue = `bench-ceiling-${Date.now()}`;
  const connection = await NativeConnection.connect({ address });
  const activities: BenchActivities = { noop: async () => undefined };
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: { code },
    activities,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentActivityTaskExecutions: 100,
  });
  const running = worker.run();
  try {
    const warmup = Math.min(20, count);
    await runBounded(warmup, concurrency, (i) =>
      client.workflow.execute('oneActivityWorkflow', { taskQueue, workflowId: `${taskQueue}-w${i}` }),
    );
    const t0 = performance.now();
    await runBounded(count, concurrency, (i) =>
      client.workflow.execute('oneActivityWorkflow', { taskQueue, workflowId: `${taskQueue}-${i}` }),
    );
    const workflowsPerSecond = count / ((performance.now() - t0) / 1000);
    const { events } = await client.workflow.getHandle(`${taskQueue}-0`).fetchHistory();
    const eventsPerWorkflow = events?.length ?? NaN;
    return { workflowsPerSecond, eventsPerWorkflow, eventsPerSecond: workflowsPerSecond * eventsPerWorkflow };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}
