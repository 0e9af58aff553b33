import type Stripe from 'stripe';
import { PaymentRequestRejectedError, type CardEntry, type CardVault, type SavedCard } from './port';
import { mapStripeError, stripeCardToken } from './stripeProcessor';

/**
 * Saving a card with Stripe: the card is entered on Stripe (Stripe.js or Checkout in setup mode,
 * or the Dashboard), which confirms a SetupIntent for off-session use and attaches the resulting
 * PaymentMethod to a Customer. Switchboard is handed only the `pm_…` id and reads back what it
 * shows of the card; no card number ever reaches it.
 */
/** Its `token` is `cus_…/pm_…`: what an off-session charge needs (src/adapters/payments/stripeProcessor.ts). */
export type SavedStripeCard = SavedCard;

/** The Customer metadata naming the workspace whose cards the Customer holds (security review L18). */
export const STRIPE_WORKSPACE_METADATA = 'switchboard_workspace_id';

export async function retrieveStripeCard(
  stripe: Stripe,
  paymentMethodId: string,
  claimant?: { workspaceId: string },
): Promise<SavedStripeCard> {
  if (!/^pm_[A-Za-z0-9_]+$/.test(paymentMethodId))
    // Not echoed: a card number typed in the wrong field must not reach a page or a log.
    throw new PaymentRequestRejectedError('that is not a Stripe PaymentMethod id (pm_…); enter the card on Stripe, never here');
  let method: Stripe.PaymentMethod;
  try {
    method = await stripe.paymentMethods.retrieve(paymentMethodId);
  } catch (err) {
    throw mapStripeError(err);
  }
  if (method.type !== 'card' || !method.card)
    throw new PaymentRequestRejectedError(`${paymentMethodId} is a ${method.type} payment method, not a card`);
  const customer = typeof method.customer === 'string' ? method.customer : method.customer?.id;
  if (!customer)
    throw new PaymentRequestRejectedError(
      `${paymentMethodId} is not attached to a Stripe Customer; save it with a SetupIntent (usage off_session) for a customer first`,
    );
  if (claimant) await assertCustomerOf(stripe, customer, claimant.workspaceId);
  return {
    token: stripeCardToken(customer, method.id),
    brand: method.card.brand,
    last4: method.card.last4,
    expMonth: method.card.exp_month,
    expYear: method.card.exp_year,
  };
}

/**
 * A workspace saves only a card of its own Stripe Customer: one whose metadata names it
 * (`switchboard_workspace_id`), set where the Customer is made (docs/decisions/billing.md, "(issue 27)").
 * Any `pm_…` of the operator's Stripe account could otherwise be claimed by the first workspace that
 * names it. The refusal does not say whose Customer it is.
 */
async function assertCustomerOf(stripe: Stripe, customerId: string, workspaceId: string): Promise<void> {
  let customer: Stripe.Customer | Stripe.DeletedCustomer;
  try {
    customer = await stripe.customers.retrieve(customerId);
  } catch (err) {
    throw mapStripeError(err);
  }
  if (customer.deleted || customer.metadata?.[STRIPE_WORKSPACE_METADATA] !== workspaceId)
    throw new PaymentRequestRejectedError(
      `this PaymentMethod's Stripe Customer is not this workspace's: its metadata ${STRIPE_WORKSPACE_METADATA} must be ${workspaceId}`,
    );
}

/** Stripe's card vault: takes only the id of a PaymentMethod saved on Stripe (see above). */
export class StripeCardVault implements CardVault {
  readonly accepts = 'stripe_payment_method';

  /** The client is made at first use, so a process without this environment's key starts. */
  constructor(private readonly stripe: () => Stripe) {}

  async save(entry: CardEntry, _now: Date, claimant?: { workspaceId: string }): Promise<SavedCard> {
    if (entry.kind !== 'stripe_payment_method')
      throw new PaymentRequestRejectedError('this environment charges through Stripe: give a PaymentMethod id (pm_…), never a card number');
    return retrieveStripeCard(this.stripe(), entry.paymentMethodId, claimant);
  }
}
