import Stripe from 'stripe';
import type { ChargeLookup } from '../port';
import { IDEMPOTENCY_METADATA_KEY, outcomeOfIntent } from '../stripeProcessor';

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
      event = Stripe.webhooks.constructEvent(rawBody, signature, secret, STRIPE_SIGNATURE_TOLERANCE_SECONDS);
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
