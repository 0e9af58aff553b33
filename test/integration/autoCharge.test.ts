import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBillingActivities } from '../../activities/billing';
import { SimulatorPaymentProcessor } from '../../activities/payments/simulatorProcessor';
import { post, type BillingTenant } from '../../src/billing/ledger';
import { runCommand } from '../../src/cli/main';
import { stopProcess } from '../../src/infra/proc';
import { MONTHLY_CLOSE_SCHEDULE_ID, ensureSchedules } from '../../src/temporal/schedules';
import { workflowIds } from '../../workflows/ids';
import { eventually, useHarness, type Harness, type Tenant } from '../support/harness';

/** Auto-charge of the card on file, and the monthly close of spend. */
describe('auto-charge and the monthly close', () => {
  const ctx = useHarness({ worker: true });
  let h: Harness;
  let tenant: Tenant;
  let account: BillingTenant;
  beforeEach(() => {
    ({ h, tenant } = ctx);
    account = { workspaceId: tenant.workspaceId, environment: 'test' };
    h.simulator.processor.reset();
  });

  const billing = () =>
    createBillingActivities({ db: h.db, payments: new SimulatorPaymentProcessor(h.simulator.url, h.simulator.credentials.paymentsApiKey), temporal: () => h.temporal, taskQueue: h.config.taskQueue, now: () => new Date() });
  const addCard = (card = '4242424242424242') => runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card, exp: '12/40', default: true });
  /** Spends the balance down below the default 500-cent threshold. */
  const spend = (cents: number) => post(h.db, { tenant: account, type: 'call_charge', amountCents: -cents, description: 'Call', idempotencyRef: `spend:${crypto.randomUUID()}`, at: new Date() });
  const autoCharge = () => h.temporal.workflow.getHandle(workflowIds.autoCharge(account.workspaceId, 'test'));
  const autoRecharges = () => h.db('ledger_transactions').where({ workspace_id: account.workspaceId, environment: 'test', type: 'auto_recharge' });
  const balance = async () => (await h.request('GET', '/api/v1/billing/balance', { key: tenant.keys.test })).body.cents;

  it('charges the card once under 20 concurrent low-balance triggers, and credits the balance', async () => {
    await addCard();
    await spend(200);
    await Promise.all(Array.from({ length: 20 }, () => billing().requestAutoCharge(account)));
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
    // Give any second charge the chance to happen before asserting it did not.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await autoRecharges()).toHaveLength(1);
    expect([...h.simulator.processor.charges.values()].filter((c) => c.status === 'succeeded')).toHaveLength(1);
    expect(await balance()).toBe(300 + 2000);
    const [attempt] = await h.db('payment_attempts').where({ workspace_id: account.workspaceId });
    expect(attempt).toMatchObject({ status: 'succeeded', amount_cents: '2000' });
  });

  it('settling a charge below the threshold triggers the top-up by itself', async () => {
    await addCard();
    const activities = billing();
    const reference = `call:${crypto.randomUUID()}`;
    await activities.reserveFunds({ tenant: account, keyId: null, reference, amountCents: 26 });
    const settled = await activities.settleReservation({ tenant: account, reference, chargeCents: 26, type: 'call_charge', description: 'Call', lineId: null, usage: { kind: 'call', seconds: 60 } });
    expect(settled).toEqual({ balanceAfterCents: 474, autoChargeRequested: true });
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
    expect(await balance()).toBe(474 + 2000);
  });

  it('does nothing above the threshold, without a card, or when disabled', async () => {
    await billing().requestAutoCharge(account); // balance 500 = threshold: not below
    await spend(100);
    await billing().requestAutoCharge(account); // below, but no card on file
    await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { auto_recharge_enabled: false } });
    await addCard();
    await billing().requestAutoCharge(account); // card, but disabled
    await eventually(async () => {
      const history = await autoCharge().fetchHistory();
      const prepared = (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
      return prepared >= 1 ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.simulator.processor.attempts).toBe(0);
    expect(await autoRecharges()).toHaveLength(0);
  });

  it('stops on a hard decline and records it; a new card lets it charge again', async () => {
    await addCard();
    await spend(300);
    h.simulator.processor.setFault({ mode: 'decline', declineCode: 'insufficient_funds' });
    await billing().requestAutoCharge(account);
    await eventually(async () => ((await h.db('payment_attempts').where({ workspace_id: account.workspaceId, status: 'declined' }).first()) ? true : undefined));
    const declined = await h.db('payment_attempts').where({ workspace_id: account.workspaceId });
    expect(declined).toMatchObject([{ status: 'declined', decline_code: 'insufficient_funds' }]);
    // Further triggers do not hammer the declined card.
    const attemptsAfterDecline = h.simulator.processor.attempts;
    await billing().requestAutoCharge(account);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.simulator.processor.attempts).toBe(attemptsAfterDecline);
    expect(await autoRecharges()).toHaveLength(0);

    h.simulator.processor.setFault({ mode: 'normal' });
    await addCard('5555555555554444');
    await autoCharge().signal('paymentMethodChanged');
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
    const attempts = await h.db('payment_attempts').where({ workspace_id: account.workspaceId }).orderBy('created_at');
    expect(attempts.map((a) => a.status)).toEqual(['declined', 'succeeded']);
  });

  it('retries transient processor errors with the same idempotency key', async () => {
    await addCard();
    await spend(300);
    h.simulator.processor.setFault({ mode: 'error', remaining: 2 });
    await billing().requestAutoCharge(account);
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined), 30_000);
    expect(h.simulator.processor.attempts).toBe(3);
    expect(h.simulator.processor.charges.size).toBe(1);
  }, 40_000);

  describe('durability', () => {
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-autocharge-'));
    afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

    it('a worker killed while the card is being charged: exactly one charge after restart', async () => {
      await h.stopWorker();
      await addCard();
      await spend(300);
      // The processor takes its time: the worker dies while the charge request is open.
      h.simulator.processor.setFault({ mode: 'timeout', holdMs: 60_000, remaining: 1 });
      let worker = h.spawnWorkerProcess(path.join(logDir, 'worker.log'));
      try {
        await billing().requestAutoCharge(account);
        await eventually(async () => (h.simulator.processor.attempts >= 1 ? true : undefined), 30_000);
        const killed = new Promise((resolve) => worker.once('exit', resolve));
        worker.kill('SIGKILL');
        await killed;
        worker = h.spawnWorkerProcess(path.join(logDir, 'worker.log'));
        await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined), 60_000);
        expect(h.simulator.processor.attempts).toBeGreaterThanOrEqual(2);
        expect([...h.simulator.processor.charges.values()].filter((c) => c.status === 'succeeded')).toHaveLength(1);
        expect(await balance()).toBe(200 + 2000);
      } finally {
        await stopProcess(worker);
        await h.startWorker();
      }
    }, 90_000);
  });

  describe('monthly close', () => {
    it('closes the month before the schedule’s nominal time, once', async () => {
      const keyId = (await h.request('POST', '/v1/keys', { key: tenant.keys.serviceTest, body: { name: 'a' }, headers: { 'idempotency-key': crypto.randomUUID() } })).body.key.id;
      const charge = (at: string, cents: number) =>
        post(h.db, { tenant: account, type: 'call_charge', amountCents: -cents, description: 'Call', idempotencyRef: `c:${crypto.randomUUID()}`, actorKeyId: keyId, at: new Date(at) });
      await charge('2031-01-01T00:00:00.000Z', 5);
      await charge('2031-01-31T23:59:59.999Z', 7);
      await charge('2031-02-01T00:00:00.000Z', 100);
      const run = () =>
        h.temporal.workflow.execute('closeSpendPeriodWorkflow', { taskQueue: h.config.taskQueue, workflowId: `close-${crypto.randomUUID()}`, args: [{ nominalTime: '2031-02-01T00:00:00.000Z' }] });
      expect(await run()).toMatchObject({ period: '2031-01' });
      await run();
      expect(await h.db('spend_periods').where({ key_id: keyId })).toMatchObject([{ period: '2031-01', spent_cents: '12' }]);
    });

    it('is scheduled at 00:00 UTC on the 1st of every month', async () => {
      await ensureSchedules(h.temporal, h.config.taskQueue);
      const schedule = await h.temporal.schedule.getHandle(MONTHLY_CLOSE_SCHEDULE_ID).describe();
      expect(schedule.spec.calendars).toMatchObject([{ dayOfMonth: [{ start: 1, end: 1, step: 1 }], hour: [{ start: 0, end: 0, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] }]);
      expect(schedule.spec.timezone).toBe('UTC');
      expect(schedule.action).toMatchObject({ workflowType: 'closeSpendPeriodWorkflow' });
    });
  });
});
