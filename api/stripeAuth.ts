import type { AppContext, AppDeps } from './context';
import { ApiError } from './errors';
import { verifyStripeWebhook } from '../src/adapters/payments/callbacks';

/**
 * Authenticates a Stripe webhook (routes with `auth: { kind: 'stripe' }`), before its body is
 * validated: `Stripe-Signature` over the raw body with the signing secret of the test or the live
 * endpoint (STRIPE_WEBHOOK_SECRET_TEST / _LIVE), at most 5 minutes old. Every refusal is the same
 * 401, whatever the reason (logged), and changes nothing. A replayed event inside the window is
 * harmless: what an event changes is idempotent (src/domain/billing/processorEvents.ts).
 */
export function authenticateStripe(ctx: AppContext, deps: AppDeps): void {
  const verdict = verifyStripeWebhook(
    ctx.state.rawBody ?? Buffer.alloc(0),
    ctx.get('stripe-signature') || undefined,
    deps.config.stripe.webhookSecrets,
  );
  if (!verdict.valid) {
    ctx.state.log.warn({ reason: verdict.reason }, 'stripe webhook refused');
    throw new ApiError(401, 'unauthorized', 'Invalid Stripe signature');
  }
  ctx.state.stripeEvent = { environment: verdict.environment, event: verdict.event };
}
