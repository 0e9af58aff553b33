/**
 * Auto-recharge's processor side: charging the card on file for a pending attempt
 * (paymentAttempts.ts) through the processor of the attempt's environment, and asking the
 * processor what became of a charge whose answer was lost. The auto-charge workflow
 * (workflows/billing.ts) runs these through its activities (activities/autoCharge.ts).
 */
import type { Db } from '../../platform/db/knex';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type PaymentProcessors } from '../../adapters/payments/port';
import { balanceOf, post, type BillingTenant } from './ledger';
import {
  autoRechargeCredit,
  findAttempt,
  recordSettledCharge,
  resolveAttempt,
  type AttemptOutcome,
  type AttemptResolution,
  type AttemptRow,
} from './paymentAttempts';
import { cardToken, chargeableCard } from './paymentMethods';
import { findSettings } from './settings';

export interface ChargeCardDeps {
  db: Db;
  payments: PaymentProcessors;
  now: () => Date;
}

/** What became of an attempt; `credited` when this call resolved it as charged and so posted its credit. */
export interface AttemptCharged<S> {
  status: S;
  credited: boolean;
}

/** No auto-charge attempt of this id for the account: final. */
export class AttemptNotFoundError extends Error {
  constructor(attemptId: string) {
    super(`no auto-charge attempt ${attemptId} for this account`);
    this.name = 'AttemptNotFoundError';
  }
}

async function attemptOf(db: Db, tenant: BillingTenant, attemptId: string): Promise<AttemptRow> {
  const row = await findAttempt(db, tenant, attemptId);
  if (!row) throw new AttemptNotFoundError(attemptId);
  return row;
}

/** Callers resolve only an attempt they read as pending, so a `succeeded` here posted its credit. */
async function resolve(
  deps: ChargeCardDeps,
  tenant: BillingTenant,
  attempt: AttemptRow,
  found: AttemptResolution,
): Promise<AttemptCharged<AttemptOutcome>> {
  const status = await resolveAttempt(deps.db, tenant, attempt, found, deps.now);
  return { status, credited: status === 'succeeded' };
}

/**
 * Charges a pending attempt's card through its environment's processor, under the attempt's
 * key. A decline or a refused request is an outcome (returned); a transient failure throws, and
 * the retry asks again under the same key. An attempt no longer pending is left as it is.
 */
export async function chargeAttempt(
  deps: ChargeCardDeps,
  input: { tenant: BillingTenant; attemptId: string },
): Promise<AttemptCharged<AttemptOutcome>> {
  const attempt = await attemptOf(deps.db, input.tenant, input.attemptId);
  if (attempt.status !== 'pending') return { status: attempt.status, credited: false };
  const processor = deps.payments[attempt.environment];
  const token = await cardToken(
    deps.db,
    { workspaceId: attempt.workspace_id, environment: attempt.environment },
    attempt.payment_method_id,
  );
  try {
    if (!token) throw new PaymentRequestRejectedError('the payment method of this attempt no longer exists');
    const { chargeId } = await processor.charge({
      paymentMethodToken: token,
      amountCents: Number(attempt.amount_cents),
      idempotencyKey: attempt.idempotency_key,
    });
    return await resolve(deps, input.tenant, attempt, { status: 'succeeded', chargeId });
  } catch (err) {
    if (err instanceof CardDeclinedChargeError)
      return resolve(deps, input.tenant, attempt, { status: 'declined', declineCode: err.declineCode });
    if (!(err instanceof PaymentRequestRejectedError)) throw err;
    // Refused outright; still, only the processor knows whether the key was charged before.
    const found = await processor.lookUp(attempt.idempotency_key);
    if (found.status !== 'not_found') return resolve(deps, input.tenant, attempt, found);
    return resolve(deps, input.tenant, attempt, { status: 'failed', reason: err.message });
  }
}

/**
 * Asks the processor what became of a pending attempt whose charge went unanswered past the
 * retry budget. `not_found` leaves it pending: it is charged again under the same key.
 */
export async function lookUpAttempt(
  deps: ChargeCardDeps,
  input: { tenant: BillingTenant; attemptId: string },
): Promise<AttemptCharged<AttemptOutcome | 'not_found'>> {
  const attempt = await attemptOf(deps.db, input.tenant, input.attemptId);
  if (attempt.status !== 'pending') return { status: attempt.status, credited: false };
  const found = await deps.payments[attempt.environment].lookUp(attempt.idempotency_key);
  if (found.status === 'not_found') return { status: 'not_found', credited: false };
  return resolve(deps, input.tenant, attempt, found);
}

// Charges decided before pending attempts existed, for auto-charge runs started before the patch
// `auto-charge-pending-attempts` (workflows/billing.ts, which says when to remove them).

export type AutoChargePlan =
  | { charge: false; reason: 'disabled' | 'above_threshold' | 'no_payment_method' }
  | { charge: true; amountCents: number; paymentMethodId: string; paymentMethodToken: string };

/** Whether the account needs a top-up right now, and with which card (the rule as it was before pending attempts). */
export async function planChargeBeforeAttempts(db: Db, tenant: BillingTenant): Promise<AutoChargePlan> {
  const account = await findSettings(db, tenant);
  if (!account || !account.auto_recharge_enabled) return { charge: false, reason: 'disabled' };
  const { balanceCents } = await balanceOf(db, tenant);
  if (balanceCents >= Number(account.auto_recharge_threshold_cents)) return { charge: false, reason: 'above_threshold' };
  const card = await chargeableCard(db, tenant);
  if (!card) return { charge: false, reason: 'no_payment_method' };
  return {
    charge: true,
    amountCents: Number(account.auto_recharge_amount_cents),
    paymentMethodId: card.id,
    paymentMethodToken: card.processor_token,
  };
}

/**
 * Charges the card under the run's key and records the outcome; a decline is recorded and
 * thrown on (`CardDeclinedChargeError`), as is a refused request or a transient failure.
 */
export async function chargeCardBeforeAttempts(
  deps: ChargeCardDeps,
  input: { tenant: BillingTenant; idempotencyKey: string; amountCents: number; paymentMethodId: string; paymentMethodToken: string },
): Promise<{ chargeId: string }> {
  try {
    const { chargeId } = await deps.payments[input.tenant.environment].charge({
      paymentMethodToken: input.paymentMethodToken,
      amountCents: input.amountCents,
      idempotencyKey: input.idempotencyKey,
    });
    await recordSettledCharge(deps.db, input, { status: 'succeeded', processor_charge_id: chargeId }, deps.now);
    return { chargeId };
  } catch (err) {
    if (err instanceof CardDeclinedChargeError)
      await recordSettledCharge(deps.db, input, { status: 'declined', decline_code: err.declineCode }, deps.now);
    throw err;
  }
}

/** Credits a charge made before pending attempts, once under its key; `credited` when this call posted it. */
export async function creditChargeBeforeAttempts(
  deps: Pick<ChargeCardDeps, 'db' | 'now'>,
  input: { tenant: BillingTenant; idempotencyKey: string; amountCents: number; chargeId: string },
): Promise<{ balanceAfterCents: number; credited: boolean }> {
  const { transaction, duplicate } = await post(deps.db, autoRechargeCredit(input.tenant, input, deps.now()));
  return { balanceAfterCents: Number(transaction.balance_after_cents), credited: !duplicate };
}
