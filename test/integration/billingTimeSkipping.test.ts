import crypto from 'node:crypto';
import type http from 'node:http';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { CarrierAdapter } from '../../src/adapters/carrier/port';
import { SimulatorPaymentProcessor } from '../../src/adapters/payments/simulatorProcessor';
import { parseSecretsKey } from '../../src/platform/crypto/secretBox';
import { post, type BillingTenant } from '../../src/domain/billing/ledger';
import { previousMonthStart } from '../../src/domain/billing/periods';
import { runCommand } from '../../src/main/cli';
import { createDb, type Db } from '../../src/platform/db/knex';
import { EgressPolicy } from '../../src/platform/net/egress';
import { startCardProcessorSimulator, type CardProcessorSimulatorState } from '../../simulator/processor';
import { workflowIds } from '../../workflows/definitions/ids';
import type { autoChargeWorkflow, closeSpendPeriodWorkflow } from '../../workflows/billing';
import { createTenant, eventually, noModel } from '../support/harness';

/**
 * Hours of processor outage and the hour after a monthly close, without waiting for them:
 * Temporal's time-skipping test server fast-forwards retries, backoff and timers.
 */
describe('billing over hours (time-skipping)', () => {
  const secret = crypto.randomBytes(16).toString('hex');
  let env: TestWorkflowEnvironment;
  let db: Db;
  let processor: { server: http.Server; state: CardProcessorSimulatorState; url: string };
  let activities: ReturnType<typeof createActivities>;
  const taskQueue = `ts-billing-${crypto.randomUUID()}`;

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
    });
    db = createDb(process.env.DATABASE_URL!, { max: 4 });
    processor = await startCardProcessorSimulator({ host: '127.0.0.1', port: 0, secret });
    const live = new SimulatorPaymentProcessor(processor.url, secret);
    activities = createActivities({
      db,
      carrier: {} as CarrierAdapter,
      // The test environment's processor is never reached here; a dead port says so.
      payments: { live, test: new SimulatorPaymentProcessor('http://127.0.0.1:9', secret) },
      temporal: () => env.client,
      taskQueue,
      model: noModel,
      carrierEventsUrl: 'http://127.0.0.1:9/carrier/events',
      secretsKey: () => parseSecretsKey(process.env.SECRETS_KEY!),
      egress: new EgressPolicy(),
      now: () => new Date(),
    });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => processor?.server.close(() => resolve()));
    await db?.destroy();
    await env?.teardown();
  });
  beforeEach(() => processor.state.reset());

  /** A worker runs once: each test gets its own, on the same task queue. */
  async function withWorker(body: () => Promise<void>): Promise<void> {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      activities,
    });
    await worker.runUntil(body);
  }

  async function carded(): Promise<BillingTenant> {
    const tenant = await createTenant(db);
    await runCommand(db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    const account: BillingTenant = { workspaceId: tenant.workspaceId, environment: 'live' };
    // 500 → 200: below the 500-cent threshold.
    await post(db, {
      tenant: account,
      type: 'call_charge',
      amountCents: -300,
      description: 'Call',
      idempotencyRef: `spend:${crypto.randomUUID()}`,
      at: new Date(),
    });
    return account;
  }
  const wake = (account: BillingTenant) =>
    env.client.workflow.signalWithStart<typeof autoChargeWorkflow>('autoChargeWorkflow', {
      workflowId: workflowIds.autoCharge(account.workspaceId, account.environment),
      taskQueue,
      args: [account],
      signal: 'balanceLow',
    });
  const recharges = (account: BillingTenant) =>
    db('ledger_transactions').where({ workspace_id: account.workspaceId, environment: account.environment, type: 'auto_recharge' });
  const balance = async (account: BillingTenant) =>
    Number(
      (await db('billing_accounts').where({ workspace_id: account.workspaceId, environment: account.environment }).first()).balance_cents,
    );

  it('the processor charges the card but its answers are lost past the retry budget: one charge, one credit, none on the next signal', async () => {
    const account = await carded();
    // Every charge answer is lost (the processor charges, then the connection drops), for good.
    processor.state.setFault({ mode: 'drop' });
    await withWorker(async () => {
      const first = await wake(account);
      expect(await first.result()).toEqual({ charges: 1, declined: false });
      // The hour of retries happened (with backoff), all under one key.
      expect(processor.state.attempts).toBeGreaterThan(10);
      expect([...processor.state.charges.values()]).toMatchObject([{ status: 'succeeded', amount_cents: 2000 }]);
      expect(await recharges(account)).toHaveLength(1);
      expect(await balance(account)).toBe(200 + 2000);
      const [attempt] = await db('payment_attempts').where({ workspace_id: account.workspaceId });
      expect(attempt).toMatchObject({ status: 'succeeded', processor_charge_id: [...processor.state.charges.values()][0].id });

      const next = await wake(account);
      expect(await next.result()).toEqual({ charges: 0, declined: false });
      expect(processor.state.charges.size).toBe(1);
      expect(await recharges(account)).toHaveLength(1);
    });
  }, 120_000);

  it('a run that ends while its charge is unanswered: the next run finishes that charge under the same key', async () => {
    const account = await carded();
    processor.state.setFault({ mode: 'drop' });
    await withWorker(async () => {
      const first = await wake(account);
      await eventually(async () => (processor.state.charges.size === 1 ? true : undefined));
      await first.terminate('operator stopped it mid-outage');
      const [pending] = await db('payment_attempts').where({ workspace_id: account.workspaceId });
      expect(pending).toMatchObject({ status: 'pending' });

      processor.state.setFault({ mode: 'normal' });
      const second = await wake(account);
      expect(await second.result()).toEqual({ charges: 1, declined: false });
      expect([...processor.state.charges.values()]).toMatchObject([{ idempotency_key: pending.idempotency_key, status: 'succeeded' }]);
      expect(await recharges(account)).toMatchObject([{ idempotency_ref: pending.idempotency_key, amount_cents: '2000' }]);
      expect(await db('payment_attempts').where({ workspace_id: account.workspaceId })).toMatchObject([
        { id: pending.id, status: 'succeeded' },
      ]);
    });
  }, 120_000);

  it('a lookup that finds no charge sends it again under the same key: one charge', async () => {
    const account = await carded();
    // Requests are refused (503) for longer than the budget: the processor never charged.
    processor.state.setFault({ mode: 'error' });
    await withWorker(async () => {
      const handle = await wake(account);
      // The first budget runs out and the lookup finds nothing; the outage then ends.
      await eventually(async () => (processor.state.attempts >= 1 ? true : undefined));
      const lookupDone = async () =>
        ((await handle.fetchHistory()).events ?? []).some(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'lookUpAutoChargeAttempt',
        ) || undefined;
      const done = handle.result();
      await eventually(lookupDone, 60_000, 'the lookup');
      processor.state.setFault({ mode: 'normal' });
      expect(await done).toEqual({ charges: 1, declined: false });
      expect(processor.state.charges.size).toBe(1);
      expect(await recharges(account)).toHaveLength(1);
    });
  }, 120_000);

  it('a scheduled monthly close runs again an hour later and picks up a late posting (L7)', async () => {
    const keyId = crypto.randomUUID();
    const tenant = await createTenant(db);
    const account: BillingTenant = { workspaceId: tenant.workspaceId, environment: 'test' };
    const period = previousMonthStart(new Date(await env.currentTimeMs()));
    const stampedIn = (day: number) => new Date(period.getTime() + day * 86_400_000);
    const charge = (at: Date, cents: number) =>
      post(db, {
        tenant: account,
        type: 'call_charge',
        amountCents: -cents,
        description: 'Call',
        idempotencyRef: `c:${crypto.randomUUID()}`,
        actorKeyId: keyId,
        at,
      });
    await charge(stampedIn(3), 5);
    await withWorker(async () => {
      // As the schedule starts it: no nominal time given.
      const handle = await env.client.workflow.start<typeof closeSpendPeriodWorkflow>('closeSpendPeriodWorkflow', {
        taskQueue,
        workflowId: `close-${crypto.randomUUID()}`,
        args: [{}],
      });
      const row = () => db('spend_periods').where({ key_id: keyId }).first();
      await eventually(async () => (await row()) ?? undefined, 20_000, 'the first close');
      expect(await row()).toMatchObject({ spent_cents: '5' });
      // Stamped inside the month, committed after the first close.
      await charge(stampedIn(20), 7);
      await handle.result();
      expect(await row()).toMatchObject({ spent_cents: '12' });
    });
  }, 120_000);
});
