import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { parseSecretsKey } from '../platform/crypto/secretBox';
import { createActivities } from '../../activities';
import { environmentsOnCarrier, loadConfig, requireSetting, type Config } from '../platform/config';
import { createDb } from '../platform/db/knex';
import { abandonOnWorkerShutdown } from '../platform/lifecycle/abandonOnShutdown';
import { CLOSE_MARGIN_MS, drainOnSignal } from '../platform/lifecycle/drain';
import { createLogger } from '../platform/logger';
import { PROVIDER_SETTINGS } from '../adapters/settings';
import { assertStartupConfiguration, deprecatedSettings, exitOnStartupFailure } from '../platform/startupCheck';
import { connectTemporalClient, dataConverterWith, payloadCodecOf, temporalTlsOf } from '../platform/temporal/client';
import { startTracing } from '../platform/tracing/setup';
import { workflowBundleOf, workflowCodeSource } from '../platform/temporal/workflowBundle';
import { tracingActivityInterceptors, tracingSinks } from '../platform/tracing/temporal';
import { buildActivityDeps } from './activityDeps';
import { ensureSchedules } from './schedules';
import { checkTelnyxWebhookSettings } from './telnyxInbox';
import { prepareWorkerMetrics } from './workerMetrics';

/**
 * How the worker runs its tasks, shared with bench:calls' bare-Temporal baseline (bench/turnBaseline)
 * so the two are compared on the same settings.
 */
export const WORKER_TUNING = {
  shutdownGraceTime: '10 seconds',
} satisfies Partial<WorkerOptions>;

/**
 * The Temporal worker: runs every workflow and activity on the task queue. On SIGINT/SIGTERM it
 * stops polling, running activities get WORKER_SHUTDOWN_GRACE_SECONDS to finish (then Temporal
 * cancels them and retries them on another worker), `run()` resolves, the connections and the
 * pool close and the process exits 0; the same signal again, or a drain past its deadline, exits 1.
 */
export async function runWorker(config: Config = loadConfig()): Promise<void> {
  const warnings = assertStartupConfiguration('worker', config, PROVIDER_SETTINGS);
  const tracing = startTracing('worker');
  const log = createLogger('worker', config.logLevel);
  for (const warning of warnings) log.warn({ setting: warning.setting }, `dev profile: ${warning.setting} ${warning.message}`);
  for (const old of deprecatedSettings(config)) log.warn({ setting: old.setting }, `deprecated setting: ${old.setting} ${old.message}`);
  const secretsKey = parseSecretsKey(requireSetting(config.secretsKey, 'SECRETS_KEY'));
  const payloadCodec = payloadCodecOf(config);
  const db = createDb(requireSetting(config.databaseUrl, 'DATABASE_URL'), { max: 10 });
  const metrics = await prepareWorkerMetrics(config, db, log);
  const tls = temporalTlsOf(config);
  const connection = await NativeConnection.connect({ address: requireSetting(config.temporalAddress, 'TEMPORAL_ADDRESS'), tls });
  // The build's bundle (npm run build) in production; the sources bundled now, with the same options, under tsx.
  const source = workflowCodeSource();
  const bundleStarted = Date.now();
  const workflowBundle = await workflowBundleOf(source);
  log.info(
    source.kind === 'prebuilt'
      ? { workflow_bundle: 'prebuilt', path: source.path }
      : { workflow_bundle: 'bundled at start', ms: Date.now() - bundleStarted },
    source.kind === 'prebuilt' ? 'workflow code: the prebuilt bundle' : 'workflow code: the sources, bundled at start (development)',
  );
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowBundle,
    // Payloads are decrypted here, outside the workflow sandbox, and encrypted before they reach the server.
    dataConverter: dataConverterWith(payloadCodec),
    activities: createActivities(buildActivityDeps(config, { db, temporal: () => client, secretsKey })),
    ...WORKER_TUNING,
    // The deployment's grace (WORKER_TUNING's is what in-process test workers and the bench baseline use).
    shutdownGraceTime: config.workerShutdownGraceSeconds * 1000,
    // The workflow interceptors are in the bundle (workflowBundleOptions).
    interceptors: { activity: [abandonOnWorkerShutdown, ...tracingActivityInterceptors()] },
    sinks: tracingSinks(),
  });
  const client = await connectTemporalClient(
    requireSetting(config.temporalAddress, 'TEMPORAL_ADDRESS'),
    config.temporalNamespace,
    payloadCodec,
    tls,
  );
  await ensureSchedules(client, config.taskQueue, { telnyx: environmentsOnCarrier(config, 'telnyx').length > 0 });
  void checkTelnyxWebhookSettings(config, log);
  // Ready while it polls: from SIGTERM on, /readyz answers 503 (the worker drains).
  await metrics.serve(() => worker.getState() === 'RUNNING');
  log.info({ task_queue: config.taskQueue, namespace: config.temporalNamespace }, 'worker started');
  drainOnSignal({ log, forceExitAfterMs: config.workerShutdownGraceSeconds * 1000 + CLOSE_MARGIN_MS, drain: () => stopPolling(worker) });
  try {
    await worker.run();
  } finally {
    await metrics.close();
    await client.connection.close();
    await connection.close();
    await db.destroy();
    await tracing.shutdown();
    log.info('worker stopped');
  }
}

if (require.main === module) {
  runWorker().catch(exitOnStartupFailure);
}

/** Temporal's runtime also shuts the worker down on these signals; whichever comes first does it. */
function stopPolling(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}
