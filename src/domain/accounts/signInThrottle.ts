import { clearRateLimitBucket, consumeRateLimit, consumeWithGrowingDelay, refundRateLimitHit } from '../limits/limiter';
import { accessBucketFor, RATE_LIMITS } from '../limits/policies';
import type { UseCaseDeps } from '../useCaseDeps';
import type { AccessRefusal } from './accessLimits';

/** A sign-in attempt admitted by the throttle: a failure stays counted as it is. */
export interface AdmittedAttempt {
  /** The user is in: the account's failures from this address are forgotten. */
  succeeded(): Promise<void>;
  /** One step passed but the sign-in is not complete (a second factor follows): only this attempt is taken back. */
  passed(): Promise<void>;
}

/**
 * Admits one attempt to prove who one is (a password, a second-factor code) for `account` from
 * `clientAddress`, or refuses it with the wait (issue 27, L12). Only failures count: the attempt is
 * counted as one until `succeeded` takes it back. Two counts, both in rate_limit_windows:
 * - `portal.login_failures`, per account AND address, with a growing delay: someone guessing at a
 *   user's email from elsewhere slows only themselves, and the user's own right password still gets in;
 * - `portal.login_address`, per address (an IPv6 /64), across accounts: spraying one password at many.
 * A refused attempt checks nothing and counts nothing.
 */
export async function admitSignInAttempt(
  deps: UseCaseDeps,
  request: { account: string; clientAddress: string },
): Promise<{ admitted: AdmittedAttempt } | AccessRefusal> {
  const now = deps.now();
  const pairBucket = accessBucketFor('portal.login_failures', request.account, request.clientAddress);
  const pair = await consumeWithGrowingDelay(deps.db, pairBucket, RATE_LIMITS['portal.login_failures'], now);
  if (!pair.allowed) return { refused: 'rate_limited', retryAfterSeconds: pair.retryAfterSeconds };
  const addressBucket = accessBucketFor('portal.login_address', request.clientAddress);
  const address = await consumeRateLimit(deps.db, addressBucket, RATE_LIMITS['portal.login_address'], now);
  if (!address.allowed) {
    await refundRateLimitHit(deps.db, pairBucket, now);
    return { refused: 'rate_limited', retryAfterSeconds: address.retryAfterSeconds };
  }
  return {
    admitted: {
      async succeeded() {
        await clearRateLimitBucket(deps.db, pairBucket);
        await refundRateLimitHit(deps.db, addressBucket, now);
      },
      async passed() {
        await refundRateLimitHit(deps.db, pairBucket, now);
        await refundRateLimitHit(deps.db, addressBucket, now);
      },
    },
  };
}
