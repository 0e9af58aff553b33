import Stripe from 'stripe';
import { isStripeKeyOf } from '../../adapters/payments/stripeSettings';
import { eventually, expectThat, fail, RunRefused, type Check, type ProviderKit } from './runner';
import { Operator } from './stripeOperator';
import { reversalChecks } from './stripeReversals';
import { AMOUNT_CENTS, autoCharge, ledgerEntry, visa, type Charge, type StripeSession } from './stripeSession';

/**
 * `npm run smoke -- stripe`: the Stripe scenarios of the carrier review (defect 1, "Declines /
 * SCA", refunds and disputes in the ledger) in Stripe's test mode, on the deployment's test
 * environment. Each card gets a throwaway workspace (stripeSession.ts).
 */

const WEBHOOK_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'refund.created',
  'refund.updated',
  'refund.failed',
  'charge.refunded',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
  'charge.dispute.closed',
];

/** The attempt behind the intent, once Switchboard has decided it. */
async function decidedAttempt(session: StripeSession, charge: Charge): Promise<{ status: string; declineCode: string | null }> {
  const key = charge.intent.metadata?.switchboard_idempotency_key ?? '';
  return eventually(
    `Switchboard deciding the attempt of ${charge.intent.id} (key ${key || 'missing'})`,
    async () => {
      const attempt = await session.operator.attempt(charge.workspaceId, key);
      return attempt && attempt.status !== 'pending' ? attempt : undefined;
    },
    { timeoutMs: 90_000, everyMs: 3_000 },
  );
}

/** A declined auto-charge: Stripe's decline, Switchboard's `declined` attempt with the code, and no credit. */
async function declinedAs(session: StripeSession, charge: Charge, expectedCode?: string): Promise<string> {
  const error = charge.intent.last_payment_error;
  const stripeCode = error?.decline_code ?? error?.code ?? (charge.intent.status === 'requires_action' ? 'requires_action' : undefined);
  if (!stripeCode) fail(`Stripe's intent ${charge.intent.id} is ${charge.intent.status} with no decline`);
  const attempt = await decidedAttempt(session, charge);
  expectThat(attempt.status === 'declined', `Switchboard recorded the attempt as ${attempt.status}, not declined`);
  if (expectedCode)
    expectThat(attempt.declineCode === expectedCode, `Switchboard recorded decline ${attempt.declineCode}, not ${expectedCode}`);
  const credited = (await charge.api.transactions()).filter((t) => t.type === 'auto_recharge');
  expectThat(credited.length === 0, `the workspace was credited ${credited.map((t) => t.amount_cents).join(', ')} ¢ for a declined card`);
  return `${charge.note}: Stripe ${charge.intent.id} ${charge.intent.status} (${stripeCode}); Switchboard recorded a decline (${attempt.declineCode}) and credited nothing`;
}

const checks: Check<StripeSession>[] = [
  {
    id: 'webhook-endpoint',
    title: "Stripe test mode sends the needed events to this deployment's webhook",
    budgetMs: 30_000,
    async run(session) {
      const url = `${session.apiUrl}/payments/stripe/webhook`;
      const endpoint = (await session.stripe.webhookEndpoints.list({ limit: 100 })).data.find((e) => e.url === url);
      if (!endpoint) return fail(`no test-mode webhook endpoint at ${url} (Stripe Dashboard, test mode, Webhooks)`);
      expectThat(endpoint.status === 'enabled', `the endpoint ${endpoint.id} is ${endpoint.status}`);
      const missing = endpoint.enabled_events.includes('*') ? [] : WEBHOOK_EVENTS.filter((e) => !endpoint.enabled_events.includes(e));
      expectThat(missing.length === 0, `the endpoint ${endpoint.id} does not send ${missing.join(', ')}`);
      return `${endpoint.id} at ${url} sends ${endpoint.enabled_events.join(', ')}`;
    },
  },
  {
    id: 'charge-visa',
    title: 'An off-session auto-charge with pm_card_visa succeeds and credits the ledger',
    budgetMs: 4 * 60_000,
    async run(session, log) {
      const charge = await visa(session, log);
      const { intent } = charge;
      const why = intent.last_payment_error ? `${intent.last_payment_error.code}: ${intent.last_payment_error.message}` : 'no error';
      expectThat(intent.status === 'succeeded', `Stripe's intent ${intent.id} is ${intent.status} (${why})`);
      expectThat(intent.amount === AMOUNT_CENTS, `Stripe charged ${intent.amount} ¢, not ${AMOUNT_CENTS}`);
      const credit = await ledgerEntry(
        charge.api,
        'the auto_recharge credit',
        (t) => t.type === 'auto_recharge' && t.amount_cents === AMOUNT_CENTS,
      );
      return `Stripe ${intent.id} succeeded; ledger credit ${credit.amount_cents} ¢ (${credit.reference_id ?? 'no reference'})`;
    },
  },
  {
    id: 'charge-declined',
    title: 'An auto-charge with a declining card is recorded as a decline',
    budgetMs: 4 * 60_000,
    async run(session, log) {
      return declinedAs(session, await autoCharge(session, 'pm_card_chargeDeclined', log, 'pm_card_chargeCustomerFail'));
    },
  },
  {
    id: 'charge-auth-required',
    title: 'An auto-charge needing authentication is recorded as an authentication_required decline',
    budgetMs: 4 * 60_000,
    async run(session, log) {
      return declinedAs(session, await autoCharge(session, 'pm_card_authenticationRequired', log), 'authentication_required');
    },
  },
  ...reversalChecks,
];

export const stripeKit: ProviderKit<StripeSession> = {
  provider: 'stripe',
  settings: [
    { name: 'SMOKE_API_URL', what: "the deployment's public URL (its PUBLIC_BASE_URL), where Stripe sends its webhooks" },
    { name: 'STRIPE_TEST_SECRET_KEY', what: "the deployment's Stripe test-mode secret key (sk_test_…), as on its worker" },
  ],
  optional: [],
  checks,
  costs:
    'nothing real: Stripe test mode only; it makes four throwaway workspaces (left in the database, test environment) and four ' +
    'Stripe test customers (deleted at the end); run it with the worker’s settings (DATABASE_URL, TEMPORAL_ADDRESS, PAYMENTS_TEST_PROVIDER=stripe…)',
  async open(env) {
    const key = env.STRIPE_TEST_SECRET_KEY!.trim();
    if (!isStripeKeyOf('test', key)) throw new RunRefused(['STRIPE_TEST_SECRET_KEY must be a test-mode key (sk_test_… or rk_test_…)']);
    const apiUrl = env.SMOKE_API_URL!.trim().replace(/\/+$/, '');
    const ready = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => (r.ok ? undefined : `GET /readyz answered ${r.status}`),
      (err: Error) => err.message,
    );
    if (ready) throw new RunRefused([`the API at ${apiUrl} cannot be reached: ${ready}`]);
    const stripe = new Stripe(key, { maxNetworkRetries: 2, timeout: 20_000 });
    const refusal = await stripe.balance.retrieve().then(
      () => undefined,
      (err: Error) => `Stripe refused STRIPE_TEST_SECRET_KEY: ${err.message}`,
    );
    if (refusal) throw new RunRefused([refusal]);
    const operator = await Operator.open(env);
    if (Array.isArray(operator)) throw new RunRefused(operator);
    return { stripe, operator, apiUrl, runId: new Date().toISOString(), customers: [] };
  },
  async close(session, log) {
    const problems: string[] = [];
    for (const id of session.customers) {
      await session.stripe.customers.del(id).catch((err: Error) => problems.push(`Stripe test customer ${id} not deleted: ${err.message}`));
    }
    log(`${session.customers.length} Stripe test customers deleted`);
    await session.operator.close();
    return problems;
  },
};
