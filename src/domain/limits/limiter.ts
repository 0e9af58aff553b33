/**
 * Exact rolling-window rate limiting in Postgres (a sliding log), so every API instance
 * shares one count. Each bucket is serialised with a transaction-scoped advisory lock;
 * hits older than the window are pruned as the bucket is used.
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
  /** The recorded hit, so a request refused as malformed can be given back. */
  hitId?: string;
}

export async function consumeRateLimit(db: Knex, bucket: string, policy: LimitPolicy, now: Date): Promise<LimitDecision> {
  const windowMs = policy.windowSeconds * 1000;
  const windowStart = new Date(now.getTime() - windowMs);
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [bucket]);
    await trx('rate_limit_hits').where({ bucket }).andWhere('at', '<=', windowStart).del();
    const [{ count, oldest }] = await trx('rate_limit_hits')
      .where({ bucket })
      .select(trx.raw('count(*)::int as count'), trx.raw('min(at) as oldest'));
    const secondsUntilOldestLeaves = oldest
      ? Math.max(1, Math.ceil((new Date(oldest).getTime() + windowMs - now.getTime()) / 1000))
      : policy.windowSeconds;
    if (count >= policy.limit) {
      return {
        allowed: false,
        limit: policy.limit,
        remaining: 0,
        resetSeconds: secondsUntilOldestLeaves,
        retryAfterSeconds: policy.retryAfterSeconds ?? secondsUntilOldestLeaves,
      };
    }
    const [hit] = await trx('rate_limit_hits').insert({ bucket, at: now }).returning('id');
    return {
      allowed: true,
      limit: policy.limit,
      remaining: policy.limit - count - 1,
      resetSeconds: secondsUntilOldestLeaves,
      retryAfterSeconds: 0,
      hitId: String(hit.id),
    };
  });
}

export async function refundRateLimitHit(db: Knex, hitId: string): Promise<void> {
  await db('rate_limit_hits').where({ id: hitId }).del();
}

/** Hits older than the longest window can never count again; buckets prune themselves on use, this catches idle ones. */
export async function purgeStaleRateLimitHits(db: Knex, now: Date): Promise<number> {
  const longestWindowSeconds = Math.max(...Object.values(RATE_LIMITS).map((policy: LimitPolicy) => policy.windowSeconds));
  return db('rate_limit_hits')
    .where('at', '<', new Date(now.getTime() - longestWindowSeconds * 1000))
    .del();
}
