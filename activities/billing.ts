import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from '../src/db/knex';
import { extendHold, placeHold, releaseHold, settleHold, SPEND_TYPES, type HoldOutcome } from '../src/billing/holds';
import { balanceOf, post, type BillingTenant } from '../src/billing/ledger';
import { nextMonthStart } from '../src/billing/periods';
import { workflowIds } from '../workflows/ids';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type PaymentProcessor } from './payments/adapter';

export interface BillingActivityDeps {
  db: Db;
  payments: PaymentProcessor;
  /** For signal-with-start of the auto-charge workflow; absent in workers that never trigger it. */
  temporal?: () => Client;
  taskQueue?: string;
  now: () => Date;
}

export type AutoChargePlan =
  | { charge: false; reason: 'disabled' | 'above_threshold' | 'no_payment_method' }
  | { charge: true; amountCents: number; paymentMethodId: string; paymentMethodToken: string };


/** Billing side effects: the ledger, the card processor, the monthly close. */
export function createBillingActivities({ db, payments, temporal, taskQueue, now }: BillingActivityDeps) {
  /** Wakes (or starts) the workspace's auto-charge workflow. Many concurrent calls coalesce into one charge. */
  async function requestAutoCharge(tenant: BillingTenant): Promise<void> {
    if (!temporal || !taskQueue) throw new Error('this worker cannot request auto-charges (no Temporal client)');
    await temporal().workflow.signalWithStart('autoChargeWorkflow', {
      workflowId: workflowIds.autoCharge(tenant.workspaceId, tenant.environment),
      taskQueue,
      args: [tenant],
      signal: 'balanceLow',
    });
  }

  return {
    requestAutoCharge,

    /** Holds funds before a call or message (see src/billing/holds.ts); a refusal is returned, not thrown. */
    async reserveFunds(input: { tenant: BillingTenant; keyId: string | null; reference: string; amountCents: number }): Promise<HoldOutcome> {
      return placeHold(db, { ...input, at: now() });
    },

    async extendReservation(input: { tenant: BillingTenant; reference: string; totalCents: number }): Promise<HoldOutcome> {
      return extendHold(db, { ...input, at: now() });
    },

    async releaseReservation(input: { tenant: BillingTenant; reference: string }): Promise<void> {
      await releaseHold(db, { ...input, at: now() });
    },

    /**
     * Settles a hold with the exact charge (once, whatever retries happen), records the usage,
     * and wakes auto-charge when the balance has fallen below the workspace's threshold.
     */
    async settleReservation(input: {
      tenant: BillingTenant;
      reference: string;
      chargeCents: number;
      type: 'call_charge' | 'sms_charge';
      description: string;
      lineId: string | null;
      usage: { kind: 'call' | 'sms_outbound'; seconds?: number };
    }): Promise<{ balanceAfterCents: number | null; autoChargeRequested: boolean }> {
      const { transaction } = await settleHold(db, { ...input, referenceId: input.reference, referenceType: input.usage.kind, at: now() });
      const account = await db('billing_accounts').where({ workspace_id: input.tenant.workspaceId, environment: input.tenant.environment }).first();
      const balanceAfterCents = transaction ? Number(transaction.balance_after_cents) : null;
      const low = account?.auto_recharge_enabled && Number(account.balance_cents) < Number(account.auto_recharge_threshold_cents);
      // Activities are invoked unbound: call the closure, never `this`.
      if (low && temporal && taskQueue) await requestAutoCharge(input.tenant);
      return { balanceAfterCents, autoChargeRequested: Boolean(low && temporal) };
    },

    /** Decides whether the account needs a top-up right now, and with which card. */
    async prepareAutoCharge(tenant: BillingTenant): Promise<AutoChargePlan> {
      const account = await db('billing_accounts').where({ workspace_id: tenant.workspaceId, environment: tenant.environment }).first();
      if (!account || !account.auto_recharge_enabled) return { charge: false, reason: 'disabled' };
      const { balanceCents } = await balanceOf(db, tenant);
      if (balanceCents >= Number(account.auto_recharge_threshold_cents)) return { charge: false, reason: 'above_threshold' };
      // The owner's default card, else any default card in the workspace (most recent first).
      const card = await db('payment_methods as pm')
        .join('users as u', 'u.id', 'pm.user_id')
        .where({ 'pm.workspace_id': tenant.workspaceId, 'pm.is_default': true })
        .orderByRaw("case when u.role = 'owner' then 0 else 1 end")
        .orderBy('pm.created_at', 'desc')
        .first('pm.id', 'pm.processor_token');
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
            ...extra,
          })
          .onConflict('idempotency_key')
          .ignore();
      try {
        const { chargeId } = await payments.charge({ paymentMethodToken: input.paymentMethodToken, amountCents: input.amountCents, idempotencyKey: input.idempotencyKey });
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

    /**
     * Records every key's spend in the UTC month starting at `periodStart`. Idempotent: a
     * re-run (or a late schedule firing) writes nothing twice.
     */
    async closeSpendPeriod(periodStartIso: string): Promise<{ period: string; keys: number }> {
      const start = new Date(periodStartIso);
      const end = nextMonthStart(start);
      const period = periodStartIso.slice(0, 7);
      const result = await db.raw(
        `insert into spend_periods (key_id, period, workspace_id, environment, spent_cents, closed_at)
         select actor_key_id, ?, workspace_id, environment, -sum(amount_cents), ?
           from ledger_transactions
          where actor_key_id is not null and type = any(?) and created_at >= ? and created_at < ?
          group by actor_key_id, workspace_id, environment
         on conflict (key_id, period) do nothing`,
        [period, now(), [...SPEND_TYPES], start, end],
      );
      return { period, keys: result.rowCount ?? 0 };
    },
  };
}

export type BillingActivities = ReturnType<typeof createBillingActivities>;
