import type { AppContext, AppDeps } from '../../context';
import { errorResponse, jsonRequestBody } from '../../openapi/schemas';
import type { RouteDef } from '../types';
import { chargeOutcomeOfEvent } from '../../../src/adapters/payments/callbacks/stripe';
import { reconcileChargeOutcome } from '../../../src/domain/billing/processorEvents';

/*
 * Where Stripe reports charges by itself (docs/carriers.md, "Card processor: Stripe"): the
 * endpoint registered in the Stripe Dashboard of each mode, for `payment_intent.succeeded` and
 * `payment_intent.payment_failed`. The auto-charge workflow settles a charge from Stripe's answer;
 * an event settles a charge whose answer was lost (or still processing) without waiting for the
 * workflow's next lookup. Any other verified event is acknowledged and ignored, as Stripe
 * recommends (a non-2xx answer makes Stripe retry it for days).
 */
async function receive(ctx: AppContext, deps: AppDeps): Promise<void> {
  const { environment, event } = ctx.state.stripeEvent!;
  const charge = chargeOutcomeOfEvent(event);
  if (!charge) {
    ctx.body = { received: true, result: 'ignored' };
    return;
  }
  const result = await reconcileChargeOutcome(deps.db, { environment, ...charge }, deps.now);
  if (result === 'amount_mismatch') ctx.state.log.warn({ eventId: event.id, environment }, 'stripe event amount differs from the attempt');
  ctx.state.log.info({ eventId: event.id, type: event.type, environment, result }, 'stripe event');
  ctx.body = { received: true, result };
}

export function stripeWebhookRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/payments/stripe/webhook',
      operationId: 'stripeWebhook',
      // Stripe events carry whole objects; a PaymentIntent fits well within this.
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'stripe' },
      doc: {
        summary: 'Internal: Stripe webhook events (signed with Stripe-Signature, STRIPE_WEBHOOK_SECRET_TEST / _LIVE)',
        tags: ['internal'],
        requestBody: jsonRequestBody({
          type: 'object',
          required: ['id', 'object', 'type', 'livemode', 'data'],
          properties: {
            id: { type: 'string', minLength: 1, maxLength: 255 },
            object: { const: 'event' },
            type: { type: 'string', minLength: 1, maxLength: 255 },
            livemode: { type: 'boolean' },
            data: { type: 'object', required: ['object'], properties: { object: { type: 'object' } } },
          },
        }),
        responses: {
          '200': { description: 'Received (and applied, when it settles a pending charge)' },
          '401': errorResponse('Signature missing, invalid, stale or of the other mode'),
        },
      },
      handler: receive,
    },
  ];
}
