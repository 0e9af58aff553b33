import crypto from 'node:crypto';
import type http from 'node:http';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { CarrierAdapter } from '../../src/adapters/carrier/port';
import { SimulatorPaymentProcessor } from '../../src/adapters/payments/simulatorProcessor';
import { parseSecretsKey } from '../../src/platform/crypto/secretBox';
import type { BillingTenant } from '../../src/domain/billing/ledger';
import { previousMonthStart } from '../../src/domain/billing/periods';
import { runCommand } from '../../src/main/cli';
import { loadConfig } from '../../src/platform/config';
import { createDb, type Db } from '../../src/platform/db/knex';
import { EgressPolicy } from '../../src/platform/net/egress';
import { startCardProcessorSimulator, type CardProcessorSimulatorState } from '../../simulator/processor';
import type { WorkflowHandle } from '@temporalio/client';
import { workflowIds } from '../../workflows/definitions/ids';
import type { autoChargeWorkflow, closeSpendPeriodWorkflow } from '../../workflows/billing';
import { createTenant, eventually, noModel, scratchRecordingStore } from '../support/harness';
import { spendOnCalls } from '../support/ledger';
import { testDataConverter } from '../support/payloadCodec';

/** What each test of this file works with; filled in by beforeAll. */
interface OverHours {
  env: TestWorkflowEnvironment;
  db: Db;
  processor: { server: http.Server; state: CardProcessorSimulatorState; url: string };
  taskQueue: string;
  /** A worker runs once: each test gets its own, on the same task queue. */
  withWorker(body: () => Promise<void>): Promise<void>;
  /** A live account with a card on file, its balance below the auto-charge threshold. */
  carded(): Promise<BillingTenant>;
  /** The low-balance signal, as a posting sends it. */
  wake(account: BillingTenant): Promise<WorkflowHandle<typeof autoChargeWorkflow>>;
  recharges(account: BillingTenant): Promise<Array<Record<string, unknown>>>;
  balance(account: BillingTenant): Promise<number>;
}

/**
 * A time-skipping test server of its own, a worker's activities on the database and a card
 * processor simulator, around the tests `body` declares.
 */
function overHours(title: string, body: (f: OverHours) => void): void {
  describe(title, () => {
    const f = {} as OverHours;
    const secret = crypto.randomBytes(16).toString('hex');
    let activities: ReturnType<typeof createActivities>;
    const taskQueue = `ts-billing-${crypto.randomUUID()}`;
    f.taskQueue = taskQueue;

    beforeAll(async () => {
      f.env = await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH! } },
        client: { dataConverter: testDataConverter() },
      });
      f.db = createDb(process.env.DATABASE_URL!, { max: 4 });
      f.processor = await startCardProcessorSimulator({ host: '127.0.0.1', port: 0, secret });
      const live = new SimulatorPaymentProcessor(f.processor.url, secret);
      activities = createActivities({
        config: loadConfig(),
        db: f.db,
        carrier: {} as CarrierAdapter,
        recordingStore: scratchRecordingStore(),
        // The test environment's processor is never reached here; a dead port says so.
        payments: { live, test: new SimulatorPaymentProcessor('http://127.0.0.1:9', secret) },
        temporal: () => f.env.client,
        taskQueue,
        model: noModel,
        carrierEventsUrl: 'http://127.0.0.1:9/carrier/events',
        secretsKey: () => parseSecretsKey(process.env.SECRETS_KEY!),
        egress: new EgressPolicy(),
        now: () => new Date(),
      });
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => f.processor?.server.close(() => resolve()));
      await f.db?.destroy();
      await f.env?.teardown();
    });
    beforeEach(() => f.processor.state.reset());

    /** A worker runs once: each test gets its own, on the same task queue. */
    f.withWorker = async function withWorker(body: () => Promise<void>): Promise<void> {
      const worker = await Worker.create({
        connection: f.env.nativeConnection,
        dataConverter: testDataConverter(),
        taskQueue,
        workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
        activities,
      });
      await worker.runUntil(body);
    };

    f.carded = async function carded(): Promise<BillingTenant> {
      const tenant = await createTenant(f.db);
      await runCommand(f.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
      const account: BillingTenant = { workspaceId: tenant.workspaceId, environment: 'live' };
      // 500 → 200: below the 500-cent threshold.
      await spendOnCalls(f.db, account, 300);
      return account;
    };
    f.wake = (account: BillingTenant) =>
      f.env.client.workflow.signalWithStart<typeof autoChargeWorkflow>('autoChargeWorkflow', {
        workflowId: workflowIds.autoCharge(account.workspaceId, account.environment),
        taskQueue,
        args: [account],
        signal: 'balanceLow',
      });
    f.recharges = (account: BillingTenant) =>
      f.db('ledger_transactions').where({ workspace_id: account.workspaceId, environment: account.environment, type: 'auto_recharge' });
    f.balance = async (account: BillingTenant) =>
      Number(
        (await f.db('billing_accounts').where({ workspace_id: account.workspaceId, environment: account.environment }).first())
          .balance_cents,
      );

    body(f);
  });
}

/**
 * Hours of processor outage and the hour after a monthly close, without waiting for them:
 * Temporal's time-skipping test server fast-forwards retries, backoff and timers.
 */
overHours('billing over hours (time-skipping)', (f) => {
  it('the processor charges the card but its answers are lost past the retry budget: one charge, one credit, none on the next signal', async () => {
    const account = await f.carded();
    // Every charge answer is lost (the processor charges, then the connection drops), for good.
    f.processor.state.setFault({ mode: 'drop' });
    await f.withWorker(async () => {
      const first = await f.wake(account);
      expect(await first.result()).toEqual({ charges: 1, declined: false });
      // The hour of retries happened (with backoff), all under one key.
      expect(f.processor.state.attempts).toBeGreaterThan(10);
      expect([...f.processor.state.charges.values()]).toMatchObject([{ status: 'succeeded', amount_cents: 2000 }]);
      expect(await f.recharges(account)).toHaveLength(1);
      expect(await f.balance(account)).toBe(200 + 2000);
      const [attempt] = await f.db('payment_attempts').where({ workspace_id: account.workspaceId });
      expect(attempt).toMatchObject({ status: 'succeeded', processor_charge_id: [...f.processor.state.charges.values()][0].id });

      const next = await f.wake(account);
      expect(await next.result()).toEqual({ charges: 0, declined: false });
      expect(f.processor.state.charges.size).toBe(1);
      expect(await f.recharges(account)).toHaveLength(1);
    });
  }, 120_000);

  it('a lookup that finds no charge sends it again under the same key: one charge', async () => {
    const account = await f.carded();
    // Requests are refused (503) for longer than the budget: the processor never charged.
    f.processor.state.setFault({ mode: 'error' });
    await f.withWorker(async () => {
      const handle = await f.wake(account);
      // The first budget runs out and the lookup finds nothing; the outage then ends.
      await eventually(async () => (f.processor.state.attempts >= 1 ? true : undefined));
      const lookupDone = async () =>
        ((await handle.fetchHistory()).events ?? []).some(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'lookUpAutoChargeAttempt',
        ) || undefined;
      const done = handle.result();
      await eventually(lookupDone, 60_000, 'the lookup');
      f.processor.state.setFault({ mode: 'normal' });
      expect(await done).toEqual({ charges: 1, declined: false });
      expect(f.processor.state.charges.size).toBe(1);
      expect(await f.recharges(account)).toHaveLength(1);
    });
  }, 120_000);

  it('a scheduled monthly close runs again an hour later and picks up a late posting (L7)', async () => {
    const keyId = crypto.randomUUID();
    const tenant = await createTenant(f.db);
    const account: BillingTenant = { workspaceId: tenant.workspaceId, environment: 'test' };
    const period = previousMonthStart(new Date(await f.env.currentTimeMs()));
    const stampedIn = (day: number) => new Date(period.getTime() + day * 86_400_000);
    const charge = (at: Date, cents: number) => spendOnCalls(f.db, account, cents, { at, actorKeyId: keyId });
    await charge(stampedIn(3), 5);
    await f.withWorker(async () => {
      // As the schedule starts it: no nominal time given.
      const handle = await f.env.client.workflow.start<typeof closeSpendPeriodWorkflow>('closeSpendPeriodWorkflow', {
        taskQueue: f.taskQueue,
        workflowId: `close-${crypto.randomUUID()}`,
        args: [{}],
      });
      const row = () => f.db('spend_periods').where({ key_id: keyId }).first();
      await eventually(async () => (await row()) ?? undefined, 20_000, 'the first close');
      expect(await row()).toMatchObject({ spent_cents: '5' });
      // Stamped inside the month, committed after the first close.
      await charge(stampedIn(20), 7);
      await handle.result();
      expect(await row()).toMatchObject({ spent_cents: '12' });
    });
  }, 120_000);
});

/**
 * A run terminated while a charge attempt is in flight leaks the test server's time-skipping lock
 * (temporalio/sdk-java#1138), so time never skips again in that server. This test gets a server of
 * its own and waits on real time only: nothing in it needs skipping.
 */
overHours('billing: a run ended mid-charge', (f) => {
  it('a run that ends while its charge is unanswered: the next run finishes that charge under the same key', async () => {
    const account = await f.carded();
    f.processor.state.setFault({ mode: 'drop' });
    await f.withWorker(async () => {
      const first = await f.wake(account);
      await eventually(async () => (f.processor.state.charges.size === 1 ? true : undefined));
      await first.terminate('operator stopped it mid-outage');
      const [pending] = await f.db('payment_attempts').where({ workspace_id: account.workspaceId });
      expect(pending).toMatchObject({ status: 'pending' });

      f.processor.state.setFault({ mode: 'normal' });
      await f.wake(account);
      // Its result would need the hour of idling skipped: the charge it settled is what counts.
      const settled = async () => (await f.db('payment_attempts').where({ id: pending.id, status: 'succeeded' }).first()) ?? undefined;
      await eventually(settled, 60_000, 'the resumed attempt to settle');
      expect(await f.balance(account)).toBe(200 + 2000);
      expect([...f.processor.state.charges.values()]).toMatchObject([{ idempotency_key: pending.idempotency_key, status: 'succeeded' }]);
      expect(await f.recharges(account)).toMatchObject([{ idempotency_ref: pending.idempotency_key, amount_cents: '2000' }]);
      expect(await f.db('payment_attempts').where({ workspace_id: account.workspaceId })).toMatchObject([
        { id: pending.id, status: 'succeeded' },
      ]);
    });
  }, 120_000);
});
