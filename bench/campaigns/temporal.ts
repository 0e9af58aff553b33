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
  attemptEvents: Distribution;
  callEvents: Distribution;
}

async function historyLengths(client: Client, query: string): Promise<number[]> {
  const lengths: number[] = [];
  for await (const execution of client.workflow.list({ query })) lengths.push(execution.historyLength);
  return lengths;
}

export async function historySizes(client: Client, taskQueue: string, campaignId: string): Promise<HistorySizes> {
  // A run still open has no history length in visibility: the dispatcher's runs are read whole.
  const dispatcher: number[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = 'campaign:${campaignId}'` }))
    dispatcher.push((await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory()).events?.length ?? 0);
  const ofType = (type: string) => historyLengths(client, `WorkflowType = '${type}' AND TaskQueue = '${taskQueue}'`);
  return {
    dispatcherRuns: dispatcher.length,
    dispatcherEvents: distribution(dispatcher),
    attemptEvents: distribution(await ofType('campaignAttemptWorkflow')),
    callEvents: distribution(await ofType('callWorkflow')),
  };
}

/**
 * How many workflows of one activity each this server completes a second, `concurrency` in flight
 * (bench:temporal's `oneActivityWorkflow`, its own bundle and worker on its own task queue): what
 * a design spending one workflow and one activity per unit of work could at most do here.
 */
export async function temporalCeiling(
  client: Client,
  address: string,
  namespace: string,
  count: number,
  concurrency: number,
): Promise<number> {
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
    return count / ((performance.now() - t0) / 1000);
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}
