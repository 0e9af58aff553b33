import type Koa from 'koa';
import type { AppDeps, AppState, LimitSpend, Principal } from '../context';
import { ApiError } from '../errors';
import { consumeRateLimit, refundRateLimitHit, type LimitDecision } from '../../src/domain/limits/limiter';
import { bucketFor, RATE_LIMITS, type LimitName } from '../../src/domain/limits/policies';

/**
 * Counts one request against a row of the limits table for `who` (the API's routes and the
 * portal's changes share these buckets, issue 27 L15). A refusal is 429 `rate_limited` with
 * `Retry-After`; every answer carries `RateLimit-Policy` and `RateLimit` (IETF httpapi-ratelimit-headers).
 */
export async function spendLimit(
  deps: Pick<AppDeps, 'db' | 'now'>,
  name: LimitName,
  who: Parameters<typeof bucketFor>[1],
  route?: string,
): Promise<LimitSpend> {
  const bucket = bucketFor(name, who, route);
  return limitSpendOf(deps, name, bucket, await consumeRateLimit(deps.db, bucket, RATE_LIMITS[name], deps.now()));
}

/** A decision on a hit counted on `bucket` (by spendLimit, or with the idempotency claim) as the request spends it. */
export function limitSpendOf(deps: Pick<AppDeps, 'db'>, name: LimitName, bucket: string, decision: LimitDecision): LimitSpend {
  const policy = RATE_LIMITS[name];
  const policyHeader = `${policy.limit};w=${policy.windowSeconds}`;
  const headers = {
    'RateLimit-Policy': policyHeader,
    RateLimit: `limit=${decision.limit}, remaining=${decision.remaining}, reset=${decision.resetSeconds}`,
  };
  const giveBack = async () => {
    if (decision.hitAt) await refundRateLimitHit(deps.db, bucket, decision.hitAt);
  };
  if (decision.allowed) return { headers, giveBack };
  const refusal = new ApiError(429, 'rate_limited', `Rate limit of ${policy.limit} per ${policy.windowSeconds} s exceeded`, undefined, {
    'Retry-After': String(decision.retryAfterSeconds),
    ...headers,
  });
  return { headers, refusal, giveBack };
}

/** Whose bucket an authenticated request's hit goes to. */
export function limitSubject(principal: Principal): Parameters<typeof bucketFor>[1] {
  return { workspaceId: principal.workspaceId, environment: principal.environment, userId: principal.userId, keyId: principal.key.id };
}

/**
 * Applies one row of the limits table (after validation, so malformed requests are not counted;
 * business-rule refusals the handler raises as 400/422 are given back too). When the idempotency claim counted the
 * hit (`ctx.state.limitSpent`), its decision is applied here, at the same place in the chain; a request validation
 * refuses gives that hit back.
 */
export function rateLimit(name: LimitName, route: string, deps: AppDeps): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('rate limiting needs an authenticated principal');
    // Counted already when the request claimed its Idempotency-Key (idempotency.ts): one round trip fewer. Taken
    // over here, so that from now on this middleware alone gives the hit back.
    const counted = ctx.state.limitSpent;
    ctx.state.limitSpent = undefined;
    const spent = counted ?? (await spendLimit(deps, name, limitSubject(principal), route));
    for (const [header, value] of Object.entries(spent.headers)) ctx.set(header, value);
    if (spent.refusal) throw spent.refusal;
    try {
      await next();
    } catch (err) {
      // A request refused as malformed (400/422) did no work: it does not use up the quota.
      if (err instanceof ApiError && (err.status === 400 || err.status === 422)) await spent.giveBack();
      throw err;
    }
  };
}
