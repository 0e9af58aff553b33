import crypto from 'node:crypto';
import { parseSecretsKey } from '../../src/platform/crypto/secretBox';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { CarrierAdapter } from '../../src/adapters/carrier/port';
import { createDb, type Db } from '../../src/platform/db/knex';
import { EgressPolicy } from '../../src/platform/net/egress';
import { createTenant, noModel, noPayments } from '../support/harness';
import type { provisionLineWorkflow } from '../../workflows/lines';
import { testDataConverter } from '../support/payloadCodec';

/**
 * Ten minutes of carrier outage, without ten minutes of waiting: Temporal's time-skipping
 * test server fast-forwards the retry backoff. The line must end released with the reason.
 */
describe('line provisioning when the carrier stays down (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let db: Db;

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

  it('gives up after the ten-minute budget and releases the line', async () => {
    const tenant = await createTenant(db);
    const [line] = await db('lines')
      .insert({
        workspace_id: tenant.workspaceId,
        user_id: tenant.owner.id,
        environment: 'test',
        name: 'x',
        mode: 'webhook',
        webhook_url: 'https://a.example.test',
        status: 'provisioning',
      })
      .returning('*');
    let attempts = 0;
    const downCarrier: CarrierAdapter = {
      async provisionNumber() {
        attempts += 1;
        throw new Error('carrier unavailable (503)');
      },
      async releaseNumber() {},
      async placeCall(): Promise<never> {
        throw new Error('no calls in this test');
      },
      async hangUp() {},
      async answerCall(): Promise<never> {
        throw new Error('no calls in this test');
      },
      async rejectCall() {},
      async speak() {},
      async stopSpeaking() {},
      async sendDigits() {},
      async transferCall(): Promise<never> {
        throw new Error('no calls in this test');
      },
      async sendSms(): Promise<never> {
        throw new Error('no messages in this test');
      },
      async openMediaStream(): Promise<never> {
        throw new Error('no media in this test');
      },
      async openRecording(): Promise<never> {
        throw new Error('no recordings in this test');
      },
    };
    const taskQueue = `ts-${crypto.randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      dataConverter: testDataConverter(),
      taskQueue,
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      activities: createActivities({
        db,
        carrier: downCarrier,
        payments: noPayments,
        model: noModel,
        temporal: () => env.client,
        taskQueue,
        carrierEventsUrl: 'http://127.0.0.1:9/carrier/events',
        secretsKey: () => parseSecretsKey(process.env.SECRETS_KEY!),
        egress: new EgressPolicy(),
        now: () => new Date(),
      }),
    });
    const started = Date.now();
    const result = await worker.runUntil(
      env.client.workflow.execute<typeof provisionLineWorkflow>('provisionLineWorkflow', {
        taskQueue,
        workflowId: `t-${line.id}`,
        args: [{ lineId: line.id }],
      }),
    );
    expect(result).toEqual({ status: 'released', reason: 'carrier unavailable: gave up after retries' });
    // Backoff 1 s doubling to 30 s over 10 minutes: far more than a handful of tries, in seconds of wall time.
    expect(attempts).toBeGreaterThan(15);
    expect(Date.now() - started).toBeLessThan(60_000);
    const row = await db('lines').where({ id: line.id }).first();
    expect(row).toMatchObject({ status: 'released', failure_reason: 'carrier unavailable: gave up after retries' });
  }, 90_000);
});
