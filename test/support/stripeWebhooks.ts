import Stripe from 'stripe';
import { STRIPE_SIGNATURE_TOLERANCE_SECONDS } from '../../src/adapters/payments/callbacks/stripe';
import type { Harness } from './harness';
import type { SignedStripeEvent } from './stripeStubEvents';

export type StripeEndpointSecrets = Readonly<Record<'test' | 'live', string>>;

/**
 * Stripe's own verdict on a delivery, the oracle for Switchboard's: the environment whose
 * endpoint secret `Stripe.webhooks.constructEvent` (the official SDK) accepts the signature with,
 * if the event's `livemode` is that environment's; else null. The stub signs by hand, so this also
 * proves its signatures are Stripe's.
 */
export function stripeSdkVerdict(
  signed: Pick<SignedStripeEvent, 'body' | 'signature'>,
  secrets: StripeEndpointSecrets,
): 'test' | 'live' | null {
  for (const environment of ['test', 'live'] as const) {
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(signed.body, signed.signature, secrets[environment], STRIPE_SIGNATURE_TOLERANCE_SECONDS);
    } catch {
      continue;
    }
    return event.livemode === (environment === 'live') ? environment : null;
  }
  return null;
}

/**
 * Delivers a signed event to the Stripe webhook route as Stripe does, and holds the route's answer
 * against the SDK's verdict: accepted exactly when Stripe's verifier accepts it, 401 otherwise.
 */
export async function deliverStripeEvent(
  h: Pick<Harness, 'request'>,
  signed: Pick<SignedStripeEvent, 'body' | 'signature'>,
  secrets: StripeEndpointSecrets,
) {
  const response = await h.request('POST', '/payments/stripe/webhook', {
    rawBody: signed.body,
    headers: { 'stripe-signature': signed.signature, 'content-type': 'application/json; charset=utf-8' },
  });
  const sdk = stripeSdkVerdict(signed, secrets);
  expect({ sdkAccepts: sdk !== null, routeAccepts: response.status !== 401 }).toEqual({
    sdkAccepts: sdk !== null,
    routeAccepts: sdk !== null,
  });
  return response;
}

/** Delivers each event in order (each checked against the SDK), returning the answers. */
export async function deliverStripeEvents(
  h: Pick<Harness, 'request'>,
  events: readonly SignedStripeEvent[],
  secrets: StripeEndpointSecrets,
) {
  const answers = [];
  for (const event of events) answers.push(await deliverStripeEvent(h, event, secrets));
  return answers;
}
