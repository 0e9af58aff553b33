import { consumeRateLimit } from '../limits/limiter';
import { accessBucketFor, RATE_LIMITS, type LimitName } from '../limits/policies';
import type { UseCaseDeps } from '../useCaseDeps';

export interface AccessRefusal {
  refused: 'rate_limited';
  retryAfterSeconds: number;
}

/**
 * Counts one attempt against each named limit (partitioned by account, client address or the whole
 * deployment; `limit` when configuration sets the row's limit) and
 * refuses when any is spent; every limit counts the attempt, so a refused try still weighs.
 */
export async function consumeAccessLimits(
  deps: UseCaseDeps,
  limits: ReadonlyArray<{ name: LimitName; value: string; limit?: number }>,
): Promise<AccessRefusal | undefined> {
  let retryAfterSeconds = 0;
  for (const { name, value, limit } of limits) {
    const policy = { ...RATE_LIMITS[name], ...(limit === undefined ? {} : { limit }) };
    const decision = await consumeRateLimit(deps.db, accessBucketFor(name, value), policy, deps.now());
    if (!decision.allowed) retryAfterSeconds = Math.max(retryAfterSeconds, decision.retryAfterSeconds);
  }
  return retryAfterSeconds > 0 ? { refused: 'rate_limited', retryAfterSeconds } : undefined;
}
