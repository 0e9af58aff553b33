import crypto from 'node:crypto';
import type Stripe from 'stripe';
import { IDEMPOTENCY_METADATA_KEY } from '../../src/adapters/payments/stripeProcessor';
import { openAttempt } from '../../src/domain/billing/paymentAttempts';
import { createCampaign } from '../../src/domain/campaigns/create';
import { runCommand } from '../../src/main/cli';
import { createLogger } from '../../src/platform/logger';
import { campaignWakeSignal } from '../../workflows/definitions/campaigns';
import { workflowIds } from '../../workflows/definitions/ids';
import { startStripeStub, type StripeStub } from '../support/stripeStub';
import { deliverStripeEvent } from '../support/stripeWebhooks';
import { spendOnCalls } from '../support/ledger';
import { useSuite } from '../support/suite';

/**
 * Stripe's webhooks at POST /payments/stripe/webhook: verified with Stripe-Signature (signed here
 * by the contract stub, by hand from Stripe's documented scheme, and each delivery checked against
 * the SDK's `constructEvent`), refused with no change when
 * forged, stale or of the other mode, and settling a pending auto-charge attempt once.
 */
describe('Stripe webhooks', () => {
  const secrets = { test: `whsec_${crypto.randomBytes(24).toString('hex')}`, live: `whsec_${crypto.randomBytes(24).toString('hex')}` };
  const ctx = useSuite({
    overrides: { stripe: { secretKeys: { test: undefined, live: undefined }, webhookSecrets: secrets, apiBase: undefined } },
  });
  let stub: StripeStub;
  beforeAll(async () => {
    stub = await startStripeStub({ webhookSecrets: secrets });
  });
  afterAll(() => stub.close());

  /** A pending live attempt of a fresh tenant, as the auto-charge workflow opens it before charging. */
  async function pendingAttempt() {
    const { h, tenant } = ctx;
    const account = { workspaceId: tenant.workspaceId, environment: 'live' as const };
    await runCommand(h.db, ['payment-method', 'add'], {
      workspace: tenant.workspaceId,
      card: '4242424242424242',
      exp: '12/40',
      default: true,
    });
    await spendOnCalls(h.db, account, 300);
    const attempt = await openAttempt(h.db, account, () => new Date());
    if (!attempt.charge) throw new Error('expected an attempt');
    const row = await h.db('payment_attempts').where({ id: attempt.attemptId }).first();
    return { account, row };
  }
  // Held to the official SDK's type of the object (`Stripe.PaymentIntent` in the `stripe` package), the fields its webhooks carry.
  const intent = (
    key: string,
    amount: number,
    declineCode?: string,
  ): Pick<Stripe.PaymentIntent, 'id' | 'object' | 'amount' | 'currency' | 'status' | 'livemode' | 'metadata' | 'last_payment_error'> => ({
    id: `pi_${crypto.randomBytes(12).toString('hex')}`,
    object: 'payment_intent',
    amount,
    currency: 'usd',
    status: declineCode ? 'requires_payment_method' : 'succeeded',
    livemode: true,
    metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
    last_payment_error: declineCode ? { type: 'card_error', code: 'card_declined', decline_code: declineCode } : null,
  });
  // Every delivery is also held against the SDK's `constructEvent` (the oracle: accepted exactly when Stripe's verifier accepts it).
  const deliver = (signed: { body: string; signature: string }) => deliverStripeEvent(ctx.h, signed, secrets);
  const recharges = (workspaceId: string) => ctx.h.db('ledger_transactions').where({ workspace_id: workspaceId, type: 'auto_recharge' });

  it('settles a pending attempt from payment_intent.succeeded, once', async () => {
    const { row } = await pendingAttempt();
    const pi = intent(row.idempotency_key, 2000);
    const first = await deliver(stub.signedEvent('payment_intent.succeeded', pi, secrets.live, { livemode: true }));
    expect(first).toMatchObject({ status: 200, body: { received: true, result: 'resolved' } });
    const again = await deliver(stub.signedEvent('payment_intent.succeeded', pi, secrets.live, { livemode: true }));
    expect(again.body).toMatchObject({ result: 'already_resolved' });
    expect(await ctx.h.db('payment_attempts').where({ id: row.id }).first()).toMatchObject({
      status: 'succeeded',
      processor_charge_id: pi.id,
    });
    expect(await recharges(row.workspace_id)).toHaveLength(1);
  });

  it('a succeeded charge it settles wakes the campaigns paused for funds at once, not at their next recheck', async () => {
    const { h, tenant } = ctx;
    const { row } = await pendingAttempt();
    const key = await h.db('api_keys').where({ workspace_id: tenant.workspaceId, environment: 'live', name: 'standard-live' }).first('id');
    const [line] = await h
      .db('lines')
      .insert({
        workspace_id: tenant.workspaceId,
        user_id: tenant.owner.id,
        environment: 'live',
        name: 'Campaign pool line',
        mode: 'webhook',
        webhook_url: 'https://example.com/events',
        phone_number: `+1628${crypto.randomInt(2_000_000, 9_999_999)}`,
        status: 'active',
        activated_at: new Date(),
      })
      .returning<Array<{ id: string }>>('id');
    // A campaign whose dispatcher paused it for funds (no worker serves this file: its workflow only takes the signal).
    const campaign = await createCampaign(
      { config: h.config, db: h.db, temporal: h.temporal, log: createLogger('test'), now: () => new Date() },
      {
        workspaceId: tenant.workspaceId,
        environment: 'live',
        userId: tenant.owner.id,
        key: { id: key.id, line_id: null, grant_numbers: null },
      },
      { lineIds: [line.id], contacts: [{ toNumber: '+12125550148' }] },
    );
    await h.db('campaigns').where({ id: campaign.id }).update({ status: 'paused', paused_reason: 'insufficient_credits' });
    const dispatcher = h.temporal.workflow.getHandle(workflowIds.campaign(campaign.id));
    const wakes = async () =>
      ((await dispatcher.fetchHistory()).events ?? []).filter(
        (event) => event.workflowExecutionSignaledEventAttributes?.signalName === campaignWakeSignal.name,
      ).length;
    try {
      expect(await wakes()).toBe(0);
      const pi = intent(row.idempotency_key, 2000);
      const paid = await deliver(stub.signedEvent('payment_intent.succeeded', pi, secrets.live, { livemode: true }));
      expect(paid.body).toMatchObject({ result: 'resolved' });
      expect(await wakes()).toBe(1);
      // Stripe's repeat of the event settles nothing more, and wakes nothing more.
      const again = await deliver(stub.signedEvent('payment_intent.succeeded', pi, secrets.live, { livemode: true }));
      expect(again.body).toMatchObject({ result: 'already_resolved' });
      expect(await wakes()).toBe(1);
    } finally {
      await dispatcher.terminate('test over');
    }
  });

  it('records a decline from payment_intent.payment_failed', async () => {
    const { row } = await pendingAttempt();
    const pi = intent(row.idempotency_key, 2000, 'insufficient_funds');
    expect((await deliver(stub.signedEvent('payment_intent.payment_failed', pi, secrets.live, { livemode: true }))).status).toBe(200);
    expect(await ctx.h.db('payment_attempts').where({ id: row.id }).first()).toMatchObject({
      status: 'declined',
      decline_code: 'insufficient_funds',
    });
    expect(await recharges(row.workspace_id)).toHaveLength(0);
  });

  it('refuses forged, stale, unsigned and other-mode events with 401 and changes nothing', async () => {
    const { row } = await pendingAttempt();
    const pi = intent(row.idempotency_key, 2000);
    const forged = stub.signedEvent('payment_intent.succeeded', pi, `whsec_${crypto.randomBytes(24).toString('hex')}`, { livemode: true });
    const stale = stub.signedEvent('payment_intent.succeeded', pi, secrets.live, {
      livemode: true,
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    const genuine = stub.signedEvent('payment_intent.succeeded', pi, secrets.live, { livemode: true });
    const tampered = { body: genuine.body.replace('"amount":2000', '"amount":2001'), signature: genuine.signature };
    // A live-mode event signed with the test endpoint's secret, and a test-mode one with the live secret.
    const crossedTest = stub.signedEvent('payment_intent.succeeded', pi, secrets.test, { livemode: true });
    const crossedLive = stub.signedEvent('payment_intent.succeeded', { ...pi, livemode: false }, secrets.live, { livemode: false });
    for (const signed of [forged, stale, tampered, crossedTest, crossedLive, { body: genuine.body, signature: '' }]) {
      const refused = await deliver(signed);
      expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({ status: 401, code: 'unauthorized' });
    }
    expect(await ctx.h.db('payment_attempts').where({ id: row.id }).first()).toMatchObject({ status: 'pending' });
    expect(await recharges(row.workspace_id)).toHaveLength(0);
  });

  it('acknowledges events that are not its charges, and ignores an amount that is not the attempt’s', async () => {
    const { row } = await pendingAttempt();
    const unknown = await deliver(
      stub.signedEvent('payment_intent.succeeded', intent('someone-else', 2000), secrets.live, { livemode: true }),
    );
    expect(unknown).toMatchObject({ status: 200, body: { result: 'unknown_charge' } });
    const other = await deliver(
      stub.signedEvent('customer.created', { id: 'cus_1', object: 'customer' }, secrets.live, { livemode: true }),
    );
    expect(other).toMatchObject({ status: 200, body: { result: 'ignored' } });
    // A test-mode event (test secret) never reaches a live attempt.
    const testMode = await deliver(
      stub.signedEvent('payment_intent.succeeded', { ...intent(row.idempotency_key, 2000), livemode: false }, secrets.test),
    );
    expect(testMode.body).toMatchObject({ result: 'unknown_charge' });
    const mismatch = await deliver(
      stub.signedEvent('payment_intent.succeeded', intent(row.idempotency_key, 5), secrets.live, { livemode: true }),
    );
    expect(mismatch.body).toMatchObject({ result: 'amount_mismatch' });
    expect(await ctx.h.db('payment_attempts').where({ id: row.id }).first()).toMatchObject({ status: 'pending' });
  });
});
