/**
 * Exact rolling-window rate limiting in Postgres (a sliding log), so every API instance shares one
 * count. A bucket is one row of `rate_limit_windows` holding the timestamps of its counted hits; each
 * decision is one statement: the upsert locks the row, prunes hits that left the window and appends
 * this one only while under the limit (docs/decisions.md "API hot path (issue 14)").
 */
import type { Knex } from 'knex';
import { RATE_LIMITS, type LimitPolicy } from './policies';

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted hit leaves the window. */
  resetSeconds: number;
  retryAfterSeconds: number;
  /** The recorded hit's moment, so a request refused as malformed can be given back. */
  hitAt?: Date;
}

/**
 * `in_window` is the bucket's hits still inside the window, as seen by the row lock (ON CONFLICT's
 * DO UPDATE reads the latest committed row, so concurrent decisions on one bucket serialise).
 * `last_refused` tells the caller which branch its own statement took.
 */
const CONSUME_SQL = `
insert into rate_limit_windows as w (bucket, hits, last_refused) values (:bucket, array[cast(:now as timestamptz)], false)
on conflict (bucket) do update set
  hits = case
    when cardinality(array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz))) < :limit
      then array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz) order by h) || cast(:now as timestamptz)
    else array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz) order by h)
  end,
  last_refused = cardinality(array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz))) >= :limit
returning last_refused as refused, cardinality(hits)::int as count, (select min(h) from unnest(hits) h) as oldest`;

export async function consumeRateLimit(db: Knex, bucket: string, policy: LimitPolicy, now: Date): Promise<LimitDecision> {
  const windowMs = policy.windowSeconds * 1000;
  const windowStart = new Date(now.getTime() - windowMs);
  const result = await db.raw<{ rows: Array<{ refused: boolean; count: number; oldest: Date | null }> }>(CONSUME_SQL, {
    bucket,
    now,
    windowStart,
    limit: policy.limit,
  });
  const { refused, count, oldest } = result.rows[0];
  const secondsUntilOldestLeaves = oldest
    ? Math.max(1, Math.ceil((new Date(oldest).getTime() + windowMs - now.getTime()) / 1000))
    : policy.windowSeconds;
  if (refused) {
    return {
      allowed: false,
      limit: policy.limit,
      remaining: 0,
      resetSeconds: secondsUntilOldestLeaves,
      retryAfterSeconds: policy.retryAfterSeconds ?? secondsUntilOldestLeaves,
    };
  }
  return {
    allowed: true,
    limit: policy.limit,
    remaining: policy.limit - count,
    resetSeconds: secondsUntilOldestLeaves,
    retryAfterSeconds: 0,
    hitAt: now,
  };
}

/** Gives back one hit recorded at `at` (one occurrence: concurrent requests may share a moment). */
export async function refundRateLimitHit(db: Knex, bucket: string, at: Date): Promise<void> {
  await db.raw(
    `update rate_limit_windows
        set hits = hits[:array_position(hits, cast(:at as timestamptz)) - 1] || hits[array_position(hits, cast(:at as timestamptz)) + 1:]
      where bucket = :bucket and cast(:at as timestamptz) = any(hits)`,
    { bucket, at },
  );
}

/**
 * Hits older than the longest window can never count again; buckets prune themselves on use, this
 * catches idle ones (emptied windows are deleted). Returns how many buckets it pruned.
 */
export async function purgeStaleRateLimitHits(db: Knex, now: Date): Promise<number> {
  const longestWindowSeconds = Math.max(...Object.values(RATE_LIMITS).map((policy: LimitPolicy) => policy.windowSeconds));
  const cutoff = new Date(now.getTime() - longestWindowSeconds * 1000);
  const pruned = await db.raw<{ rowCount: number }>(
    `update rate_limit_windows w set hits = array(select h from unnest(w.hits) h where h >= cast(:cutoff as timestamptz) order by h)
      where exists (select 1 from unnest(w.hits) h where h < cast(:cutoff as timestamptz))`,
    { cutoff },
  );
  // Re-checked under the row lock: a bucket used meanwhile is not empty and stays.
  await db.raw(`delete from rate_limit_windows where cardinality(hits) = 0`);
  return pruned.rowCount;
}
