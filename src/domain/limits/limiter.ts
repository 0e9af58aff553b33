/**
 * Exact rolling-window rate limiting in Postgres (a sliding log), so every API instance shares one
 * count. A bucket is one row of `rate_limit_windows` holding the timestamps of its counted hits; each
 * decision is one statement: the upsert locks the row, prunes hits that left the window and appends
 * this one only while under the limit (docs/decisions/api.md "API hot path (issue 14)").
 */
import type { Knex } from 'knex';
import { preparedStatement } from '../../platform/db/prepared';
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
 * The decision's upsert of the bucket's row, its new row from `source`: `values (...)`, or a SELECT yielding it only
 * when the hit is to be counted (the idempotency claim's, ../idempotency/claimCountingHit.ts). The bindings are
 * `:bucket`, `:now`, `:windowStart` and `:limit`. ON CONFLICT's DO UPDATE reads the latest committed row under its
 * lock, so concurrent decisions on one bucket serialise; `last_refused` tells the caller which branch its own
 * statement took.
 */
export function consumeUpsertSql(source: string): string {
  return `insert into rate_limit_windows as w (bucket, hits, last_refused) ${source}
on conflict (bucket) do update set
  hits = case
    when cardinality(array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz))) < :limit
      then array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz) order by h) || cast(:now as timestamptz)
    else array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz) order by h)
  end,
  last_refused = cardinality(array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz))) >= :limit
returning last_refused as refused, cardinality(hits)::int as count, (select min(h) from unnest(hits) h) as oldest`;
}

/** The new row of a bucket's first hit. */
const FIRST_HIT_SQL = `values (:bucket, array[cast(:now as timestamptz)], false)`;

/** The bindings of `consumeUpsertSql`, in the order `consumeValues` gives them. */
export const CONSUME_BINDINGS = ['bucket', 'now', 'windowStart', 'limit'] as const;

/** Every rate-limited request makes this decision: prepared once per connection. */
const consumeStatement = preparedStatement('rate_limit_consume', consumeUpsertSql(FIRST_HIT_SQL), CONSUME_BINDINGS);

/** What the upsert answers. */
export interface ConsumedRow {
  refused: boolean;
  count: number;
  oldest: Date | null;
}

/** The values of CONSUME_BINDINGS for a hit on `bucket` at `now`. */
export function consumeValues(bucket: string, policy: LimitPolicy, now: Date): unknown[] {
  return [bucket, now, new Date(now.getTime() - policy.windowSeconds * 1000), policy.limit];
}

/** The decision for a hit that was counted: `count` hits (this one included) are in the window. */
function admitted(policy: LimitPolicy, count: number, resetSeconds: number, now: Date): LimitDecision {
  return { allowed: true, limit: policy.limit, remaining: policy.limit - count, resetSeconds, retryAfterSeconds: 0, hitAt: now };
}

/** The decision the upsert's answer means for a hit at `now`. */
export function consumedDecision(policy: LimitPolicy, { refused, count, oldest }: ConsumedRow, now: Date): LimitDecision {
  const windowMs = policy.windowSeconds * 1000;
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
  return admitted(policy, count, secondsUntilOldestLeaves, now);
}

export async function consumeRateLimit(db: Knex, bucket: string, policy: LimitPolicy, now: Date): Promise<LimitDecision> {
  const [row] = await consumeStatement<ConsumedRow>(db, consumeValues(bucket, policy, now));
  return consumedDecision(policy, row, now);
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

/**
 * Like consumeRateLimit for a row with a `growingDelay`: a hit is admitted while the bucket is under
 * its limit and either holds fewer than `free` hits or the delay its count earns has passed since
 * its latest hit. Decided in one statement under the row lock, so parallel tries cannot all slip
 * through one expired delay.
 */
const CONSUME_DELAYED_SQL = `
insert into rate_limit_windows as w (bucket, hits, last_refused) values (:bucket, array[cast(:now as timestamptz)], false)
on conflict (bucket) do update set (hits, last_refused) = (
  select case when d.admitted then d.pruned || cast(:now as timestamptz) else d.pruned end, not d.admitted
  from (
    select array(select h from unnest(w.hits) h where h > cast(:windowStart as timestamptz) order by h) as pruned,
           (select count(*) < cast(:limit as int)
                   and (count(*) < cast(:free as int)
                        or max(h) + least(cast(:first as float8) * power(2, count(*) - cast(:free as int)), cast(:max as float8))
                                    * interval '1 second' <= cast(:now as timestamptz))
              from unnest(w.hits) h where h > cast(:windowStart as timestamptz)) as admitted
  ) d)
returning last_refused as refused, cardinality(hits)::int as count, (select max(h) from unnest(hits) h) as latest`;

/** The wait a bucket holding `count` hits imposes after its latest one. */
export function growingDelaySeconds(delay: NonNullable<LimitPolicy['growingDelay']>, count: number): number {
  if (count < delay.free) return 0;
  return Math.min(delay.firstSeconds * 2 ** (count - delay.free), delay.maxSeconds);
}

export async function consumeWithGrowingDelay(db: Knex, bucket: string, policy: LimitPolicy, now: Date): Promise<LimitDecision> {
  const delay = policy.growingDelay;
  if (!delay) throw new Error('consumeWithGrowingDelay needs a policy with a growingDelay');
  const windowStart = new Date(now.getTime() - policy.windowSeconds * 1000);
  const result = await db.raw<{ rows: Array<{ refused: boolean; count: number; latest: Date | null }> }>(CONSUME_DELAYED_SQL, {
    bucket,
    now,
    windowStart,
    limit: policy.limit,
    free: delay.free,
    first: delay.firstSeconds,
    max: delay.maxSeconds,
  });
  const { refused, count, latest } = result.rows[0];
  const nextAt = latest ? new Date(latest).getTime() + growingDelaySeconds(delay, count) * 1000 : now.getTime();
  const waitSeconds = Math.max(1, Math.ceil((nextAt - now.getTime()) / 1000));
  if (refused) return { allowed: false, limit: policy.limit, remaining: 0, resetSeconds: waitSeconds, retryAfterSeconds: waitSeconds };
  return admitted(policy, count, waitSeconds, now);
}

/** Forgets a bucket's hits (a successful sign-in clears its account and address's failures). */
export async function clearRateLimitBucket(db: Knex, bucket: string): Promise<void> {
  await db('rate_limit_windows').where({ bucket }).del();
}
