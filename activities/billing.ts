import type { Client } from '@temporalio/client';
import type { Db } from '../src/platform/db/knex';
import { wakeAutoCharge, wakeAutoChargeIfNeeded } from '../src/domain/billing/autoCharge';
import { closeSpendPeriod, extendHold, placeHold, releaseHold, settleHold, type HoldOutcome } from '../src/domain/billing/holds';
import { type BillingTenant } from '../src/domain/billing/ledger';
import type { PaymentProcessors } from '../src/adapters/payments/port';
import { createAutoChargeActivities } from './autoCharge';
import { createNumberFeeActivities } from './numberFees';
import { businessMetrics } from './metrics';

export interface BillingActivityDeps {
  db: Db;
  payments: PaymentProcessors;
  /** For signal-with-start of the auto-charge workflow. */
  temporal: () => Client;
  taskQueue: string;
  now: () => Date;
}

/** Billing side effects: reservations, the ledger, the card processors, the monthly close and fees. */
export function createBillingActivities(deps: BillingActivityDeps) {
  const { db, temporal, taskQueue, now } = deps;

  /** Wakes (or starts) the workspace's auto-charge workflow. Many concurrent calls coalesce into one charge. */
  async function requestAutoCharge(tenant: BillingTenant): Promise<void> {
    await wakeAutoCharge(temporal(), taskQueue, tenant);
  }

  /** Wakes auto-charge when the account needs it. */
  async function topUpIfNeeded(tenant: BillingTenant): Promise<boolean> {
    return wakeAutoChargeIfNeeded(db, temporal(), taskQueue, tenant);
  }

  /** A reservation refused for the balance wakes auto-charge (D18); the refusal itself stands. */
  async function afterHold(tenant: BillingTenant, outcome: HoldOutcome): Promise<HoldOutcome> {
    if (!outcome.ok && outcome.refusal.code === 'insufficient_credits') await topUpIfNeeded(tenant);
    return outcome;
  }

  return {
    ...createAutoChargeActivities(deps),
    ...createNumberFeeActivities({ ...deps, topUpIfNeeded }),
    requestAutoCharge,

    /** Holds funds before a call or message (see src/domain/billing/holds.ts); a refusal is returned, not thrown. */
    async reserveFunds(input: {
      tenant: BillingTenant;
      keyId: string | null;
      reference: string;
      amountCents: number;
    }): Promise<HoldOutcome> {
      return afterHold(input.tenant, await placeHold(db, { ...input, at: now() }));
    },

    async extendReservation(input: { tenant: BillingTenant; reference: string; totalCents: number }): Promise<HoldOutcome> {
      return afterHold(input.tenant, await extendHold(db, { ...input, at: now() }));
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
      const at = now();
      const { transaction } = await settleHold(db, { ...input, referenceId: input.reference, referenceType: input.usage.kind, at });
      businessMetrics.settlement(input.type, transaction, at);
      const balanceAfterCents = transaction ? Number(transaction.balance_after_cents) : null;
      // Activities are invoked unbound: call the closure, never `this`.
      return { balanceAfterCents, autoChargeRequested: await topUpIfNeeded(input.tenant) };
    },

    /** Records every key's spend in the UTC month starting at `periodStart` (src/domain/billing/holds.ts). */
    async closeSpendPeriod(periodStartIso: string): Promise<{ period: string; keys: number }> {
      const period = periodStartIso.slice(0, 7);
      return { period, keys: await closeSpendPeriod(db, { period, start: new Date(periodStartIso) }, now()) };
    },
  };
}

export type BillingActivities = ReturnType<typeof createBillingActivities>;
