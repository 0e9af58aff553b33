import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/platform/db/knex';
import { balanceOf, post, type BillingTenant } from '../src/domain/billing/ledger';
import {
  findAttempt,
  openAttempt,
  recordSettledCharge,
  resolveAttempt,
  type AttemptOutcome,
  type AttemptResolution,
  type AttemptRow,
  type AutoChargeAttempt,
} from '../src/domain/billing/paymentAttempts';
import { cardToken, chargeableCard } from '../src/domain/billing/paymentMethods';
import { findSettings } from '../src/domain/billing/settings';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type PaymentProcessors } from '../src/adapters/payments/port';
import { businessMetrics } from './metrics';

export interface AutoChargeActivityDeps {
  db: Db;
  payments: PaymentProcessors;
  now: () => Date;
}

export type AutoChargePlan =
  | { charge: false; reason: 'disabled' | 'above_threshold' | 'no_payment_method' }
  | { charge: true; amountCents: number; paymentMethodId: string; paymentMethodToken: string };

export type { AttemptOutcome, AutoChargeAttempt };

/** The card charges of auto-recharge (src/domain/billing/paymentAttempts.ts): the processor's side. */
export function createAutoChargeActivities({ db, payments, now }: AutoChargeActivityDeps) {
  const processorOf = (environment: 'test' | 'live') => payments[environment];

  async function attemptOf(tenant: BillingTenant, attemptId: string): Promise<AttemptRow> {
    const row = await findAttempt(db, tenant, attemptId);
    if (!row) throw ApplicationFailure.nonRetryable(`no auto-charge attempt ${attemptId} for this account`, 'AttemptNotFound');
    return row;
  }

  /** Callers resolve only an attempt they read as pending, so a `succeeded` here posted its credit (counted once). */
  const resolve = async (tenant: BillingTenant, attempt: AttemptRow, found: AttemptResolution) => {
    const status = await resolveAttempt(db, tenant, attempt, found, now);
    if (status === 'succeeded') businessMetrics.posting('auto_recharge');
    return status;
  };

  return {
    /**
     * The pending attempt of the account if there is one (a previous run left it unresolved),
     * else a new one when the account needs a top-up: written before any processor call.
     */
    async openAutoChargeAttempt(tenant: BillingTenant): Promise<AutoChargeAttempt> {
      return openAttempt(db, tenant, now);
    },

    /**
     * Charges a pending attempt's card through its environment's processor, under the
     * attempt's key. A decline or a refused request is an outcome (returned); a transient
     * failure throws, and the retry asks again under the same key.
     */
    async chargeAutoChargeAttempt(input: { tenant: BillingTenant; attemptId: string }): Promise<{ status: AttemptOutcome }> {
      const attempt = await attemptOf(input.tenant, input.attemptId);
      if (attempt.status !== 'pending') return { status: attempt.status };
      const processor = processorOf(attempt.environment);
      const token = await cardToken(db, { workspaceId: attempt.workspace_id, environment: attempt.environment }, attempt.payment_method_id);
      try {
        if (!token) throw new PaymentRequestRejectedError('the payment method of this attempt no longer exists');
        const { chargeId } = await processor.charge({
          paymentMethodToken: token,
          amountCents: Number(attempt.amount_cents),
          idempotencyKey: attempt.idempotency_key,
        });
        return { status: await resolve(input.tenant, attempt, { status: 'succeeded', chargeId }) };
      } catch (err) {
        if (err instanceof CardDeclinedChargeError)
          return { status: await resolve(input.tenant, attempt, { status: 'declined', declineCode: err.declineCode }) };
        if (!(err instanceof PaymentRequestRejectedError)) throw err;
        // Refused outright; still, only the processor knows whether the key was charged before.
        const found = await processor.lookUp(attempt.idempotency_key);
        if (found.status !== 'not_found') return { status: await resolve(input.tenant, attempt, found) };
        return { status: await resolve(input.tenant, attempt, { status: 'failed', reason: err.message }) };
      }
    },

    /**
     * Asks the processor what became of a pending attempt whose charge went unanswered past
     * the retry budget. `not_found` leaves it pending: it is charged again under the same key.
     */
    async lookUpAutoChargeAttempt(input: { tenant: BillingTenant; attemptId: string }): Promise<{ status: AttemptOutcome | 'not_found' }> {
      const attempt = await attemptOf(input.tenant, input.attemptId);
      if (attempt.status !== 'pending') return { status: attempt.status };
      const found = await processorOf(attempt.environment).lookUp(attempt.idempotency_key);
      if (found.status === 'not_found') return { status: 'not_found' };
      return { status: await resolve(input.tenant, attempt, found) };
    },

    // The activities below serve auto-charge runs started before the pending-attempt patch
    // (`auto-charge-pending-attempts` in workflows/billing.ts); keep them while any may run.

    /** Decides whether the account needs a top-up right now, and with which card. */
    async prepareAutoCharge(tenant: BillingTenant): Promise<AutoChargePlan> {
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
    },

    /**
     * Charges the card. Transient failures throw (Temporal retries with the same idempotency
     * key, so the card is charged at most once); a decline is final and recorded.
     */
    async chargeCard(input: {
      tenant: BillingTenant;
      idempotencyKey: string;
      amountCents: number;
      paymentMethodId: string;
      paymentMethodToken: string;
    }): Promise<{ chargeId: string }> {
      try {
        const { chargeId } = await processorOf(input.tenant.environment).charge({
          paymentMethodToken: input.paymentMethodToken,
          amountCents: input.amountCents,
          idempotencyKey: input.idempotencyKey,
        });
        await recordSettledCharge(db, input, { status: 'succeeded', processor_charge_id: chargeId }, now);
        return { chargeId };
      } catch (err) {
        if (err instanceof CardDeclinedChargeError) {
          await recordSettledCharge(db, input, { status: 'declined', decline_code: err.declineCode }, now);
          throw ApplicationFailure.nonRetryable(err.message, 'CardDeclined', { declineCode: err.declineCode });
        }
        if (err instanceof PaymentRequestRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'PaymentRejected');
        throw err;
      }
    },

    async creditAutoRecharge(input: {
      tenant: BillingTenant;
      idempotencyKey: string;
      amountCents: number;
      chargeId: string;
    }): Promise<{ balanceAfterCents: number }> {
      const { transaction, duplicate } = await post(db, {
        tenant: input.tenant,
        type: 'auto_recharge',
        amountCents: input.amountCents,
        description: `Automatic recharge of the card on file (${input.chargeId})`,
        idempotencyRef: input.idempotencyKey,
        referenceId: input.chargeId,
        referenceType: 'card_charge',
        at: now(),
      });
      if (!duplicate) businessMetrics.posting('auto_recharge');
      return { balanceAfterCents: Number(transaction.balance_after_cents) };
    },
  };
}

export type AutoChargeActivities = ReturnType<typeof createAutoChargeActivities>;
