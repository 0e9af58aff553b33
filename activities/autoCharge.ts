import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from '../src/platform/db/knex';
import { wakeCampaignsPausedForFunds } from '../src/domain/campaigns/fundsReturned';
import { createLogger } from '../src/platform/logger';
import type { BillingTenant } from '../src/domain/billing/ledger';
import { openAttempt, type AttemptOutcome, type AutoChargeAttempt } from '../src/domain/billing/paymentAttempts';
import {
  AttemptNotFoundError,
  chargeAttempt,
  chargeCardBeforeAttempts,
  creditChargeBeforeAttempts,
  lookUpAttempt,
  planChargeBeforeAttempts,
  type AttemptCharged,
  type AutoChargePlan,
} from '../src/domain/billing/chargeCard';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type PaymentProcessors } from '../src/adapters/payments/port';
import { FailureTypes } from '../workflows/definitions/failures';
import { businessMetrics } from './metrics';

export interface AutoChargeActivityDeps {
  db: Db;
  payments: PaymentProcessors;
  /** A charge that succeeded wakes the campaigns paused for funds (src/domain/campaigns/fundsReturned.ts). */
  temporal: () => Client;
  now: () => Date;
}

export type { AttemptOutcome, AutoChargeAttempt, AutoChargePlan };

/** A missing attempt is final for the workflow; anything else is the processor's or the database's (retried). */
async function attemptFailure<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AttemptNotFoundError) throw ApplicationFailure.nonRetryable(err.message, 'AttemptNotFound');
    throw err;
  }
}

/** The attempt's status for the workflow; a credit this resolution posted is counted. */
function counted<S>({ status, credited }: AttemptCharged<S>): { status: S } {
  if (credited) businessMetrics.posting('auto_recharge');
  return { status };
}

/** The card charges of auto-recharge (src/domain/billing/chargeCard.ts): the processor's side. */
export function createAutoChargeActivities(deps: AutoChargeActivityDeps) {
  const { db, now } = deps;
  const log = createLogger('billing');
  /** Funds returned: the tenant's campaigns paused for them look again (harmless when this report repeats an earlier one). */
  async function afterCharge<S>(tenant: BillingTenant, result: { status: S }): Promise<{ status: S }> {
    if (result.status === 'succeeded') await wakeCampaignsPausedForFunds({ db, temporal: deps.temporal(), log }, tenant);
    return result;
  }
  return {
    /**
     * The pending attempt of the account if there is one (a previous run left it unresolved),
     * else a new one when the account needs a top-up: written before any processor call.
     */
    async openAutoChargeAttempt(tenant: BillingTenant): Promise<AutoChargeAttempt> {
      return openAttempt(db, tenant, now);
    },

    /** Charges a pending attempt's card; a decline or a refused request is an outcome, a transient failure is retried. */
    async chargeAutoChargeAttempt(input: { tenant: BillingTenant; attemptId: string }): Promise<{ status: AttemptOutcome }> {
      return afterCharge(input.tenant, counted(await attemptFailure(() => chargeAttempt(deps, input))));
    },

    /** Asks the processor what became of a pending attempt whose charge went unanswered past the retry budget. */
    async lookUpAutoChargeAttempt(input: { tenant: BillingTenant; attemptId: string }): Promise<{ status: AttemptOutcome | 'not_found' }> {
      return afterCharge(input.tenant, counted(await attemptFailure(() => lookUpAttempt(deps, input))));
    },

    // The activities below serve auto-charge runs started before the pending-attempt patch
    // (`auto-charge-pending-attempts` in workflows/billing.ts); keep them while any may run.

    /** Decides whether the account needs a top-up right now, and with which card. */
    async prepareAutoCharge(tenant: BillingTenant): Promise<AutoChargePlan> {
      return planChargeBeforeAttempts(db, tenant);
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
        return await chargeCardBeforeAttempts(deps, input);
      } catch (err) {
        if (err instanceof CardDeclinedChargeError)
          throw ApplicationFailure.nonRetryable(err.message, FailureTypes.cardDeclined, { declineCode: err.declineCode });
        if (err instanceof PaymentRequestRejectedError) throw ApplicationFailure.nonRetryable(err.message, FailureTypes.paymentRejected);
        throw err;
      }
    },

    async creditAutoRecharge(input: {
      tenant: BillingTenant;
      idempotencyKey: string;
      amountCents: number;
      chargeId: string;
    }): Promise<{ balanceAfterCents: number }> {
      const { balanceAfterCents, credited } = await creditChargeBeforeAttempts(deps, input);
      if (credited) businessMetrics.posting('auto_recharge');
      await afterCharge(input.tenant, { status: 'succeeded' });
      return { balanceAfterCents };
    },
  };
}

export type AutoChargeActivities = ReturnType<typeof createAutoChargeActivities>;
