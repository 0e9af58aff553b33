import crypto from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { CarrierAdapter } from '../../src/adapters/carrier/port';
import type { RecordingStore } from '../../src/adapters/storage/port';
import { loadConfig } from '../../src/platform/config';
import { parseSecretsKey } from '../../src/platform/crypto/secretBox';
import { createDb, type Db } from '../../src/platform/db/knex';
import type { EgressPolicy } from '../../src/platform/net/egress';
import { noModel, noPayments, scratchRecordingStore } from './harness';
import { testDataConverter } from './payloadCodec';

/**
 * A worker of the suite's workflow bundle and the real activities, on a task queue of its own in a
 * time-skipping environment: the given carrier (none by default: the workflow under test must not
 * reach one), the given recordings store (a scratch one by default), no card processor, no model, the suite's secrets key.
 */
export async function timeSkippingWorker(
  env: TestWorkflowEnvironment,
  deps: { db: Db; egress: EgressPolicy; carrier?: CarrierAdapter; recordingStore?: RecordingStore },
): Promise<{ worker: Worker; taskQueue: string }> {
  const taskQueue = `ts-${crypto.randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    dataConverter: testDataConverter(),
    taskQueue,
    workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    activities: createActivities({
      config: loadConfig(),
      db: deps.db,
      carrier: deps.carrier ?? ({} as CarrierAdapter),
      recordingStore: deps.recordingStore ?? scratchRecordingStore(),
      payments: noPayments,
      model: noModel,
      temporal: () => env.client,
      taskQueue,
      carrierEventsUrl: 'http://127.0.0.1:9/carrier/events',
      secretsKey: () => parseSecretsKey(process.env.SECRETS_KEY!),
      egress: deps.egress,
      now: () => new Date(),
    }),
  });
  return { worker, taskQueue };
}

/**
 * A time-skipping test server and a database pool for a file's tests: started before them, closed after. The getters
 * answer once `beforeAll` has run.
 */
export function useTimeSkippingEnv(): { env: () => TestWorkflowEnvironment; db: () => Db } {
  let env: TestWorkflowEnvironment | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
      client: { dataConverter: testDataConverter() },
    });
    db = createDb(process.env.DATABASE_URL!, { max: 4 });
  });
  afterAll(async () => {
    await db?.destroy();
    await env?.teardown();
  });
  return { env: () => env!, db: () => db! };
}
