import { defineSignal } from '@temporalio/workflow';
import type { BillingTenant } from '../../src/domain/billing/ledger';

/** The billing workflows' contract with the API, the CLI and the schedules. */

/** The account's spendable balance fell below its threshold (signal-with-start of auto-charge). */
export const balanceLowSignal = defineSignal('balanceLow');
/** A card was added or replaced: auto-charge stops waiting out a decline. */
export const paymentMethodChangedSignal = defineSignal('paymentMethodChanged');

export interface AutoChargeResult {
  charges: number;
  declined: boolean;
}

/** What auto-charge carries into its next run. */
export interface AutoChargeCarried {
  requested?: boolean;
}

/**
 * `autoChargeWorkflow`'s signature (workflows/billing.ts), which its signal-with-start is typed by: the use case
 * that starts it is imported by the workflow's activities, so it cannot name the workflow module (an import cycle).
 * test/unit/typedStarts.test.ts holds the workflow to it.
 */
export type AutoChargeWorkflow = (tenant: BillingTenant, carried?: AutoChargeCarried) => Promise<AutoChargeResult>;

export interface PeriodCloseInput {
  /** Names the month for a manual run; a scheduled run reads the schedule's nominal time. */
  nominalTime?: string;
}

export interface PeriodCloseResult {
  period: string;
  keys: number;
}

export interface NumberFeesInput {
  nominalTime?: string;
  /** Continue-as-new: the last line posted, and the fees posted so far. */
  afterLineId?: string | null;
  posted?: number;
}

export interface NumberFeesResult {
  period: string;
  posted: number;
}
