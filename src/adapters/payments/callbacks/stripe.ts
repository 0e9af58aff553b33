import type Stripe from 'stripe';
import type { CardMovement, CardMovementReport, ChargeLookup } from '../port';
import { IDEMPOTENCY_METADATA_KEY, outcomeOfIntent, stripeSdk } from '../stripeProcessor';

/** A charge outcome Stripe has decided. */
export type SettledCharge = Exclude<ChargeLookup, { status: 'not_found' }>;

/** Stripe's default, and what its libraries recommend: a signed event older than 5 minutes is refused. */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

export type StripeWebhookVerdict = { valid: true; environment: 'test' | 'live'; event: Stripe.Event } | { valid: false; reason: string };

/**
 * Verifies a webhook with `Stripe-Signature` over the raw body (the library's `constructEvent`),
 * against the signing secret of each environment's endpoint. The secret that verifies decides the
 * environment, and the event's own `livemode` must agree, so a test-mode event never touches a
 * live account nor the reverse.
 */
export function verifyStripeWebhook(
  rawBody: Buffer,
  signature: string | undefined,
  secrets: Readonly<Record<'test' | 'live', string | undefined>>,
): StripeWebhookVerdict {
  if (!signature) return { valid: false, reason: 'missing Stripe-Signature' };
  const reasons: string[] = [];
  for (const environment of ['test', 'live'] as const) {
    const secret = secrets[environment];
    if (!secret) continue;
    let event: Stripe.Event;
    try {
      event = stripeSdk().webhooks.constructEvent(rawBody, signature, secret, STRIPE_SIGNATURE_TOLERANCE_SECONDS);
    } catch (err) {
      reasons.push(`${environment}: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    if (event.livemode !== (environment === 'live'))
      return { valid: false, reason: `a ${event.livemode ? 'live' : 'test'}-mode event signed with the ${environment} secret` };
    return { valid: true, environment, event };
  }
  return { valid: false, reason: reasons.join('; ') || 'no webhook signing secret is configured' };
}

/** The charge outcome a `payment_intent.succeeded` / `payment_intent.payment_failed` event reports, if it is one of Switchboard's charges. */
export function chargeOutcomeOfEvent(event: Stripe.Event): { idempotencyKey: string; amountCents: number; outcome: SettledCharge } | null {
  if (event.type !== 'payment_intent.succeeded' && event.type !== 'payment_intent.payment_failed') return null;
  const intent = event.data.object;
  const idempotencyKey = intent.metadata?.[IDEMPOTENCY_METADATA_KEY];
  if (!idempotencyKey) return null;
  const found = outcomeOfIntent(intent);
  // A payment_failed event without a decline on the intent still reports a refused card.
  const outcome: SettledCharge | null =
    found ?? (event.type === 'payment_intent.payment_failed' ? { status: 'declined', declineCode: 'card_declined' } : null);
  return outcome ? { idempotencyKey, amountCents: intent.amount, outcome } : null;
}

/** The id of an expandable field (a string, or the object when expanded). */
const idOf = (field: string | { id: string } | null): string | null => (typeof field === 'string' ? field : (field?.id ?? null));

/**
 * A refund as money: gone back to the card while `pending`, `requires_action` or `succeeded`; back
 * in the balance once `failed` or `canceled` (https://docs.stripe.com/refunds#failed-refunds), which
 * carries the refund itself too, so the two are posted together whichever event comes first.
 */
function refundMovements(refund: Stripe.Refund): CardMovement[] {
  if (refund.currency !== 'usd') return [];
  const refunded: CardMovement = { kind: 'refund', amountCents: refund.amount, reference: `refund:${refund.id}`, objectId: refund.id };
  if (refund.status !== 'failed' && refund.status !== 'canceled') return [refunded];
  return [refunded, { ...refunded, kind: 'refund_failure', reference: `refund:${refund.id}:failure` }];
}

/**
 * A dispute as money, from its `balance_transactions` ("zero, one, or two balance transactions that
 * show funds withdrawn and reinstated"): a negative one withdrew funds, a positive one reinstated
 * them. Their gross amount (the dispute fee is apart, in `fee`, and stays the operator's) is used
 * when they are in US dollars, else the disputed `amount`. Without them the event says it: a
 * `funds_withdrawn`, a `lost` dispute; a `funds_reinstated`, a `won` one (both phases). An
 * inquiry (`warning_*`) moves nothing.
 */
function disputeMovements(type: string, dispute: Stripe.Dispute): CardMovement[] {
  if (dispute.currency !== 'usd') return [];
  const amountOf = (transactions: Stripe.BalanceTransaction[]) =>
    transactions.every((t) => t.currency === 'usd') ? transactions.reduce((sum, t) => sum + Math.abs(t.amount), 0) : dispute.amount;
  const withdrawals = (dispute.balance_transactions ?? []).filter((t) => t.amount < 0);
  const reinstatements = (dispute.balance_transactions ?? []).filter((t) => t.amount > 0);
  const reinstated = reinstatements.length
    ? amountOf(reinstatements)
    : type === 'charge.dispute.funds_reinstated' || dispute.status === 'won'
      ? dispute.amount
      : 0;
  const withdrawn = withdrawals.length
    ? amountOf(withdrawals)
    : reinstated || type === 'charge.dispute.funds_withdrawn' || dispute.status === 'lost'
      ? dispute.amount
      : 0;
  const phase = (kind: CardMovement['kind'], amountCents: number, name: string): CardMovement[] =>
    amountCents > 0 ? [{ kind, amountCents, reference: `dispute:${dispute.id}:${name}`, objectId: dispute.id }] : [];
  return [...phase('dispute', withdrawn, 'funds_withdrawn'), ...phase('dispute_reversal', reinstated, 'funds_reinstated')];
}

/** The Stripe events that move money back on a charge (docs/carriers.md lists them for the endpoint). */
export const CARD_MOVEMENT_EVENTS = [
  'charge.refunded',
  'refund.created',
  'refund.updated',
  'refund.failed',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
  'charge.dispute.closed',
] as const;

/**
 * The money a refund or dispute event moved on a PaymentIntent's charge, or null for other events.
 * Switchboard records the PaymentIntent id as the charge id, which every one of these objects names
 * (`payment_intent`). `charge.refunded` carries its refunds only on API versions before 2022-11-15
 * (later, `refund.created` carries each refund); its cumulative `amount_refunded` is not used, since
 * a refund that later fails lowers it again and a late event could not be told from a new refund.
 */
export function cardMovementsOfEvent(event: Stripe.Event): CardMovementReport | null {
  let paymentIntent: string | null;
  let movements: CardMovement[];
  switch (event.type) {
    case 'charge.refunded':
      paymentIntent = idOf(event.data.object.payment_intent);
      movements = (event.data.object.refunds?.data ?? []).flatMap(refundMovements);
      break;
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
    case 'charge.refund.updated':
      paymentIntent = idOf(event.data.object.payment_intent);
      movements = refundMovements(event.data.object);
      break;
    case 'charge.dispute.created':
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated':
    case 'charge.dispute.closed':
      paymentIntent = idOf(event.data.object.payment_intent);
      movements = disputeMovements(event.type, event.data.object);
      break;
    default:
      return null;
  }
  return paymentIntent ? { chargeId: paymentIntent, movements } : null;
}
