import { createBillingActivities } from '../../activities/billing';
import { runCommand } from '../../src/main/cli';
import { paymentProcessorsFor } from '../../src/main/payments';
import { createTenant, eventually, type Tenant } from '../support/harness';
import { spendOnCalls } from '../support/ledger';
import { STUB_WEBHOOK_SECRETS, startStripeStub, stripeStubOverrides, type StripeStub } from '../support/stripeStub';
import type { SignedStripeEvent } from '../support/stripeStubEvents';
import { deliverStripeEvent, deliverStripeEvents } from '../support/stripeWebhooks';
import { useSuite } from '../support/suite';

/**
 * Refunds and chargebacks of an automatic recharge, made on Stripe's side (the Dashboard, the
 * cardholder's bank) and reported by Stripe's webhooks: the stub makes them as Stripe does and
 * sends Stripe's event payloads (test/support/stripeStubEvents.ts), each delivery held against the
 * SDK's `constructEvent`. What the customer sees is read through the public API: the balance, the
 * billing transactions, the settings.
 */
describe('Stripe refunds and disputes in the ledger', () => {
  let stub: StripeStub;
  beforeAll(async () => {
    stub = await startStripeStub();
  });
  afterAll(() => stub?.close());
  const ctx = useSuite({ worker: true, overrides: stripeStubOverrides(() => stub) });
  beforeEach(() => {
    stub.live.state.reset();
    stub.test.state.reset();
  });

  const get = async (tenant: Tenant, path: string) => (await ctx.h.request('GET', path, { key: tenant.keys.live })).body;
  const balance = async (tenant: Tenant = ctx.tenant) => (await get(tenant, '/api/v1/billing/balance')).cents;
  const transactions = async (tenant: Tenant = ctx.tenant) =>
    ((await get(tenant, '/api/v1/billing/transactions?limit=100')).transactions as Array<Record<string, unknown>>).filter((t) =>
      String(t.type).startsWith('card_'),
    );
  const deliver = (events: readonly SignedStripeEvent[]) => deliverStripeEvents(ctx.h, events, STUB_WEBHOOK_SECRETS);

  /** A live card on Stripe, the balance spent down to 200 (below the threshold), and auto-charge asked for. */
  async function askForRecharge(tenant: Tenant): Promise<void> {
    const { h } = ctx;
    const account = { workspaceId: tenant.workspaceId, environment: 'live' as const };
    await runCommand(
      h.db,
      ['payment-method', 'add'],
      { workspace: tenant.workspaceId, 'stripe-payment-method': 'pm_card_visa', default: true },
      undefined,
      h.config,
    );
    await spendOnCalls(h.db, account, 300);
    const billing = createBillingActivities({
      db: h.db,
      payments: paymentProcessorsFor(h.config),
      temporal: () => h.temporal,
      taskQueue: h.config.taskQueue,
      now: () => new Date(),
    });
    await billing.requestAutoCharge(account);
  }

  /** A live auto-recharge of $20 on Stripe for the tenant (balance 500 − 300 spent + 2000): its PaymentIntent id. */
  async function recharged(tenant: Tenant = ctx.tenant): Promise<string> {
    await askForRecharge(tenant);
    await eventually(async () => ((await balance(tenant)) === 2200 ? true : undefined));
    const attempt = await ctx.h.db('payment_attempts').where({ workspace_id: tenant.workspaceId, status: 'succeeded' }).first();
    return attempt.processor_charge_id;
  }

  it('a refund from the Dashboard takes its amount off the balance once; a second, partial one only its own amount', async () => {
    const intent = await recharged();
    const first = stub.live.refund(intent, 500);
    const answers = await deliver(first.events);
    expect(answers.map((a) => a.body)).toEqual([
      // On the pinned API version a charge.refunded carries no refund list: refund.created carries the refund.
      { received: true, result: 'nothing_moved' },
      { received: true, result: 'applied' },
    ]);
    expect(await balance()).toBe(1700);
    // Stripe delivers again (a retry, a duplicate): nothing changes.
    expect((await deliver(first.events)).map((a) => a.body.result)).toEqual(['nothing_moved', 'already_applied']);
    const second = stub.live.refund(intent, 700);
    await deliver([...second.events].reverse());
    expect(await balance()).toBe(1000);
    expect(await transactions()).toEqual([
      expect.objectContaining({ type: 'card_refund', amount_cents: -700, balance_after_cents: 1000, reference_id: second.refund.id }),
      expect.objectContaining({
        type: 'card_refund',
        amount_cents: -500,
        balance_after_cents: 1700,
        reference_id: first.refund.id,
        reference_type: 'card_refund',
        description: `Card refund ${String(first.refund.id)} of automatic recharge ${intent}`,
      }),
    ]);
    // Auto-recharge stays as it was after a refund.
    expect((await get(ctx.tenant, '/api/v1/settings')).auto_recharge_enabled).toBe(true);
  });

  it('a refund that fails gives the credit back, whichever of its events comes first', async () => {
    const intent = await recharged();
    const { events: refunded, refund } = stub.live.refund(intent, 2000);
    const failed = stub.live.endRefund(String(refund.id), 'failed');
    // The failure first, the refund's own events late: the refund and its failure post together, once.
    await deliver([...failed, ...refunded, ...failed]);
    expect(await balance()).toBe(2200);
    expect((await transactions()).map((t) => [t.type, t.amount_cents])).toEqual([
      ['card_refund_failure', 2000],
      ['card_refund', -2000],
    ]);
  });

  it('a chargeback takes the recharge back and turns auto-recharge off; a chargeback won gives it back', async () => {
    const intent = await recharged();
    const { dispute, events } = stub.live.dispute(intent);
    expect((await deliver(events)).map((a) => a.body.result)).toEqual(['applied', 'already_applied']);
    expect(await balance()).toBe(200);
    expect((await get(ctx.tenant, '/api/v1/settings')).auto_recharge_enabled).toBe(false);
    await deliver(stub.live.closeDispute(String(dispute.id), 'won'));
    expect(await balance()).toBe(2200);
    expect((await transactions()).map((t) => [t.type, t.amount_cents, t.reference_id])).toEqual([
      ['card_dispute_reversal', 2000, dispute.id],
      ['card_dispute', -2000, dispute.id],
    ]);
    // The owner decides when to charge the card again.
    expect((await get(ctx.tenant, '/api/v1/settings')).auto_recharge_enabled).toBe(false);
  });

  it('an inquiry moves nothing; a chargeback lost keeps the withdrawal, once', async () => {
    const intent = await recharged();
    const inquiry = stub.live.dispute(intent, { inquiry: true });
    expect((await deliver(inquiry.events)).map((a) => a.body.result)).toEqual(['nothing_moved']);
    await deliver(stub.live.closeDispute(String(inquiry.dispute.id), 'warning_closed'));
    expect(await balance()).toBe(2200);
    const chargeback = stub.live.dispute(intent, { amount: 1500 });
    // Only the closing event arrives (the others lost or late): it carries the withdrawal.
    await deliver(stub.live.closeDispute(String(chargeback.dispute.id), 'lost'));
    await deliver(chargeback.events);
    expect(await balance()).toBe(700);
    expect((await transactions()).map((t) => [t.type, t.amount_cents])).toEqual([['card_dispute', -1500]]);
  });

  it('an endpoint on an API version before 2022-11-15 gets refunds inside charge.refunded: applied from there, once', async () => {
    const intent = await recharged();
    stub.live.eventApiVersion = '2022-08-01';
    const { events } = stub.live.refund(intent, 250);
    expect((await deliver(events)).map((a) => a.body.result)).toEqual(['applied', 'already_applied']);
    expect(await balance()).toBe(1950);
  });

  it('touches no other tenant, and no event of the other mode, forged or of a charge not made here', async () => {
    const other = await createTenant(ctx.h.db);
    const otherIntent = await recharged(other);
    const intent = await recharged();
    const { refund, events } = stub.live.refund(intent, 400);
    // The same refund as a test-mode event (test endpoint's secret): it cannot reach a live charge.
    const testMode = stub.signedEvent('refund.created', refund, STUB_WEBHOOK_SECRETS.test, { livemode: false });
    expect((await deliverStripeEvent(ctx.h, testMode, STUB_WEBHOOK_SECRETS)).body).toEqual({ received: true, result: 'unknown_charge' });
    // Signed with another secret, or live-mode content under the test secret: refused, nothing moves.
    const forged = stub.signedEvent('refund.created', refund, 'whsec_forged', { livemode: true });
    const crossed = stub.signedEvent('refund.created', refund, STUB_WEBHOOK_SECRETS.test, { livemode: true });
    for (const signed of [forged, crossed]) expect((await deliverStripeEvent(ctx.h, signed, STUB_WEBHOOK_SECRETS)).status).toBe(401);
    const elsewhere = stub.signedEvent('refund.created', { ...refund, payment_intent: 'pi_NotSwitchboards' }, STUB_WEBHOOK_SECRETS.live, {
      livemode: true,
    });
    expect((await deliverStripeEvent(ctx.h, elsewhere, STUB_WEBHOOK_SECRETS)).body.result).toBe('unknown_charge');
    expect(await balance()).toBe(2200);
    await deliver(events);
    expect(await balance()).toBe(1800);
    expect(await balance(other)).toBe(2200);
    expect(await transactions(other)).toEqual([]);
    expect(otherIntent).not.toBe(intent);
  });

  it('a refund of a charge whose attempt is still pending changes nothing, and applies when resent after the charge settles', async () => {
    stub.live.processing = true;
    await askForRecharge(ctx.tenant);
    const pending = await eventually(async () => [...stub.live.intents.values()][0]);
    const { events } = stub.live.refund(String(pending.id), 2000);
    // The charge's id is recorded when its attempt settles: until then the refund is not known as Switchboard's.
    expect((await deliverStripeEvent(ctx.h, events[1], STUB_WEBHOOK_SECRETS)).body).toEqual({ received: true, result: 'unknown_charge' });
    expect(await balance()).toBe(200);
    const succeeded = stub.signedEvent('payment_intent.succeeded', { ...pending, status: 'succeeded' }, STUB_WEBHOOK_SECRETS.live, {
      livemode: true,
    });
    await deliverStripeEvent(ctx.h, succeeded, STUB_WEBHOOK_SECRETS);
    expect(await balance()).toBe(2200);
    // The operator resends the event from the Dashboard (docs/carriers.md).
    expect((await deliverStripeEvent(ctx.h, events[1], STUB_WEBHOOK_SECRETS)).body.result).toBe('applied');
    expect(await balance()).toBe(200);
  });
});
