import type { Db } from '../src/platform/db/knex';
import type { BillingTenant } from '../src/domain/billing/ledger';
import { postNumberFeesPage, type NumberFeePage } from '../src/domain/billing/postNumberFees';
import { businessMetrics } from './metrics';

export type { NumberFeePage };

/** The monthly number fees (src/domain/billing/postNumberFees.ts), posted a page of lines at a time. */
export function createNumberFeeActivities(deps: { db: Db; now: () => Date; topUpIfNeeded: (tenant: BillingTenant) => Promise<boolean> }) {
  return {
    async postNumberFees(input: { periodStart: string; afterLineId: string | null; pageSize: number }): Promise<NumberFeePage> {
      return postNumberFeesPage({ ...deps, onPosted: () => businessMetrics.posting('number_fee') }, input);
    },
  };
}
