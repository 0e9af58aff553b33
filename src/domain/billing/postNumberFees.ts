/**
 * The monthly number fees (numberFees.ts), posted a page of lines at a time by the monthly
 * schedule's workflow (`postNumberFeesWorkflow` in workflows/billing.ts).
 */
import type { Db } from '../../platform/db/knex';
import { linesHoldingNumbers } from '../lines/store';
import { post, type BillingTenant } from './ledger';
import { numberFeePosting, owesNumberFee } from './numberFees';
import { nextMonthStart } from './periods';

export interface NumberFeePage {
  /** Lines looked at (the page size when more may follow). */
  lines: number;
  /** Fees posted by this call (a re-run posts none). */
  posted: number;
  /** Where the next page starts; null when this page was empty. */
  lastLineId: string | null;
}

export interface PostNumberFeesDeps {
  db: Db;
  now: () => Date;
  /** Wakes auto-charge for an account left below its threshold. */
  topUpIfNeeded: (tenant: BillingTenant) => Promise<boolean>;
  /** Told of each fee posted now (not of a repeat): the worker counts it. */
  onPosted: () => void;
}

/**
 * Posts the fee each line owes for the UTC month starting at `periodStart`, for lines after
 * `afterLineId` in id order. Each fee is its own idempotent ledger entry (`number_fee:<line>:
 * <YYYY-MM>`), posted whatever the balance (postpaid: it may go negative); accounts left below
 * their threshold have auto-charge woken.
 */
export async function postNumberFeesPage(
  deps: PostNumberFeesDeps,
  input: { periodStart: string; afterLineId: string | null; pageSize: number },
): Promise<NumberFeePage> {
  const start = new Date(input.periodStart);
  const end = nextMonthStart(start);
  const lines = await linesHoldingNumbers(deps.db, { start, end, afterLineId: input.afterLineId, pageSize: input.pageSize });
  let posted = 0;
  const accounts = new Map<string, BillingTenant>();
  for (const line of lines) {
    if (!owesNumberFee(line, start)) continue;
    const fee = numberFeePosting(line, start, deps.now());
    const { duplicate } = await post(deps.db, fee);
    if (!duplicate) {
      posted += 1;
      deps.onPosted();
    }
    // Also after a duplicate: a retry must still wake what an interrupted try did not.
    accounts.set(`${fee.tenant.workspaceId}:${fee.tenant.environment}`, fee.tenant);
  }
  for (const tenant of accounts.values()) await deps.topUpIfNeeded(tenant);
  return { lines: lines.length, posted, lastLineId: lines.at(-1)?.id ?? null };
}
