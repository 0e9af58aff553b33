import type { AppContext, AppDeps } from '../../context';
import { providerCallbackRoute } from '../providerCallback';
import type { RouteDef } from '../../routeTable';
import { cardMovementsOfEvent, chargeOutcomeOfEvent } from '../../../src/adapters/payments/callbacks';
import { applyCardReversal } from '../../../src/domain/billing/cardReversals';
import { reconcileChargeOutcome } from '../../../src/domain/billing/processorEvents';

/*
 * Where Stripe reports charges by itself (docs/carriers.md, "Card processor: Stripe"): the
 * endpoint registered in the Stripe Dashboard of each mode. `payment_intent.succeeded` and
 * `payment_intent.payment_failed` settle a charge whose answer was lost (or still processing)
 * without waiting for the workflow's next lookup. Refund and dispute events
 * (`CARD_MOVEMENT_EVENTS`) post what they moved on an auto-recharge to the customer's ledger,
 * once each (src/domain/billing/cardReversals.ts); one about a charge Switchboard has not settled
 * is answered `unknown_charge` and logged at warn (an operator resends it from the Dashboard once
 * the charge shows). Any other verified event is acknowledged, logged and ignored, as Stripe
 * recommends (a non-2xx answer makes Stripe retry it for days).
 */
async function receive(ctx: AppContext, deps: AppDeps): Promise<void> {
  const { environment, event } = ctx.state.stripeEvent!;
  const log = ctx.state.log;
  const charge = chargeOutcomeOfEvent(event);
  if (charge) {
    const result = await reconcileChargeOutcome({ db: deps.db, temporal: deps.temporal, log }, { environment, ...charge }, deps.now);
    if (result === 'amount_mismatch') log.warn({ eventId: event.id, environment }, 'stripe event amount differs from the attempt');
    log.info({ eventId: event.id, type: event.type, environment, result }, 'stripe event');
    ctx.body = { received: true, result };
    return;
  }
  const moved = cardMovementsOfEvent(event);
  if (!moved) {
    log.info({ eventId: event.id, type: event.type, environment }, 'stripe event ignored');
    ctx.body = { received: true, result: 'ignored' };
    return;
  }
  const applied = await applyCardReversal(deps.db, { processor: 'stripe', environment, ...moved }, deps.now);
  const facts = {
    eventId: event.id,
    type: event.type,
    environment,
    chargeId: moved.chargeId,
    workspaceId: applied.tenant?.workspaceId,
    result: applied.result,
    posted: applied.posted.map((t) => ({ type: t.type, amountCents: Number(t.amount_cents), reference: t.reference_id })),
  };
  if (applied.autoRechargeStopped) log.warn(facts, 'stripe chargeback: auto-recharge turned off for the account');
  else if (applied.result === 'unknown_charge') log.warn(facts, 'stripe refund or dispute of a charge not settled here');
  else log.info(facts, 'stripe event');
  ctx.body = { received: true, result: applied.result };
}

export function stripeWebhookRoutes(): RouteDef[] {
  return [
    providerCallbackRoute({
      path: '/payments/stripe/webhook',
      operationId: 'stripeWebhook',
      // Stripe events carry whole objects; a PaymentIntent, a Charge or a Dispute fits well within this.
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'stripe' },
      summary: 'Internal: Stripe webhook events (signed with Stripe-Signature, STRIPE_WEBHOOK_SECRET_TEST / _LIVE)',
      body: {
        type: 'object',
        required: ['id', 'object', 'type', 'livemode', 'data'],
        properties: {
          id: { type: 'string', minLength: 1, maxLength: 255 },
          object: { const: 'event' },
          type: { type: 'string', minLength: 1, maxLength: 255 },
          livemode: { type: 'boolean' },
          data: { type: 'object', required: ['object'], properties: { object: { type: 'object' } } },
        },
      },
      received: 'Received (and applied, when it settles a pending charge or moves money on one)',
      unauthorized: 'Signature missing, invalid, stale or of the other mode',
      receive,
    }),
  ];
}
