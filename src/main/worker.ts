import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { parseSecretsKey } from '../platform/crypto/secretBox';
import { createActivities } from '../../activities';
import { loadConfig, requireSetting, type Config } from '../platform/config';
import { createDb } from '../platform/db/knex';
import { createLogger } from '../platform/logger';
import { assertStartupConfiguration, exitOnStartupFailure } from '../platform/startupCheck';
import { connectTemporalClient } from '../platform/temporal/client';
import { buildActivityDeps } from './activityDeps';
import { ensureSchedules } from './schedules';
import { prepareWorkerMetrics } from './workerMetrics';

/**
 * How the worker runs its tasks, shared with bench:calls' bare-Temporal baseline (bench/turnBaseline)
 * so the two are compared on the same settings.
 */
export const WORKER_TUNING = {
  shutdownGraceTime: '10 seconds',
} satisfies Partial<WorkerOptions>;

/**
 * The Temporal worker: runs every workflow and activity on the task queue. Temporal's
 * runtime handles SIGINT/SIGTERM: in-flight activities finish (up to the grace time),
 * then `run()` resolves and we close the database pool.
 */
export async function runWorker(config: Config = loadConfig()): Promise<void> {
  const warnings = assertStartupConfiguration('worker', config);
  const log = createLogger('worker', config.logLevel);
  for (const warning of warnings) log.warn({ setting: warning.setting }, `dev profile: ${warning.setting} ${warning.message}`);
  const secretsKey = parseSecretsKey(requireSetting(config.secretsKey, 'SECRETS_KEY'));
  const db = createDb(requireSetting(config.databaseUrl, 'DATABASE_URL'), { max: 10 });
  const metrics = await prepareWorkerMetrics(config, db, log);
  const connection = await NativeConnection.connect({ address: requireSetting(config.temporalAddress, 'TEMPORAL_ADDRESS') });
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = process.env.WORKFLOW_BUNDLE_PATH
    ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH } }
    : { workflowsPath: require.resolve('../../workflows') };
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    ...workflowSource,
    activities: createActivities(buildActivityDeps(config, { db, temporal: () => client, secretsKey })),
    ...WORKER_TUNING,
  });
  const client = await connectTemporalClient(requireSetting(config.temporalAddress, 'TEMPORAL_ADDRESS'), config.temporalNamespace);
  await ensureSchedules(client, config.taskQueue);
  await metrics.serve();
  log.info({ task_queue: config.taskQueue, namespace: config.temporalNamespace }, 'worker started');
  try {
    await worker.run();
  } finally {
    await metrics.close();
    await client.connection.close();
    await connection.close();
    await db.destroy();
    log.info('worker stopped');
  }
}

if (require.main === module) {
  runWorker().catch(exitOnStartupFailure);
}
