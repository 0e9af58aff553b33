import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBillingActivities } from '../../activities/billing';
import type { CardProcessorSimulatorState } from '../../simulator/processor';
import type { BillingTenant } from '../../src/domain/billing/ledger';
import { LazyTemporal, runCommand } from '../../src/main/cli';
import { paymentProcessorsFor } from '../../src/main/payments';
import { stopProcess } from '../../dev/infra/proc';
import { MONTHLY_CLOSE_SCHEDULE_ID, NUMBER_FEES_SCHEDULE_ID, ensureSchedules } from '../../src/main/schedules';
import { workflowIds } from '../../workflows/definitions/ids';
import { customer } from '../support/customer';
import { workerRegistry } from '../../activities/metrics';
import { eventually } from '../support/harness';
import { spendOnCalls } from '../support/ledger';
import { STUB_WEBHOOK_SECRETS, startStripeStub, stripeStubOverrides, type StripeStub } from '../support/stripeStub';
import { deliverStripeEvent } from '../support/stripeWebhooks';
import { useSuite } from '../support/suite';
import { untilActivityAttempt, untilWorkflowSettled } from '../support/waits';

/** Stripe's test payment methods standing for the simulator's test card numbers. */
const STRIPE_TEST_CARDS: Readonly<Record<string, string>> = {
  '4242424242424242': 'pm_card_visa',
  '5555555555554444': 'pm_card_mastercard',
};

/**
 * Auto-charge of the card on file, and the monthly close of spend. The auto-charge scenarios run
 * on each card processor: the simulator, and the Stripe adapter against the Stripe contract stub
 * (test/support/stripeStub.ts, whose accounts keep the same books as the simulator).
 */
describe.each(['simulator', 'stripe'] as const)('auto-charge and the monthly close (%s)', (provider) => {
  let stub: StripeStub | undefined;
  if (provider === 'stripe') {
    beforeAll(async () => {
      stub = await startStripeStub();
    });
    afterAll(() => stub?.close());
  }
  const ctx = useSuite({ worker: true, overrides: provider === 'stripe' ? stripeStubOverrides(() => stub!) : {} });
  const { h, tenant } = ctx;
  /** Each environment's processor as the test sees it: the simulator's, or the stub's account of that mode. */
  const processors = (): Record<'live' | 'test', CardProcessorSimulatorState> =>
    stub ? { live: stub.live.state, test: stub.test.state } : { live: h.simulator.processor, test: h.simulator.testProcessor };
  let account: BillingTenant;
  // Real money moves in live: these tests use the live environment (auto-recharge on by default,
  // cards saved for live), whose processor is `processors().live`.
  beforeEach(() => {
    account = { workspaceId: tenant.workspaceId, environment: 'live' };
    processors().live.reset();
    processors().test.reset();
  });
  const { lines, calls, messages, consent, settings } = customer(ctx);

  const billing = () =>
    createBillingActivities({
      db: h.db,
      payments: paymentProcessorsFor(h.config),
      temporal: () => h.temporal,
      taskQueue: h.config.taskQueue,
      now: () => new Date(),
    });
  /** The CLI's own Temporal client: saving a card tells a waiting auto-charge, as `npm run cli` does. */
  const temporal = new LazyTemporal();
  afterAll(() => temporal.close());
  const addCard = (card = '4242424242424242', env?: 'test' | 'live') =>
    runCommand(
      h.db,
      ['payment-method', 'add'],
      {
        workspace: tenant.workspaceId,
        // With Stripe the card was saved on Stripe: only its PaymentMethod id is given.
        ...(provider === 'stripe' ? { 'stripe-payment-method': STRIPE_TEST_CARDS[card] } : { card, exp: '12/40' }),
        default: true,
        ...(env ? { env } : {}),
      },
      temporal,
      h.config,
    );
  /** Spends the balance down below the default 500-cent threshold. */
  const spend = (cents: number) => spendOnCalls(h.db, account, cents);
  const autoCharge = () => h.temporal.workflow.getHandle(workflowIds.autoCharge(account.workspaceId, 'live'));
  const autoRecharges = () =>
    h.db('ledger_transactions').where({ workspace_id: account.workspaceId, environment: 'live', type: 'auto_recharge' });
  const autoRechargePostings = async () =>
    (await workerRegistry.getSingleMetric('switchboard_ledger_postings_total')!.get()).values.find((v) => v.labels.type === 'auto_recharge')
      ?.value ?? 0;
  const balance = async () => (await h.request('GET', '/api/v1/billing/balance', { key: tenant.keys.live })).body.cents;

  it('charges the card once under 20 concurrent low-balance triggers, and credits the balance', async () => {
    const postedBefore = await autoRechargePostings();
    await addCard();
    await spend(200);
    await Promise.all(Array.from({ length: 20 }, () => billing().requestAutoCharge(account)));
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
    // Every trigger handled and nothing running: a second charge could only come from a new trigger.
    await untilWorkflowSettled(autoCharge());
    expect(await autoRecharges()).toHaveLength(1);
    expect([...processors().live.charges.values()].filter((c) => c.status === 'succeeded')).toHaveLength(1);
    expect(await balance()).toBe(300 + 2000);
    const [attempt] = await h.db('payment_attempts').where({ workspace_id: account.workspaceId });
    expect(attempt).toMatchObject({ status: 'succeeded', amount_cents: '2000' });
    // The worker's /metrics counts the posting once (the in-process worker counts into the same registry).
    expect((await autoRechargePostings()) - postedBefore).toBe(1);
    // On Stripe, the simulator's processors are never asked.
    if (stub) expect(h.simulator.processor.attempts + h.simulator.testProcessor.attempts).toBe(0);
  });

  it('settling a charge below the threshold triggers the top-up by itself', async () => {
    await addCard();
    const activities = billing();
    const reference = `call:${crypto.randomUUID()}`;
    await activities.reserveFunds({ tenant: account, keyId: null, reference, amountCents: 26 });
    const settled = await activities.settleReservation({
      tenant: account,
      reference,
      chargeCents: 26,
      type: 'call_charge',
      description: 'Call',
      lineId: null,
      usage: { kind: 'call', seconds: 60 },
    });
    expect(settled).toEqual({ balanceAfterCents: 474, autoChargeRequested: true });
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
    expect(await balance()).toBe(474 + 2000);
  });

  it('does nothing above the threshold, without a card, or when disabled', async () => {
    await billing().requestAutoCharge(account); // balance 500 = threshold: not below
    await spend(100);
    await billing().requestAutoCharge(account); // below, but no card on file
    await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.live, body: { auto_recharge_enabled: false } });
    await addCard();
    await billing().requestAutoCharge(account); // card, but disabled
    await eventually(async () => {
      const history = await autoCharge().fetchHistory();
      const prepared = (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
      return prepared >= 1 ? true : undefined;
    });
    await untilWorkflowSettled(autoCharge());
    expect(processors().live.attempts).toBe(0);
    expect(await autoRecharges()).toHaveLength(0);
  });

  it('stops on a hard decline and records it; a new card lets it charge again', async () => {
    await addCard();
    await spend(300);
    processors().live.setFault({ mode: 'decline', declineCode: 'insufficient_funds' });
    await billing().requestAutoCharge(account);
    await eventually(async () =>
      (await h.db('payment_attempts').where({ workspace_id: account.workspaceId, status: 'declined' }).first()) ? true : undefined,
    );
    const declined = await h.db('payment_attempts').where({ workspace_id: account.workspaceId });
    expect(declined).toMatchObject([{ status: 'declined', decline_code: 'insufficient_funds' }]);
    // Further triggers do not hammer the declined card.
    const attemptsAfterDecline = processors().live.attempts;
    await billing().requestAutoCharge(account);
    await untilWorkflowSettled(autoCharge());
    expect(processors().live.attempts).toBe(attemptsAfterDecline);
    expect(await autoRecharges()).toHaveLength(0);

    processors().live.setFault({ mode: 'normal' });
    // Saving the new card tells the waiting auto-charge (no test-side signal): it charges now, not a day later.
    expect(await addCard('5555555555554444')).toMatchObject({ auto_charge: 'signalled' });
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
    const attempts = await h.db('payment_attempts').where({ workspace_id: account.workspaceId }).orderBy('created_at');
    expect(attempts.map((a) => a.status)).toEqual(['declined', 'succeeded']);
  });

  it('retries transient processor errors with the same idempotency key', async () => {
    await addCard();
    await spend(300);
    processors().live.setFault({ mode: 'error', remaining: 2 });
    await billing().requestAutoCharge(account);
    await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined), 30_000);
    expect(processors().live.attempts).toBe(3);
    expect(processors().live.charges.size).toBe(1);
  }, 40_000);

  it('runs started before pending attempts still plan, charge once under their key, credit once, and record a decline', async () => {
    await addCard();
    await spend(200);
    const plan = await billing().prepareAutoCharge(account);
    if (!plan.charge) throw new Error(`no charge planned: ${plan.reason}`);
    expect(plan.amountCents).toBe(2000);
    const charge = { tenant: account, ...plan, idempotencyKey: `before-attempts:${crypto.randomUUID()}` };
    const charged = await billing().chargeCard(charge);
    // A retry under the run's key is the same charge.
    expect(await billing().chargeCard(charge)).toEqual(charged);
    expect(await h.db('payment_attempts').where({ idempotency_key: charge.idempotencyKey })).toMatchObject([
      { status: 'succeeded', processor_charge_id: charged.chargeId, amount_cents: '2000' },
    ]);
    const postedBefore = await autoRechargePostings();
    const credit = { tenant: account, idempotencyKey: charge.idempotencyKey, amountCents: 2000, chargeId: charged.chargeId };
    expect(await billing().creditAutoRecharge(credit)).toEqual({ balanceAfterCents: 300 + 2000 });
    expect(await billing().creditAutoRecharge(credit)).toEqual({ balanceAfterCents: 300 + 2000 });
    expect(await autoRecharges()).toMatchObject([{ amount_cents: '2000', reference_id: charged.chargeId }]);
    expect((await autoRechargePostings()) - postedBefore).toBe(1);

    processors().live.setFault({ mode: 'decline', declineCode: 'insufficient_funds' });
    const declined = { ...charge, idempotencyKey: `before-attempts:${crypto.randomUUID()}` };
    await expect(billing().chargeCard(declined)).rejects.toMatchObject({
      type: 'CardDeclined',
      nonRetryable: true,
      details: [{ declineCode: 'insufficient_funds' }],
    });
    expect(await h.db('payment_attempts').where({ idempotency_key: declined.idempotencyKey })).toMatchObject([
      { status: 'declined', decline_code: 'insufficient_funds' },
    ]);
  });

  if (provider === 'stripe')
    it('saves a card only by its Stripe PaymentMethod id, attached to a Customer; never from a card number', async () => {
      const add = (flags: Record<string, string | boolean>) =>
        runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, ...flags }, undefined, h.config);
      await expect(add({ card: '4242424242424242', exp: '12/40' })).rejects.toThrow(/never a card number/);
      stub!.live.paymentMethods.set('pm_unattached', {
        customer: null,
        card: { brand: 'visa', last4: '1881', exp_month: 3, exp_year: 2041 },
      });
      await expect(add({ 'stripe-payment-method': 'pm_unattached' })).rejects.toThrow(/not attached to a Stripe Customer/);
      // A live-mode PaymentMethod is not in the test mode's account.
      stub!.live.paymentMethods.set('pm_live_only', {
        customer: 'cus_Live1',
        card: { brand: 'amex', last4: '0005', exp_month: 4, exp_year: 2042 },
      });
      await expect(add({ 'stripe-payment-method': 'pm_live_only', env: 'test' })).rejects.toThrow(/resource_missing/);
      expect(await add({ 'stripe-payment-method': 'pm_live_only' })).toMatchObject({ brand: 'amex', last4: '0005', environment: 'live' });
      expect(await h.db('payment_methods').where({ workspace_id: tenant.workspaceId })).toMatchObject([
        { processor_token: 'cus_Live1/pm_live_only', exp_month: 4, exp_year: 2042 },
      ]);
    });

  if (provider === 'stripe')
    it('a charge Stripe leaves processing is settled by its payment_intent.succeeded webhook, and credited once', async () => {
      await addCard();
      await spend(300);
      stub!.live.processing = true;
      await billing().requestAutoCharge(account);
      const intent = await eventually(async () => [...stub!.live.intents.values()][0]);
      expect(intent).toMatchObject({ status: 'processing' });
      // Undecided: the attempt stays pending while the activity asks again.
      await untilActivityAttempt(autoCharge(), 'chargeAutoChargeAttempt', 2);
      expect(await h.db('payment_attempts').where({ workspace_id: account.workspaceId })).toMatchObject([{ status: 'pending' }]);
      expect(await autoRecharges()).toHaveLength(0);
      const event = stub!.signedEvent('payment_intent.succeeded', { ...intent, status: 'succeeded' }, STUB_WEBHOOK_SECRETS.live, {
        livemode: true,
      });
      const delivered = await deliverStripeEvent(h, event, STUB_WEBHOOK_SECRETS);
      expect(delivered).toMatchObject({ status: 200, body: { result: 'resolved' } });
      await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
      // The workflow takes the webhook's outcome on its next try and moves on; nothing is credited twice.
      await eventually(async () => {
        const history = await autoCharge().fetchHistory();
        const completed = (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
        return completed >= 2 ? true : undefined;
      }, 30_000);
      expect(await autoRecharges()).toHaveLength(1);
      expect(await balance()).toBe(200 + 2000);
      expect(stub!.live.intents.size).toBe(1);
    }, 40_000);

  if (provider === 'stripe')
    it('an intent Stripe leaves in requires_action off session is a decline (authentication_required), not asked about forever', async () => {
      await addCard();
      await spend(300);
      stub!.live.actionRequired = true;
      await billing().requestAutoCharge(account);
      const declined = () => h.db('payment_attempts').where({ workspace_id: account.workspaceId, status: 'declined' }).first();
      await eventually(async () => (await declined()) ?? undefined);
      expect(await h.db('payment_attempts').where({ workspace_id: account.workspaceId })).toMatchObject([
        { status: 'declined', decline_code: 'authentication_required' },
      ]);
      expect([...stub!.live.intents.values()]).toMatchObject([{ status: 'requires_action' }]);
      // Asked once: a decline is final, so the card is not asked again until it changes.
      expect(processors().live.attempts).toBe(1);
      expect(await autoRecharges()).toHaveLength(0);
      expect(await balance()).toBe(200);
    });

  describe('the test environment (M7)', () => {
    const testAccount = () => ({ workspaceId: tenant.workspaceId, environment: 'test' as const });
    const testRecharges = () =>
      h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, environment: 'test', type: 'auto_recharge' });
    const succeeded = (processor: CardProcessorSimulatorState) => [...processor.charges.values()].filter((c) => c.status === 'succeeded');

    it('has auto-recharge off by default; live has it on', async () => {
      expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.auto_recharge_enabled).toBe(false);
      expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.live })).body.auto_recharge_enabled).toBe(true);
    });

    it('never charges a live card: with auto-recharge turned on it charges only a test card, through the test processor', async () => {
      expect(await addCard('4242424242424242')).toMatchObject({ environment: 'live' });
      await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { auto_recharge_enabled: true } });
      await spendOnCalls(h.db, testAccount(), 400);
      // Low test balance, a live card on file: nothing to charge in test.
      await billing().requestAutoCharge(testAccount());
      const handle = h.temporal.workflow.getHandle(workflowIds.autoCharge(tenant.workspaceId, 'test'));
      await eventually(
        async () => ((await handle.fetchHistory()).events ?? []).some((e) => e.activityTaskCompletedEventAttributes) || undefined,
      );
      await untilWorkflowSettled(handle);
      expect(processors().live.attempts).toBe(0);
      expect(processors().test.attempts).toBe(0);
      expect(await testRecharges()).toHaveLength(0);

      await expect(addCard('5555555555554444', 'staging' as 'test')).rejects.toThrow('--env must be test or live');
      expect(await addCard('5555555555554444', 'test')).toMatchObject({ environment: 'test', is_default: true, auto_charge: 'signalled' });
      await eventually(async () => ((await testRecharges()).length === 1 ? true : undefined));
      expect(succeeded(processors().test)).toHaveLength(1);
      expect(processors().live.attempts).toBe(0);
      const [attempt] = await h.db('payment_attempts').where({ workspace_id: tenant.workspaceId, environment: 'test' });
      const testCard = await h.db('payment_methods').where({ workspace_id: tenant.workspaceId, environment: 'test' }).first();
      expect(attempt).toMatchObject({ status: 'succeeded', payment_method_id: testCard.id });
      expect(await balance()).toBe(500); // the live balance is untouched
    });
  });

  describe('a request refused for insufficient credits (D18)', () => {
    const spendTo = async (tenantAccount: BillingTenant, cents: number) => {
      const current = (
        await h.db('billing_accounts').where({ workspace_id: tenantAccount.workspaceId, environment: tenantAccount.environment }).first()
      ).balance_cents;
      await spendOnCalls(h.db, tenantAccount, Number(current) - cents);
    };

    it('a carded account below the reserve gets 402, then its auto-charge runs and a retry succeeds', async () => {
      const line = await lines.create({}, tenant.keys.live);
      await addCard();
      await spendTo(account, 5); // below the 13-cent reserve of a Zone A webhook call
      const place = () => calls.place(line.id, '+14155552671', tenant.keys.live);
      const refused = await place();
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('insufficient_credits');
      await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
      expect(await balance()).toBe(5 + 2000);
      const retried = await place();
      expect(retried.status).toBe(201);
      await calls.hangUp(retried.body.call.id, tenant.keys.live);
      expect([...processors().live.charges.values()]).toHaveLength(1);
    });

    it('an SMS refused with a test key charges the test card through the test processor only', async () => {
      const testAccount = { workspaceId: tenant.workspaceId, environment: 'test' as const };
      const line = await lines.create();
      const to = '+14155550188';
      await consent.record(line.id, to, 'explicit_outbound', 'api');
      await addCard('4242424242424242', 'live');
      await addCard('5555555555554444', 'test');
      await settings.update({ auto_recharge_enabled: true });
      await spendTo(testAccount, 0);
      const send = () => messages.send({ line_id: line.id, to, text: 'Your table is ready' });
      const refused = await send();
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('insufficient_credits');
      const testRecharges = () =>
        h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, environment: 'test', type: 'auto_recharge' });
      await eventually(async () => ((await testRecharges()).length === 1 ? true : undefined));
      expect((await send()).status).toBe(201);
      expect([...processors().test.charges.values()]).toHaveLength(1);
      expect(processors().live.attempts).toBe(0);
    });

    it('a reservation refused inside a call (an inbound call, the next minute) wakes it too', async () => {
      await addCard();
      await spendTo(account, 10);
      const activities = billing();
      const refused = await activities.reserveFunds({
        tenant: account,
        keyId: null,
        reference: `call:${crypto.randomUUID()}`,
        amountCents: 26,
      });
      expect(refused).toMatchObject({ ok: false, refusal: { code: 'insufficient_credits' } });
      await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined));
      expect(await balance()).toBe(10 + 2000);
    });

    it('wakes nothing without a card, and the request stays refused', async () => {
      const line = await lines.create({}, tenant.keys.live);
      await spendTo(account, 5);
      const refused = await calls.place(line.id, '+14155552671', tenant.keys.live);
      expect(refused.status).toBe(402);
      await new Promise((resolve) => setTimeout(resolve, 500)); // waits out the API's wake-up, which runs after the answer
      await expect(autoCharge().describe()).rejects.toThrow(/not found/i);
      expect(await balance()).toBe(5);
    });
  });

  describe('durability', () => {
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-autocharge-'));
    afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

    it('a worker killed while the card is being charged: exactly one charge after restart', async () => {
      await h.stopWorker();
      await addCard();
      await spend(300);
      // The processor takes its time: the worker dies while the charge request is open.
      processors().live.setFault({ mode: 'timeout', holdMs: 60_000, remaining: 1 });
      // Live Stripe beside the simulated carrier is a pairing the production profile refuses at start (L17,
      // src/platform/startupCheck.ts livePairingProblems); this suite's deployment is that pairing, so its
      // worker process runs the dev profile, which allows it. The simulator suite keeps production.
      const workerEnv = provider === 'stripe' ? { SWITCHBOARD_PROFILE: 'dev' } : {};
      let worker = h.spawnWorkerProcess(path.join(logDir, 'worker.log'), workerEnv);
      try {
        await billing().requestAutoCharge(account);
        await eventually(async () => (processors().live.attempts >= 1 ? true : undefined), 30_000);
        const killed = new Promise((resolve) => worker.once('exit', resolve));
        worker.kill('SIGKILL');
        await killed;
        worker = h.spawnWorkerProcess(path.join(logDir, 'worker.log'), workerEnv);
        await eventually(async () => ((await autoRecharges()).length === 1 ? true : undefined), 60_000);
        expect(processors().live.attempts).toBeGreaterThanOrEqual(2);
        expect([...processors().live.charges.values()].filter((c) => c.status === 'succeeded')).toHaveLength(1);
        expect(await balance()).toBe(200 + 2000);
      } finally {
        await stopProcess(worker);
        await h.startWorker();
      }
    }, 90_000);
  });

  // The monthly close does not involve the card processor: once is enough.
  if (provider === 'simulator')
    describe('monthly close', () => {
      /** A service key minted through the API, whose spending the close sums. */
      const serviceKeyId = async (key: string, name: string): Promise<string> =>
        (await h.request('POST', '/v1/keys', { key, body: { name }, headers: { 'idempotency-key': crypto.randomUUID() } })).body.key.id;
      /** A call charge by that key, stamped `at`. */
      const chargeBy = (keyId: string) => (at: string, cents: number) =>
        spendOnCalls(h.db, account, cents, { at: new Date(at), actorKeyId: keyId });
      /** One run of the close for the month before `nominalTime`. */
      const closeAt = (nominalTime: string) =>
        h.temporal.workflow.execute('closeSpendPeriodWorkflow', {
          taskQueue: h.config.taskQueue,
          workflowId: `close-${crypto.randomUUID()}`,
          args: [{ nominalTime }],
        });

      it('closes the month before the schedule’s nominal time, once', async () => {
        const keyId = await serviceKeyId(tenant.keys.serviceTest, 'a');
        const charge = chargeBy(keyId);
        await charge('2031-01-01T00:00:00.000Z', 5);
        await charge('2031-01-31T23:59:59.999Z', 7);
        await charge('2031-02-01T00:00:00.000Z', 100);
        const run = () => closeAt('2031-02-01T00:00:00.000Z');
        expect(await run()).toMatchObject({ period: '2031-01' });
        await run();
        expect(await h.db('spend_periods').where({ key_id: keyId })).toMatchObject([{ period: '2031-01', spent_cents: '12' }]);
      });

      it('a re-run picks up a posting stamped in the month but committed after the close (L7)', async () => {
        const keyId = await serviceKeyId(tenant.keys.serviceLive, 'late');
        const charge = chargeBy(keyId);
        const run = () => closeAt('2032-03-01T00:00:00.000Z');
        await charge('2032-02-10T12:00:00.000Z', 20);
        await run();
        const closedAt = (await h.db('spend_periods').where({ key_id: keyId }).first()).closed_at;
        // Stamped 23:59:59.9 on the last day, committed after the close had run.
        await charge('2032-02-29T23:59:59.900Z', 9);
        await run();
        expect(await h.db('spend_periods').where({ key_id: keyId })).toMatchObject([{ period: '2032-02', spent_cents: '29' }]);
        // Once exact, a further run changes nothing.
        const exact = await h.db('spend_periods').where({ key_id: keyId }).first();
        expect(exact.closed_at.getTime()).toBeGreaterThan(closedAt.getTime());
        await run();
        expect((await h.db('spend_periods').where({ key_id: keyId }).first()).closed_at).toEqual(exact.closed_at);
      });

      it('is scheduled at 00:00 UTC on the 1st of every month', async () => {
        await ensureSchedules(h.temporal, h.config.taskQueue);
        const schedule = await h.temporal.schedule.getHandle(MONTHLY_CLOSE_SCHEDULE_ID).describe();
        expect(schedule.spec.calendars).toMatchObject([
          { dayOfMonth: [{ start: 1, end: 1, step: 1 }], hour: [{ start: 0, end: 0, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] },
        ]);
        expect(schedule.spec.timezone).toBe('UTC');
        expect(schedule.action).toMatchObject({ workflowType: 'closeSpendPeriodWorkflow' });
      });

      it('posts number fees at 01:00 UTC on the 1st of every month', async () => {
        await ensureSchedules(h.temporal, h.config.taskQueue);
        const schedule = await h.temporal.schedule.getHandle(NUMBER_FEES_SCHEDULE_ID).describe();
        expect(schedule.spec.calendars).toMatchObject([
          { dayOfMonth: [{ start: 1, end: 1, step: 1 }], hour: [{ start: 1, end: 1, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] },
        ]);
        expect(schedule.spec.timezone).toBe('UTC');
        expect(schedule.action).toMatchObject({ workflowType: 'postNumberFeesWorkflow' });
        expect(schedule.policies).toMatchObject({ catchupWindow: 30 * 24 * 60 * 60 * 1000 });
      });
    });
});
