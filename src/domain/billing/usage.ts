import type { Db } from '../../platform/db/knex';
import type { BillingTenant } from './ledger';

/** Usage per UTC day or month (spec "Billing, settings, usage, voices"), read from `usage_records`. */
export type UsageUnit = 'day' | 'month';

interface UsageRow {
  bucket: string;
  calls: number;
  seconds: string;
  sms_inbound: number;
  sms_outbound: number;
  cost: string;
}

export interface UsageBucket {
  /** `YYYY-MM-DD` of a day, `YYYY-MM` of a month. */
  key: string;
  calls: number;
  /** Billed minutes to two decimals, from whole billed seconds. */
  minutes: number;
  smsInbound: number;
  smsOutbound: number;
  costCents: number;
}

/**
 * The last `count` days (months) up to the one containing `now`, oldest first and dense: one
 * bucket per day (month) of the range, zeros included. `lineIds` narrows it to those lines.
 */
export async function usageByPeriod(
  db: Db,
  tenant: BillingTenant,
  range: { unit: UsageUnit; count: number; now: Date; lineIds?: readonly string[] },
): Promise<UsageBucket[]> {
  const { unit, count, now } = range;
  const start =
    unit === 'day'
      ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (count - 1)))
      : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (count - 1), 1));
  const format = unit === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM';
  const query = db('usage_records')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .andWhere('occurred_at', '>=', start)
    .select(
      db.raw(`to_char(date_trunc(?, occurred_at at time zone 'UTC'), ?) as bucket`, [unit, format]),
      db.raw("count(*) filter (where kind = 'call')::int as calls"),
      db.raw("coalesce(sum(seconds) filter (where kind = 'call'), 0)::bigint as seconds"),
      db.raw("count(*) filter (where kind = 'sms_inbound')::int as sms_inbound"),
      db.raw("count(*) filter (where kind = 'sms_outbound')::int as sms_outbound"),
      db.raw('coalesce(sum(cost_cents), 0)::bigint as cost'),
    )
    .groupByRaw('1');
  if (range.lineIds) query.whereIn('line_id', [...range.lineIds]);
  const byBucket = new Map(((await query) as UsageRow[]).map((row) => [row.bucket, row]));
  const buckets: UsageBucket[] = [];
  for (let i = 0; i < count; i += 1) {
    const at =
      unit === 'day' ? new Date(start.getTime() + i * 86_400_000) : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + i, 1));
    const key = unit === 'day' ? at.toISOString().slice(0, 10) : at.toISOString().slice(0, 7);
    const row = byBucket.get(key);
    buckets.push({
      key,
      calls: row?.calls ?? 0,
      minutes: Math.round((Number(row?.seconds ?? 0) / 60) * 100) / 100,
      smsInbound: row?.sms_inbound ?? 0,
      smsOutbound: row?.sms_outbound ?? 0,
      costCents: Number(row?.cost ?? 0),
    });
  }
  return buckets;
}

/** What a usage export may be narrowed by: a line, a kind, when it occurred. */
export interface UsageRecordFilters {
  lineId?: string;
  kind?: string;
  occurredFrom?: Date;
  /** Occurred before. */
  occurredBefore?: Date;
}

/** The kinds of usage a record is (`usage_records.kind`). */
export const USAGE_KINDS = ['call', 'sms_inbound', 'sms_outbound'] as const;

/** The tenant's usage records (one per billed call or message) narrowed by `filters`; the caller orders and pages them. */
export function usageRecordsOf(db: Db, tenant: BillingTenant, filters: UsageRecordFilters) {
  const query = db('usage_records')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .select('id', 'occurred_at', 'kind', 'line_id', 'seconds', 'cost_cents', 'reference');
  if (filters.lineId) query.andWhere({ line_id: filters.lineId });
  if (filters.kind) query.andWhere({ kind: filters.kind });
  if (filters.occurredFrom) query.andWhere('occurred_at', '>=', filters.occurredFrom);
  if (filters.occurredBefore) query.andWhere('occurred_at', '<', filters.occurredBefore);
  return query;
}
