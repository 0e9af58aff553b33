import type Koa from 'koa';
import type { AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { consumeRateLimit, refundRateLimitHit } from '../../src/domain/limits/limiter';
import { bucketFor, RATE_LIMITS, type LimitName } from '../../src/domain/limits/policies';

/**
 * Applies one row of the limits table (after validation, so malformed requests are not counted;
 * business-rule refusals the handler raises as 400/422 are given back too). Every answer carries `RateLimit-Policy` and
 * `RateLimit` (IETF httpapi-ratelimit-headers); a refusal is 429 `rate_limited` with `Retry-After`.
 */
export function rateLimit(name: LimitName, route: string, deps: AppDeps): Koa.Middleware<AppState> {
  const policy = RATE_LIMITS[name];
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('rate limiting needs an authenticated principal');
    const bucket = bucketFor(
      name,
      { workspaceId: principal.workspaceId, environment: principal.environment, userId: principal.userId, keyId: principal.key.id },
      route,
    );
    const decision = await consumeRateLimit(deps.db, bucket, policy, deps.now());
    ctx.set('RateLimit-Policy', `${policy.limit};w=${policy.windowSeconds}`);
    ctx.set('RateLimit', `limit=${decision.limit}, remaining=${decision.remaining}, reset=${decision.resetSeconds}`);
    if (!decision.allowed) {
      throw new ApiError(429, 'rate_limited', `Rate limit of ${policy.limit} per ${policy.windowSeconds} s exceeded`, undefined, {
        'Retry-After': String(decision.retryAfterSeconds),
        'RateLimit-Policy': `${policy.limit};w=${policy.windowSeconds}`,
        RateLimit: `limit=${decision.limit}, remaining=0, reset=${decision.resetSeconds}`,
      });
    }
    try {
      await next();
    } catch (err) {
      // A request refused as malformed (400/422) did no work: it does not use up the quota.
      if (err instanceof ApiError && (err.status === 400 || err.status === 422) && decision.hitAt)
        await refundRateLimitHit(deps.db, bucket, decision.hitAt);
      throw err;
    }
  };
}
