import { startEphemeralStack, type EphemeralStack } from '../../dev/infra/stack';
import { productionBuild, setRunEnvironment } from './workflowBundle';
import { WORKER_RESOURCES_ENV } from './workerResources';

/**
 * Once per `npm test`, for the integration project: a real Postgres database and a real Temporal dev server, plus
 * the production build made once (its workflow bundle is every test worker's). Test files read the addresses from the environment, which jest hands to every test file.
 *
 * Test files run in parallel, one per jest worker at a time. Each worker has a database (a copy of the migrated
 * one) and a Temporal namespace of its own (setupFile.ts picks them by JEST_WORKER_ID), so files running at once
 * never see each other's rows, schedules or global limits, just as when they ran one after another.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const workers = Array.from({ length: Math.max(1, globalConfig.maxWorkers) }, (_, index) => `w${index + 1}`);
  const [stack, build] = await Promise.all([
    startEphemeralStack({
      name: 'switchboard_test',
      withTestServer: true,
      temporalDynamicConfig: ONE_PARTITION_PER_TASK_QUEUE,
      copies: workers,
    }),
    productionBuild(),
  ]);
  (globalThis as { __switchboardStack?: EphemeralStack }).__switchboardStack = stack;

  process.env.DATABASE_URL = stack.databaseUrl;
  process.env[WORKER_RESOURCES_ENV] = JSON.stringify(stack.copies);
  process.env.TEMPORAL_ADDRESS = stack.temporalAddress;
  if (stack.temporalTestServerPath) process.env.TEMPORAL_TEST_SERVER_PATH = stack.temporalTestServerPath;
  if (stack.temporalCliPath) process.env.TEMPORAL_CLI_PATH = stack.temporalCliPath;
  if (stack.temporalDbFile) process.env.TEMPORAL_DB_FILE = stack.temporalDbFile;
  setRunEnvironment(build);
}

/**
 * Each test file has one worker on a task queue of its own. With the server's default four
 * partitions, a task can land in a partition its few pollers are not waiting on and wait for a
 * forward (temporalio/temporal#6160); CI twice saw a fresh worker's first line take over 20 s.
 * One partition puts every task where the worker polls. Production keeps the default.
 */
const ONE_PARTITION_PER_TASK_QUEUE = { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 };
