/**
 * Refunds and chargebacks of an automatic recharge, as the card processor reports them by itself
 * (a Stripe webhook). An auto-recharge credited the balance with what the card paid; money that
 * goes back to the card, or that the cardholder's bank takes back, is taken off the balance again,
 * and money that comes back (a failed refund, a chargeback won) is credited again. Each movement
 * is one ledger transaction keyed by the processor's object and phase, so a repeated or late
 * report changes nothing, and a report carries every earlier phase of its object (a failed refund
 * carries the refund, a reinstatement the withdrawal), so the order reports arrive in does not
 * matter either. Amounts are the processor's: no cap, no netting, so the ledger moves exactly as
 * the money did.
 *
 * A chargeback also turns auto-recharge off for the account: charging again the card whose
 * holder just disputed a charge invites the next dispute (docs/decisions/billing.md, issue 26). Refunds
 * leave it as it is.
 */
import type { CardMovement } from '../../adapters/payments/port';
import type { Db } from '../../platform/db/knex';
import { lockAccount, postLocked, type BillingTenant, type LedgerTransaction, type TransactionType } from './ledger';
import type { AttemptRow } from './paymentAttempts';

export type CardReversalResult =
  /** At least one movement was new and is now in the ledger. */
  | 'applied'
  /** Every movement was already in the ledger (a repeated or older report). */
  | 'already_applied'
  /** The report moves nothing yet (a dispute still an inquiry, a refund list not included). */
  | 'nothing_moved'
  /**
   * No settled charge of this environment has that id: not a charge Switchboard made here, or one
   * whose attempt is still pending (its id is recorded when it settles; docs/carriers.md).
   */
  | 'unknown_charge'
  /** The attempt was declined or failed: nothing was credited, so there is nothing to take back. */
  | 'not_credited';

const LEDGER_OF: Record<CardMovement['kind'], { type: TransactionType; sign: 1 | -1; referenceType: string }> = {
  refund: { type: 'card_refund', sign: -1, referenceType: 'card_refund' },
  refund_failure: { type: 'card_refund_failure', sign: 1, referenceType: 'card_refund' },
  dispute: { type: 'card_dispute', sign: -1, referenceType: 'card_dispute' },
  dispute_reversal: { type: 'card_dispute_reversal', sign: 1, referenceType: 'card_dispute' },
};

function describe(movement: CardMovement, chargeId: string): string {
  switch (movement.kind) {
    case 'refund':
      return `Card refund ${movement.objectId} of automatic recharge ${chargeId}`;
    case 'refund_failure':
      return `Card refund ${movement.objectId} did not reach the card: credit restored`;
    case 'dispute':
      return `Chargeback ${movement.objectId} on automatic recharge ${chargeId}: funds withdrawn`;
    case 'dispute_reversal':
      return `Chargeback ${movement.objectId} won: funds reinstated`;
  }
}

export interface CardReversalInput {
  processor: 'stripe';
  environment: 'test' | 'live';
  chargeId: string;
  movements: readonly CardMovement[];
}

export async function applyCardReversal(
  db: Db,
  input: CardReversalInput,
  now: () => Date,
): Promise<{ result: CardReversalResult; tenant?: BillingTenant; posted: LedgerTransaction[]; autoRechargeStopped: boolean }> {
  const nothing = { posted: [], autoRechargeStopped: false };
  const attempt = await db<AttemptRow & { processor_charge_id: string | null }>('payment_attempts')
    .where({ processor_charge_id: input.chargeId, environment: input.environment })
    .first();
  if (!attempt) return { result: 'unknown_charge', ...nothing };
  const tenant: BillingTenant = { workspaceId: attempt.workspace_id, environment: attempt.environment };
  if (attempt.status !== 'succeeded') return { result: 'not_credited', tenant, ...nothing };
  if (input.movements.length === 0) return { result: 'nothing_moved', tenant, ...nothing };
  return db.transaction(async (trx) => {
    await lockAccount(trx, tenant);
    const at = now();
    const posted: LedgerTransaction[] = [];
    for (const [index, movement] of input.movements.entries()) {
      if (!Number.isSafeInteger(movement.amountCents) || movement.amountCents <= 0) continue;
      const ledger = LEDGER_OF[movement.kind];
      const { transaction, duplicate } = await postLocked(trx, {
        tenant,
        type: ledger.type,
        amountCents: ledger.sign * movement.amountCents,
        description: describe(movement, input.chargeId),
        idempotencyRef: `${input.processor}:${input.environment}:${movement.reference}`,
        referenceId: movement.objectId,
        referenceType: ledger.referenceType,
        // A millisecond apart, so the transactions list (newest first) shows a failure above its refund.
        at: new Date(at.getTime() + index),
      });
      if (!duplicate) posted.push(transaction);
    }
    const stopped = posted.some((t) => t.type === 'card_dispute')
      ? await trx('billing_accounts')
          .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, auto_recharge_enabled: true })
          .update({ auto_recharge_enabled: false, updated_at: at })
      : 0;
    return { result: posted.length ? 'applied' : 'already_applied', tenant, posted, autoRechargeStopped: stopped > 0 };
  });
}
