import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/platform/db/knex';
import { autoChargeNeed } from '../src/domain/billing/autoCharge';
import { balanceOf, lockAccount, post, postLocked, type BillingTenant } from '../src/domain/billing/ledger';
import { chargeableCard } from '../src/domain/billing/paymentMethods';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type ChargeLookup, type PaymentProcessors } from '../src/adapters/payments/port';

export interface AutoChargeActivityDeps {
  db: Db;
  payments: PaymentProcessors;
  now: () => Date;
}

export type AutoChargePlan =
  | { charge: false; reason: 'disabled' | 'above_threshold' | 'no_payment_method' }
  | { charge: true; amountCents: number; paymentMethodId: string; paymentMethodToken: string };

/** An auto-charge decision, recorded before the processor sees it. */
export type AutoChargeAttempt =
  | { charge: false; reason: 'disabled' | 'above_threshold' | 'no_payment_method' }
  | { charge: true; attemptId: string; amountCents: number; resumed: boolean };

export type AttemptOutcome = 'succeeded' | 'declined' | 'failed';

interface AttemptRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  idempotency_key: string;
  amount_cents: string;
  payment_method_id: string;
  status: 'pending' | AttemptOutcome;
}

/**
 * The card charges of auto-recharge. Each charge is first written as a `pending` attempt whose
 * idempotency key comes from the attempt row, not from any workflow run; the processor is only
 * ever asked for that key, and a pending attempt is resolved (charged, looked up) before any
 * other charge of the account is decided. So a card is charged at most once per attempt and
 * every successful charge is credited once, whatever runs fail, time out or start over.
 */
export function createAutoChargeActivities({ db, payments, now }: AutoChargeActivityDeps) {
  const processorOf = (environment: 'test' | 'live') => payments[environment];

  async function attemptOf(tenant: BillingTenant, attemptId: string): Promise<AttemptRow> {
    const row = await db<AttemptRow>('payment_attempts').where({ id: attemptId, workspace_id: tenant.workspaceId, environment: tenant.environment }).first();
    if (!row) throw ApplicationFailure.nonRetryable(`no auto-charge attempt ${attemptId} for this account`, 'AttemptNotFound');
    return row;
  }

  /**
   * Records what the processor said, once: the attempt leaves `pending` and, if the card was
   * charged, the credit is posted under the attempt's key, in the same transaction.
   */
  async function resolveAttempt(tenant: BillingTenant, attempt: AttemptRow, found: Exclude<ChargeLookup, { status: 'not_found' }> | { status: 'failed'; reason: string }): Promise<AttemptOutcome> {
    return db.transaction(async (trx) => {
      await lockAccount(trx, tenant);
      const at = now();
      const fields =
        found.status === 'succeeded'
          ? { status: 'succeeded', processor_charge_id: found.chargeId }
          : found.status === 'declined'
            ? { status: 'declined', decline_code: found.declineCode }
            : { status: 'failed', failure_reason: found.reason.slice(0, 500) };
      await trx('payment_attempts').where({ id: attempt.id, status: 'pending' }).update({ ...fields, resolved_at: at });
      const current = await trx<AttemptRow & { processor_charge_id: string | null }>('payment_attempts').where({ id: attempt.id }).first();
      if (current!.status === 'succeeded') {
        await postLocked(trx, {
          tenant,
          type: 'auto_recharge',
          amountCents: Number(current!.amount_cents),
          description: `Automatic recharge of the card on file (${current!.processor_charge_id})`,
          idempotencyRef: attempt.idempotency_key,
          referenceId: current!.processor_charge_id,
          referenceType: 'card_charge',
          at,
        });
      }
      return current!.status as AttemptOutcome;
    });
  }

  return {
    /**
     * The pending attempt of the account if there is one (a previous run left it unresolved),
     * else a new one when the account needs a top-up: written before any processor call.
     */
    async openAutoChargeAttempt(tenant: BillingTenant): Promise<AutoChargeAttempt> {
      return db.transaction(async (trx) => {
        await lockAccount(trx, tenant);
        const pending = await trx('payment_attempts').where({ workspace_id: tenant.workspaceId, environment: tenant.environment, status: 'pending' }).first('id', 'amount_cents');
        if (pending) return { charge: true, attemptId: pending.id, amountCents: Number(pending.amount_cents), resumed: true };
        const need = await autoChargeNeed(trx, tenant);
        if (!need.wanted) return { charge: false, reason: need.reason };
        const id = crypto.randomUUID();
        await trx('payment_attempts').insert({
          id,
          workspace_id: tenant.workspaceId,
          environment: tenant.environment,
          idempotency_key: `auto-charge:${tenant.workspaceId}:${tenant.environment}:${id}`,
          amount_cents: need.amountCents,
          payment_method_id: need.paymentMethodId,
          status: 'pending',
          created_at: now(),
        });
        return { charge: true, attemptId: id, amountCents: need.amountCents, resumed: false };
      });
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
      const card = await db('payment_methods').where({ id: attempt.payment_method_id, workspace_id: attempt.workspace_id, environment: attempt.environment }).first('processor_token');
      try {
        if (!card) throw new PaymentRequestRejectedError('the payment method of this attempt no longer exists');
        const { chargeId } = await processor.charge({ paymentMethodToken: card.processor_token, amountCents: Number(attempt.amount_cents), idempotencyKey: attempt.idempotency_key });
        return { status: await resolveAttempt(input.tenant, attempt, { status: 'succeeded', chargeId }) };
      } catch (err) {
        if (err instanceof CardDeclinedChargeError) return { status: await resolveAttempt(input.tenant, attempt, { status: 'declined', declineCode: err.declineCode }) };
        if (!(err instanceof PaymentRequestRejectedError)) throw err;
        // Refused outright; still, only the processor knows whether the key was charged before.
        const found = await processor.lookUp(attempt.idempotency_key);
        if (found.status !== 'not_found') return { status: await resolveAttempt(input.tenant, attempt, found) };
        return { status: await resolveAttempt(input.tenant, attempt, { status: 'failed', reason: err.message }) };
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
      return { status: await resolveAttempt(input.tenant, attempt, found) };
    },

    // The activities below serve auto-charge runs started before the pending-attempt patch
    // (`auto-charge-pending-attempts` in workflows/billing.ts); keep them while any may run.

    /** Decides whether the account needs a top-up right now, and with which card. */
    async prepareAutoCharge(tenant: BillingTenant): Promise<AutoChargePlan> {
      const account = await db('billing_accounts').where({ workspace_id: tenant.workspaceId, environment: tenant.environment }).first();
      if (!account || !account.auto_recharge_enabled) return { charge: false, reason: 'disabled' };
      const { balanceCents } = await balanceOf(db, tenant);
      if (balanceCents >= Number(account.auto_recharge_threshold_cents)) return { charge: false, reason: 'above_threshold' };
      const card = await chargeableCard(db, tenant);
      if (!card) return { charge: false, reason: 'no_payment_method' };
      return { charge: true, amountCents: Number(account.auto_recharge_amount_cents), paymentMethodId: card.id, paymentMethodToken: card.processor_token };
    },

    /**
     * Charges the card. Transient failures throw (Temporal retries with the same idempotency
     * key, so the card is charged at most once); a decline is final and recorded.
     */
    async chargeCard(input: { tenant: BillingTenant; idempotencyKey: string; amountCents: number; paymentMethodId: string; paymentMethodToken: string }): Promise<{ chargeId: string }> {
      const record = (status: 'succeeded' | 'declined', extra: Record<string, unknown>) =>
        db('payment_attempts')
          .insert({
            workspace_id: input.tenant.workspaceId,
            environment: input.tenant.environment,
            idempotency_key: input.idempotencyKey,
            amount_cents: input.amountCents,
            payment_method_id: input.paymentMethodId,
            status,
            created_at: now(),
            resolved_at: now(),
            ...extra,
          })
          .onConflict('idempotency_key')
          .ignore();
      try {
        const { chargeId } = await processorOf(input.tenant.environment).charge({ paymentMethodToken: input.paymentMethodToken, amountCents: input.amountCents, idempotencyKey: input.idempotencyKey });
        await record('succeeded', { processor_charge_id: chargeId });
        return { chargeId };
      } catch (err) {
        if (err instanceof CardDeclinedChargeError) {
          await record('declined', { decline_code: err.declineCode });
          throw ApplicationFailure.nonRetryable(err.message, 'CardDeclined', { declineCode: err.declineCode });
        }
        if (err instanceof PaymentRequestRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'PaymentRejected');
        throw err;
      }
    },

    async creditAutoRecharge(input: { tenant: BillingTenant; idempotencyKey: string; amountCents: number; chargeId: string }): Promise<{ balanceAfterCents: number }> {
      const { transaction } = await post(db, {
        tenant: input.tenant,
        type: 'auto_recharge',
        amountCents: input.amountCents,
        description: `Automatic recharge of the card on file (${input.chargeId})`,
        idempotencyRef: input.idempotencyKey,
        referenceId: input.chargeId,
        referenceType: 'card_charge',
        at: now(),
      });
      return { balanceAfterCents: Number(transaction.balance_after_cents) };
    },
  };
}

export type AutoChargeActivities = ReturnType<typeof createAutoChargeActivities>;
