import type Koa from 'koa';
import type { AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { consumeRateLimit, refundRateLimitHit } from '../../src/domain/limits/limiter';
import { bucketFor, RATE_LIMITS, type LimitName } from '../../src/domain/limits/policies';

/** One request's use of a row of the limits table: the headers to send, the refusal when spent, and how to give it back. */
export interface LimitSpend {
  headers: Record<string, string>;
  refusal?: ApiError;
  /** Gives the hit back (a request refused as malformed did no work). */
  giveBack(): Promise<void>;
}

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
  const policy = RATE_LIMITS[name];
  const bucket = bucketFor(name, who, route);
  const decision = await consumeRateLimit(deps.db, bucket, policy, deps.now());
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

/**
 * Applies one row of the limits table (after validation, so malformed requests are not counted;
 * business-rule refusals the handler raises as 400/422 are given back too).
 */
export function rateLimit(name: LimitName, route: string, deps: AppDeps): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new Error('rate limiting needs an authenticated principal');
    const spent = await spendLimit(
      deps,
      name,
      { workspaceId: principal.workspaceId, environment: principal.environment, userId: principal.userId, keyId: principal.key.id },
      route,
    );
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
