import Stripe from 'stripe';
import { eventually, type Log } from './runner';
import type { Operator } from './stripeOperator';
import { Switchboard, type Transaction } from './switchboard';

/**
 * What the Stripe checks share: the session, and one auto-charge end to end (a Stripe test
 * Customer with a test card, a throwaway workspace that saves it, auto-recharge set under the
 * balance and woken, Stripe's PaymentIntent read back). A workspace per card: after a decline a
 * workspace's auto-charge waits a day.
 */

export interface StripeSession {
  stripe: Stripe;
  operator: Operator;
  apiUrl: string;
  runId: string;
  customers: string[];
  /** The `pm_card_visa` charge, shared by `charge-visa` and `refund`. */
  visa?: Promise<Charge>;
}

export interface Charge {
  api: Switchboard;
  workspaceId: string;
  intent: Stripe.PaymentIntent;
  note: string;
}

export const AMOUNT_CENTS = 500;

/** A Customer of the run with `card` (a Stripe test PaymentMethod) attached; falls back when Stripe refuses to attach it. */
async function customerWith(
  session: StripeSession,
  card: string,
  fallback?: string,
): Promise<{ customer: string; paymentMethod: string; note: string }> {
  const customer = await session.stripe.customers.create({
    description: `switchboard smoke ${card}`,
    metadata: { switchboard_smoke: session.runId },
  });
  session.customers.push(customer.id);
  try {
    const attached = await session.stripe.paymentMethods.attach(card, { customer: customer.id });
    return { customer: customer.id, paymentMethod: attached.id, note: `card ${card}` };
  } catch (err) {
    if (!fallback || !(err instanceof Stripe.errors.StripeCardError)) throw err;
    const attached = await session.stripe.paymentMethods.attach(fallback, { customer: customer.id });
    return {
      customer: customer.id,
      paymentMethod: attached.id,
      note: `Stripe refuses to attach ${card} (${err.code}), so ${fallback}, which attaches and then declines`,
    };
  }
}

/** Saves the card in a new workspace, sets auto-recharge under its balance, wakes it, and waits for Stripe's PaymentIntent. */
export async function autoCharge(session: StripeSession, card: string, log: Log, fallback?: string): Promise<Charge> {
  const { customer, paymentMethod, note } = await customerWith(session, card, fallback);
  const { workspaceId, apiKey } = await session.operator.workspace(card);
  const api = new Switchboard(session.apiUrl, apiKey);
  await session.operator.saveCard(workspaceId, paymentMethod);
  const balance = await api.balanceCents();
  await api.autoRecharge({ enabled: true, thresholdCents: balance + 100, amountCents: AMOUNT_CENTS });
  await session.operator.wake(workspaceId);
  log(`workspace ${workspaceId}: ${paymentMethod} saved, auto-recharge of ${AMOUNT_CENTS} ¢ woken`);
  const intent = await eventually(
    `a PaymentIntent for ${customer} (Switchboard charging the card)`,
    async () => (await session.stripe.paymentIntents.list({ customer, limit: 5 })).data.find((pi) => pi.status !== 'processing'),
    { timeoutMs: 120_000, everyMs: 4_000 },
  );
  return { api, workspaceId, intent, note };
}

/** The `pm_card_visa` auto-charge, made once per run. */
export function visa(session: StripeSession, log: Log): Promise<Charge> {
  session.visa ??= autoCharge(session, 'pm_card_visa', log);
  return session.visa;
}

/** The first transaction (newest first) that `matches`, waiting for the webhook that posts it. */
export async function ledgerEntry(
  api: Switchboard,
  what: string,
  matches: (t: Transaction) => boolean,
  timeoutMs = 90_000,
): Promise<Transaction> {
  // GET /billing/transactions allows 60 reads an hour per workspace.
  return eventually(what, async () => (await api.transactions()).find(matches), { timeoutMs, everyMs: 5_000 });
}
