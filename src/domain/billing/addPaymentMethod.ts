import { CardDeclinedChargeError, PaymentRequestRejectedError, type CardEntry, type CardVault } from '../../adapters/payments/port';
import type { Db } from '../../platform/db/knex';
import { isCardSavedElsewhere, savePaymentMethod, type PaymentMethodRow } from './paymentMethods';

export type AddPaymentMethodOutcome =
  | { ok: true; saved: PaymentMethodRow }
  | { ok: false; refused: 'wrong_entry' | 'rejected'; message: string }
  | { ok: false; refused: 'card_declined'; message: string; declineCode: string };

/**
 * Saves a card for one user in one environment through that environment's processor (its
 * `vault`): the CLI's `payment-method add` and the portal's billing page. The entry must be the
 * kind the processor takes (a card number only for the simulator, a Stripe PaymentMethod id for
 * Stripe); the card is stored as the processor's token with its brand, last 4 and expiry.
 */
export async function addPaymentMethod(
  deps: { db: Db; now: () => Date },
  vault: CardVault,
  owner: { workspaceId: string; userId: string; environment: 'test' | 'live' },
  entry: CardEntry,
  makeDefault: boolean,
  /**
   * A tenant saving its own card (the portal): a processor card of another workspace's processor
   * customer, or one another workspace has saved (e.g. a pasted Stripe PaymentMethod id), is refused.
   * The CLI is the operator's, who may save any card.
   */
  options: { selfService?: boolean } = {},
): Promise<AddPaymentMethodOutcome> {
  if (entry.kind !== vault.accepts)
    return {
      ok: false,
      refused: 'wrong_entry',
      message:
        vault.accepts === 'stripe_payment_method'
          ? `the ${owner.environment} environment charges through Stripe: give a Stripe PaymentMethod id (pm_…), never a card number`
          : `the ${owner.environment} environment charges through the simulator (PAYMENTS_PROVIDER): give a card number`,
    };
  let card;
  try {
    card = await vault.save(entry, deps.now(), options.selfService ? { workspaceId: owner.workspaceId } : undefined);
  } catch (err) {
    if (err instanceof CardDeclinedChargeError)
      return { ok: false, refused: 'card_declined', message: `the card was declined (${err.declineCode})`, declineCode: err.declineCode };
    if (err instanceof PaymentRequestRejectedError) return { ok: false, refused: 'rejected', message: err.message };
    throw err;
  }
  if (options.selfService && (await isCardSavedElsewhere(deps.db, owner, card.token)))
    return { ok: false, refused: 'rejected', message: 'this card is saved by another workspace' };
  const saved = await savePaymentMethod(deps.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    environment: owner.environment,
    token: card.token,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    makeDefault,
  });
  return { ok: true, saved };
}

/** A card's expiry as typed, `MM/YY` or `MM/YYYY`; undefined when it is neither. */
export function parseCardExpiry(text: string): { expMonth: number; expYear: number } | undefined {
  const exp = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text);
  if (!exp) return undefined;
  return { expMonth: Number(exp[1]), expYear: exp[2].length === 2 ? 2000 + Number(exp[2]) : Number(exp[2]) };
}
