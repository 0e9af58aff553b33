import { balanceOf, type BillingTenant } from '../billing/ledger';
import { countCallsSince } from '../calls/store';
import { countFailedDeliveriesSince } from '../webhooks/store';
import { failingCopiesCount } from '../recordings/store';
import type { UseCaseDeps } from '../useCaseDeps';

export interface Overview {
  balanceCents: number;
  heldCents: number;
  /** Calls created since midnight UTC. */
  callsToday: number;
  /** Failed delivery attempts in the last 24 hours. */
  failedDeliveries24h: number;
  /** Calls whose copy into the operator's recordings store is failing now (retried, or refused), issue 32. */
  failingRecordingCopies: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The portal's first page: what an operator checks first in one environment of the workspace. */
export async function workspaceOverview(deps: UseCaseDeps, tenant: BillingTenant): Promise<Overview> {
  const now = deps.now();
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [balance, callsToday, failedDeliveries24h, failingRecordingCopies] = await Promise.all([
    balanceOf(deps.db, tenant),
    countCallsSince(deps.db, tenant, midnight),
    countFailedDeliveriesSince(deps.db, tenant, new Date(now.getTime() - DAY_MS)),
    failingCopiesCount(deps.db, tenant),
  ]);
  return { ...balance, callsToday, failedDeliveries24h, failingRecordingCopies };
}
