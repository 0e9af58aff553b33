import { consumeRateLimit } from '../limits/limiter';
import { accessBucketFor, RATE_LIMITS, type LimitName } from '../limits/policies';
import type { UseCaseDeps } from '../useCaseDeps';

export interface AccessRefusal {
  refused: 'rate_limited';
  retryAfterSeconds: number;
}

/**
 * Counts one attempt against each named limit (partitioned by account or client address) and
 * refuses when any is spent; every limit counts the attempt, so a refused try still weighs.
 */
export async function consumeAccessLimits(
  deps: UseCaseDeps,
  limits: ReadonlyArray<{ name: LimitName; value: string }>,
): Promise<AccessRefusal | undefined> {
  let retryAfterSeconds = 0;
  for (const { name, value } of limits) {
    const decision = await consumeRateLimit(deps.db, accessBucketFor(name, value), RATE_LIMITS[name], deps.now());
    if (!decision.allowed) retryAfterSeconds = Math.max(retryAfterSeconds, decision.retryAfterSeconds);
  }
  return retryAfterSeconds > 0 ? { refused: 'rate_limited', retryAfterSeconds } : undefined;
}
