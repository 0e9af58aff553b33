import { usageByPeriod } from '../billing/usage';
import type { BillingTenant } from '../billing/ledger';
import { deliveryOutcomesByDay } from '../webhooks/store';
import type { UseCaseDeps } from '../useCaseDeps';

/** One UTC day of an environment's activity, for the overview's charts (issue 30). */
export interface ActivityDay {
  /** `YYYY-MM-DD`. */
  date: string;
  calls: number;
  /** Billed minutes, two decimals. */
  minutes: number;
  costCents: number;
  /** Webhook delivery attempts that succeeded, and that failed. */
  delivered: number;
  failed: number;
}

export const ACTIVITY_DAYS = 14;

/**
 * The last `days` UTC days up to today, oldest first, zeros included: calls, minutes and spend from the usage
 * records billing reads (one source for both pages), delivery outcomes from the delivery attempts.
 */
export async function recentActivity(deps: UseCaseDeps, tenant: BillingTenant, days = ACTIVITY_DAYS): Promise<ActivityDay[]> {
  const usage = await usageByPeriod(deps.db, tenant, { unit: 'day', count: days, now: deps.now() });
  const outcomes = await deliveryOutcomesByDay(deps.db, tenant, new Date(`${usage[0].key}T00:00:00.000Z`));
  return usage.map((day) => ({
    date: day.key,
    calls: day.calls,
    minutes: day.minutes,
    costCents: day.costCents,
    delivered: outcomes.get(day.key)?.delivered ?? 0,
    failed: outcomes.get(day.key)?.failed ?? 0,
  }));
}
