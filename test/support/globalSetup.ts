import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { generateSecretsKey } from '../../src/platform/crypto/secretBox';
import { FAILURE_CONVERTER_PATH } from '../../src/platform/codecs/failureConverter';
import { startEphemeralStack, type EphemeralStack } from '../../dev/infra/stack';
import { LOOPBACK_NETWORKS } from '../../src/platform/net/egress';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../src/platform/tracing/temporal';

/**
 * Once per `npm test`: a real Postgres database and a real Temporal dev server, plus the
 * workflow bundle built once (jest never transforms workflow code). Test files read the
 * addresses from the environment, which jest hands to every test file.
 */
export default async function globalSetup(): Promise<void> {
  const stack: EphemeralStack = await startEphemeralStack({
    name: 'switchboard_test',
    withTestServer: true,
    temporalDynamicConfig: ONE_PARTITION_PER_TASK_QUEUE,
  });
  (globalThis as { __switchboardStack?: EphemeralStack }).__switchboardStack = stack;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bundle-'));
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    // As a worker bundling the sources does (dataConverterWith): failure messages travel encrypted.
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: silentLogger(),
  });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);

  process.env.DATABASE_URL = stack.databaseUrl;
  process.env.TEMPORAL_ADDRESS = stack.temporalAddress;
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
  if (stack.temporalTestServerPath) process.env.TEMPORAL_TEST_SERVER_PATH = stack.temporalTestServerPath;
  if (stack.temporalCliPath) process.env.TEMPORAL_CLI_PATH = stack.temporalCliPath;
  if (stack.temporalDbFile) process.env.TEMPORAL_DB_FILE = stack.temporalDbFile;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.SECRETS_KEY = process.env.SECRETS_KEY ?? generateSecretsKey();
  // Every test client and worker encrypts payloads, as a deployment does (a key of this run: the format is SECRETS_KEY's).
  process.env.TEMPORAL_PAYLOAD_KEY = process.env.TEMPORAL_PAYLOAD_KEY ?? generateSecretsKey();
  // Tests' receivers listen on 127.0.0.1; attacker tests turn the allow-list off per harness.
  process.env.OUTBOUND_ALLOWED_NETWORKS = process.env.OUTBOUND_ALLOWED_NETWORKS ?? LOOPBACK_NETWORKS.join(',');
}

/**
 * Each test file has one worker on a task queue of its own. With the server's default four
 * partitions, a task can land in a partition its few pollers are not waiting on and wait for a
 * forward (temporalio/temporal#6160); CI twice saw a fresh worker's first line take over 20 s.
 * One partition puts every task where the worker polls. Production keeps the default.
 */
const ONE_PARTITION_PER_TASK_QUEUE = { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 };

function silentLogger() {
  const noop = () => undefined;
  return { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
}
