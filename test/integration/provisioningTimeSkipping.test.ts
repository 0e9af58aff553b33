import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { CarrierAdapter } from '../../src/adapters/carrier/port';
import type { Db } from '../../src/platform/db/knex';
import { EgressPolicy } from '../../src/platform/net/egress';
import { createTenant } from '../support/harness';
import type { provisionLineWorkflow } from '../../workflows/lines';
import { timeSkippingWorker, useTimeSkippingEnv } from '../support/timeSkippingWorker';

/**
 * Ten minutes of carrier outage, without ten minutes of waiting: Temporal's time-skipping
 * test server fast-forwards the retry backoff. The line must end released with the reason.
 */
describe('line provisioning when the carrier stays down (time-skipping)', () => {
  const suite = useTimeSkippingEnv();

  /** A line waiting for its number, of a new workspace. */
  const provisioningLine = async (environment: 'test' | 'live' = 'test') => {
    const tenant = await createTenant(db);
    const [line] = await db('lines')
      .insert({
        workspace_id: tenant.workspaceId,
        user_id: tenant.owner.id,
        environment,
        name: 'x',
        mode: 'webhook',
        webhook_url: 'https://a.example.test',
        status: 'provisioning',
      })
      .returning('*');
    return line as { id: string };
  };

  /** A carrier that only provisions numbers (as `provisionNumber` says) and records what it was asked to give back. */
  const carrierProvisioning = (provisionNumber: CarrierAdapter['provisionNumber'], released: string[] = []): CarrierAdapter => ({
    provisionNumber,
    async releaseNumber(request) {
      released.push(request.phoneNumber);
    },
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
    async deleteRecording(): Promise<never> {
      throw new Error('no recordings in this test');
    },
  });

  /** Runs the line's provisioning workflow on a worker of the real activities with `carrier`. */
  const provision = async (lineId: string, carrier: CarrierAdapter) => {
    const { worker, taskQueue } = await timeSkippingWorker(env, { db, carrier, egress: new EgressPolicy() });
    return worker.runUntil(
      env.client.workflow.execute<typeof provisionLineWorkflow>('provisionLineWorkflow', {
        taskQueue,
        workflowId: `t-${lineId}`,
        args: [{ lineId }],
      }),
    );
  };

  let env: TestWorkflowEnvironment;
  let db: Db;
  beforeAll(() => {
    env = suite.env();
    db = suite.db();
  });

  it('gives up after the ten-minute budget and releases the line', async () => {
    const line = await provisioningLine();
    let attempts = 0;
    const downCarrier = carrierProvisioning(async () => {
      attempts += 1;
      throw new Error('carrier unavailable (503)');
    });
    const started = Date.now();
    const result = await provision(line.id, downCarrier);
    expect(result).toEqual({ status: 'released', reason: 'carrier unavailable: gave up after retries' });
    // Backoff 1 s doubling to 30 s over 10 minutes: far more than a handful of tries, in seconds of wall time.
    expect(attempts).toBeGreaterThan(15);
    expect(Date.now() - started).toBeLessThan(60_000);
    const row = await db('lines').where({ id: line.id }).first();
    expect(row).toMatchObject({ status: 'released', failure_reason: 'carrier unavailable: gave up after retries' });
  }, 90_000);

  it('a number another line holds fails the line at once, instead of retrying for ever; that number stays at the carrier (L19)', async () => {
    const holder = await provisioningLine('live');
    const taken = `+1415555${String(crypto.randomInt(10_000)).padStart(4, '0')}`;
    await db('lines').where({ id: holder.id }).update({ status: 'active', phone_number: taken, activated_at: new Date() });
    const line = await provisioningLine('live');
    const released: string[] = [];
    const carrier = carrierProvisioning(async () => ({ phoneNumber: taken, carrierRef: 'PN-taken' }), released);
    const result = await provision(line.id, carrier);
    expect(result).toEqual({ status: 'released', reason: 'the number is held by another line' });
    expect(await db('lines').where({ id: line.id }).first()).toMatchObject({
      status: 'released',
      phone_number: null,
      failure_reason: 'the number is held by another line',
    });
    expect(released).toEqual([]);
    expect(await db('lines').where({ id: holder.id }).first()).toMatchObject({ status: 'active', phone_number: taken });
  }, 60_000);
});
