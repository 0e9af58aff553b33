import type { Db } from '../src/platform/db/knex';
import { post, type BillingTenant } from '../src/domain/billing/ledger';
import { numberFeeCents, numberFeeRef, owesNumberFee } from '../src/domain/billing/numberFees';
import { nextMonthStart, periodOf } from '../src/domain/billing/periods';
import { linesHoldingNumbers } from '../src/domain/lines/store';
import { businessMetrics } from './metrics';

export interface NumberFeePage {
  /** Lines looked at (the page size when more may follow). */
  lines: number;
  /** Fees posted by this call (a re-run posts none). */
  posted: number;
  /** Where the next page starts; null when this page was empty. */
  lastLineId: string | null;
}

/** The monthly number fees (src/domain/billing/numberFees.ts), posted a page of lines at a time. */
export function createNumberFeeActivities({
  db,
  now,
  topUpIfNeeded,
}: {
  db: Db;
  now: () => Date;
  topUpIfNeeded: (tenant: BillingTenant) => Promise<boolean>;
}) {
  return {
    /**
     * Posts the fee each line owes for the UTC month starting at `periodStart`, for lines after
     * `afterLineId` in id order. Each fee is its own idempotent ledger entry (`number_fee:<line>:
     * <YYYY-MM>`), posted whatever the balance (postpaid: it may go negative); accounts left
     * below their threshold have auto-charge woken.
     */
    async postNumberFees(input: { periodStart: string; afterLineId: string | null; pageSize: number }): Promise<NumberFeePage> {
      const start = new Date(input.periodStart);
      const end = nextMonthStart(start);
      const lines = await linesHoldingNumbers(db, { start, end, afterLineId: input.afterLineId, pageSize: input.pageSize });
      let posted = 0;
      const accounts = new Map<string, BillingTenant>();
      for (const line of lines) {
        if (!owesNumberFee(line, start)) continue;
        const tenant: BillingTenant = { workspaceId: line.workspace_id, environment: line.environment };
        const { duplicate } = await post(db, {
          tenant,
          type: 'number_fee',
          amountCents: -numberFeeCents(line.number_type),
          description: `Phone number ${line.phone_number ?? line.id}, ${periodOf(start)}`,
          idempotencyRef: numberFeeRef(line.id, start),
          referenceId: line.id,
          referenceType: 'line',
          // The key that bought the number pays for it, as it pays for its calls.
          actorKeyId: line.created_by_key_id,
          lineId: line.id,
          at: now(),
        });
        if (!duplicate) {
          posted += 1;
          businessMetrics.posting('number_fee');
        }
        // Also after a duplicate: a retry must still wake what an interrupted try did not.
        accounts.set(`${tenant.workspaceId}:${tenant.environment}`, tenant);
      }
      for (const tenant of accounts.values()) await topUpIfNeeded(tenant);
      return { lines: lines.length, posted, lastLineId: lines.at(-1)?.id ?? null };
    },
  };
}
