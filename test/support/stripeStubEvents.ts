import crypto from 'node:crypto';
import Stripe from 'stripe';
import fixtures from '../fixtures/stripe/fixtures3-subset.json';

/**
 * The Stripe objects the contract stub (test/support/stripeStub.ts) returns and sends in webhooks,
 * each built from Stripe's own example of it (`stripe/openapi` `openapi/fixtures3.json`, vendored in
 * test/fixtures/stripe with its source) with only a scenario's fields set, and the money movements
 * that happen on Stripe without Switchboard asking: a refund from the Dashboard, a refund that fails,
 * a dispute and its outcome. Each movement answers the events Stripe sends for it, signed as Stripe
 * signs them (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`, by hand here; the
 * tests hold every delivery against the SDK's `constructEvent`, test/support/stripeWebhooks.ts).
 *
 * Since API version 2022-11-15 a Charge no longer carries its `refunds` list (it must be expanded,
 * which events cannot do): a charge in an event has it only when the account's event API version
 * is older than that (https://docs.stripe.com/upgrades#2022-11-15).
 */
type StripeObject = Record<string, unknown>;

export interface SignedStripeEvent {
  type: string;
  body: string;
  signature: string;
}

const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString('hex')}`;
const unixNow = () => Math.floor(Date.now() / 1000);
/** A deep copy of Stripe's example object of that kind, `fields` set over it. */
const stripeExample = (kind: keyof typeof fixtures, fields: StripeObject): StripeObject => ({
  ...(structuredClone(fixtures[kind]) as StripeObject),
  ...fields,
});

/** A webhook event around `object`, signed with `secret` (an endpoint's `whsec_…`); `timestamp` in Unix seconds. */
export function signStripeEvent(
  type: string,
  object: StripeObject,
  secret: string,
  options: { timestamp?: number; livemode?: boolean; apiVersion?: string } = {},
): SignedStripeEvent {
  const timestamp = options.timestamp ?? unixNow();
  const body = JSON.stringify(
    stripeExample('event', {
      id: newId('evt'),
      api_version: options.apiVersion ?? Stripe.API_VERSION,
      created: timestamp,
      data: { object },
      livemode: options.livemode ?? false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    }),
  );
  const v1 = crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  const signature = `t=${timestamp},v1=${v1}`;
  // Signed by hand, so held against the SDK: with its own secret, every signature the stub makes
  // verifies (a stale one only by its timestamp, which a test makes stale on purpose).
  Stripe.webhooks.constructEvent(body, signature, secret, Math.max(300, unixNow() - timestamp + 1));
  return { type, body, signature };
}

/** What a stub account holds of its money movements, and how it signs their events. */
export interface StripeMovementBooks {
  livemode: boolean;
  /** The signing secret of this mode's webhook endpoint. */
  webhookSecret: string;
  /** The API version events are rendered in (the endpoint's; default the library's pinned one). */
  eventApiVersion: string;
  intents: Map<string, StripeObject>;
  charges: Map<string, StripeObject>;
  refunds: Map<string, StripeObject>;
  disputes: Map<string, StripeObject>;
}

/** The Charge a PaymentIntent's confirmation made, as Stripe returns it. */
export function chargeOfIntent(intent: StripeObject, chargeId: string, livemode: boolean): StripeObject {
  return stripeExample('charge', {
    id: chargeId,
    amount: intent.amount,
    amount_captured: intent.amount,
    amount_refunded: 0,
    balance_transaction: newId('txn'),
    captured: true,
    created: intent.created,
    currency: intent.currency,
    customer: intent.customer,
    description: intent.description,
    livemode,
    payment_intent: intent.id,
    payment_method: intent.payment_method,
    refunded: false,
    source: null,
    transfer_data: null,
  });
}

function balanceTransaction(amount: number, fee: number, category: 'dispute' | 'dispute_reversal', source: string, chargeId: string) {
  return stripeExample('balance_transaction', {
    id: newId('txn'),
    amount,
    fee,
    fee_details: fee ? [{ amount: fee, application: null, currency: 'usd', description: 'Dispute fee', type: 'stripe_fee' }] : [],
    net: amount - fee,
    created: unixNow(),
    description: `${category === 'dispute' ? 'Chargeback withdrawal' : 'Chargeback reversal'} for ${chargeId}`,
    reporting_category: category,
    source,
    status: 'pending',
    type: 'adjustment',
  });
}

/**
 * The movements Stripe makes on a charge by itself, each answering the events it sends (in the order
 * a scenario delivers them; Stripe does not promise one). Amounts in cents.
 */
export function stripeMovements(books: StripeMovementBooks) {
  const sign = (type: string, object: StripeObject) =>
    signStripeEvent(type, object, books.webhookSecret, { livemode: books.livemode, apiVersion: books.eventApiVersion });
  const chargeOf = (intentId: string) => {
    const intent = books.intents.get(intentId);
    const charge = intent && books.charges.get(String(intent.latest_charge));
    if (!charge) throw new Error(`the stub has no charge for ${intentId}`);
    return charge;
  };
  /** The charge as an event shows it: with its refunds only in API versions before 2022-11-15. */
  const chargeInEvent = (charge: StripeObject) => {
    const { refunds, ...rest } = charge;
    if (books.eventApiVersion >= '2022-11-15') return rest;
    const data = [...books.refunds.values()].filter((r) => r.charge === charge.id);
    return { ...rest, refunds: { ...(refunds as StripeObject), data, url: `/v1/charges/${String(charge.id)}/refunds` } };
  };
  const move = (charge: StripeObject, field: 'amount_refunded', delta: number) => {
    charge[field] = Number(charge[field]) + delta;
    charge.refunded = charge.amount_refunded === charge.amount;
  };

  return {
    /** A refund (from the Dashboard or the API): `charge.refunded` and `refund.created`. */
    refund(intentId: string, amount: number): { refund: StripeObject; events: SignedStripeEvent[] } {
      const charge = chargeOf(intentId);
      if (Number(charge.amount_refunded) + amount > Number(charge.amount)) throw new Error('refund above the charge');
      const refund = stripeExample('refund', {
        id: newId('re'),
        amount,
        balance_transaction: newId('txn'),
        charge: charge.id,
        created: unixNow(),
        currency: charge.currency,
        payment_intent: intentId,
        payment_method: charge.payment_method,
        reason: 'requested_by_customer',
        status: 'succeeded',
      });
      books.refunds.set(String(refund.id), refund);
      move(charge, 'amount_refunded', amount);
      return { refund, events: [sign('charge.refunded', chargeInEvent(charge)), sign('refund.created', refund)] };
    },

    /**
     * A refund the card network did not take (`failed`, e.g. a closed card) or one canceled while
     * pending: the amount is back in the Stripe balance (https://docs.stripe.com/refunds#failed-refunds).
     */
    endRefund(refundId: string, status: 'failed' | 'canceled'): SignedStripeEvent[] {
      const refund = books.refunds.get(refundId);
      if (!refund) throw new Error(`the stub has no refund ${refundId}`);
      Object.assign(
        refund,
        { status },
        status === 'failed' ? { failure_reason: 'expired_or_canceled_card', failure_balance_transaction: newId('txn') } : {},
      );
      move(books.charges.get(String(refund.charge))!, 'amount_refunded', -Number(refund.amount));
      return [
        ...(status === 'failed' ? [sign('refund.failed', refund)] : []),
        sign('refund.updated', refund),
        sign('charge.refund.updated', refund),
      ];
    },

    /**
     * The cardholder disputes the charge. A chargeback takes the amount (and the dispute fee) at
     * once: `charge.dispute.created` and `charge.dispute.funds_withdrawn`; an inquiry
     * (`warning_needs_response`) takes nothing: `charge.dispute.created` only.
     */
    dispute(
      intentId: string,
      options: { amount?: number; inquiry?: boolean } = {},
    ): { dispute: StripeObject; events: SignedStripeEvent[] } {
      const charge = chargeOf(intentId);
      const id = newId('dp');
      const amount = options.amount ?? Number(charge.amount);
      const dispute = stripeExample('dispute', {
        id,
        amount,
        balance_transactions: options.inquiry ? [] : [balanceTransaction(-amount, 1500, 'dispute', id, String(charge.id))],
        charge: charge.id,
        created: unixNow(),
        currency: charge.currency,
        is_charge_refundable: !!options.inquiry,
        livemode: books.livemode,
        payment_intent: intentId,
        reason: 'fraudulent',
        status: options.inquiry ? 'warning_needs_response' : 'needs_response',
      });
      books.disputes.set(id, dispute);
      charge.disputed = true;
      const created = sign('charge.dispute.created', dispute);
      return { dispute, events: options.inquiry ? [created] : [created, sign('charge.dispute.funds_withdrawn', dispute)] };
    },

    /** The issuer decides: `won` gives the amount back (`charge.dispute.funds_reinstated`); both end with `charge.dispute.closed`. */
    closeDispute(disputeId: string, outcome: 'won' | 'lost' | 'warning_closed'): SignedStripeEvent[] {
      const dispute = books.disputes.get(disputeId);
      if (!dispute) throw new Error(`the stub has no dispute ${disputeId}`);
      dispute.status = outcome;
      if (outcome !== 'won') return [sign('charge.dispute.closed', dispute)];
      const reinstated = balanceTransaction(Number(dispute.amount), 0, 'dispute_reversal', disputeId, String(dispute.charge));
      dispute.balance_transactions = [...(dispute.balance_transactions as StripeObject[]), reinstated];
      return [sign('charge.dispute.funds_reinstated', dispute), sign('charge.dispute.closed', dispute)];
    },
  };
}
