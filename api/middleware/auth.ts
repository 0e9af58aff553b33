import type Koa from 'koa';
import { authenticateCarrier, authenticateTelnyx } from '../carrierAuth';
import { authenticateStripe } from '../stripeAuth';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import type { RouteAuth } from '../routeTable';
import { recordComplianceEvent } from '../../src/domain/compliance/events';
import { hasScope } from '../../src/domain/keys/scopes';
import { tierAllows, type Verb } from '../../src/domain/keys/tiers';
import type { KeyCache } from '../../src/domain/keys/cache';
import {
  cachedKeyLookup,
  readPresentedKey,
  presentKey,
  type ApiKeyRow,
  type KeyLookup,
  type LastUsedBatcher,
  type PresentedKey,
} from '../../src/domain/keys/store';
import { consumeRateLimit } from '../../src/domain/limits/limiter';
import { bucketFor, RATE_LIMITS } from '../../src/domain/limits/policies';

/** `Authorization: Bearer <key>`; surrounding spaces are tolerated, as the public client trims them. */
function bearerToken(header: string): string | undefined {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Authenticates the request for one route: the tenant and environment are taken from
 * the key row, never from the request. Service keys authenticate only the keys plane,
 * and regular keys never authenticate it (401 `invalid_api_key` either way).
 */
export function authenticate(
  auth: RouteAuth,
  deps: AppDeps,
  keys: { cache: KeyCache<ApiKeyRow>; lastUsed: LastUsedBatcher },
): Koa.Middleware<AppState> {
  if (auth.kind === 'public') return (_ctx, next) => next();
  if (auth.kind === 'carrier' || auth.kind === 'stripe') {
    return async (ctx, next) => {
      if (auth.kind === 'stripe') authenticateStripe(ctx as unknown as AppContext, deps);
      else if (auth.scheme === 'telnyx') await authenticateTelnyx(ctx as unknown as AppContext, deps);
      else await authenticateCarrier(ctx as unknown as AppContext, deps);
      return next();
    };
  }
  // Not an async function: a cached key passes without waiting a tick (issue 33). What it throws, koa-compose turns
  // into the chain's rejection.
  return (ctx, next) => {
    const now = deps.now();
    const presented = presentedKeyOf(ctx);
    const cached = cachedKeyLookup(presented, now, keys.cache);
    if (cached) return authorize(ctx, next, keyOf(cached), now);
    return readPresentedKey(deps.db, presented, now, keys.cache).then((found) => authorize(ctx, next, keyOf(found), now));
  };

  /** Admits `key` to this route, or refuses it: 401 for a key of the wrong kind, 403 for its tier or scopes. */
  function authorize(ctx: Koa.ParameterizedContext<AppState>, next: Koa.Next, key: ApiKeyRow, now: Date): Promise<void> {
    // A key of the wrong kind is not a credential for this plane: the same 401 as an unknown key
    // (the public client's history: "every wrong-kind credential gets the same 401 invalid_api_key").
    if (auth.kind === 'service' ? key.kind !== 'service' : key.kind === 'service') throw errors.invalidApiKey();
    if (auth.kind === 'standard') {
      // The tier is checked first: for an agent key it is the more precise answer.
      if (!tierAllows(key.permissions, auth.verb)) return refuseTier(ctx, key, auth.verb, now);
      if (!hasScope(key.scopes, auth.scope)) {
        throw errors.forbidden(`This key lacks the scope ${auth.scope}`, [{ field: 'scope', message: auth.scope }]);
      }
    }
    admit(ctx, key, keys.lastUsed, now);
    return next();
  }

  /** 403 `agent_permission_denied`; a key hammering a verb it may not use writes one event a minute, not one per request. */
  async function refuseTier(ctx: Koa.ParameterizedContext<AppState>, key: ApiKeyRow, verb: Verb, now: Date): Promise<never> {
    const who = { workspaceId: key.workspace_id, environment: key.environment, userId: key.user_id, keyId: key.id };
    const throttle = await consumeRateLimit(
      deps.db,
      bucketFor('events.permission_denied', who, verb),
      RATE_LIMITS['events.permission_denied'],
      now,
    );
    if (throttle.allowed) {
      await recordComplianceEvent(deps.db, {
        workspaceId: key.workspace_id,
        environment: key.environment,
        eventType: 'agent_key_permission_denied',
        actorKeyId: key.id,
        lineId: key.line_id,
        metadata: { tier: key.permissions, verb, method: ctx.method, path: ctx.path },
        at: now,
      });
    }
    throw new ApiError(403, 'agent_permission_denied', `A ${key.permissions} key cannot ${verb}`, [
      { field: 'tier', message: key.permissions },
      { field: 'verb', message: verb },
    ]);
  }
}

/** The request's bearer token, parsed and hashed: 401 `unauthorized` without a header, `invalid_api_key` for a malformed one. */
function presentedKeyOf(ctx: Koa.ParameterizedContext<AppState>): PresentedKey {
  const header = ctx.get('authorization');
  if (!header.trim()) throw errors.unauthorized();
  const token = bearerToken(header);
  const presented = token === undefined ? undefined : presentKey(token);
  if (!presented) throw errors.invalidApiKey();
  return presented;
}

/** The key row a lookup found: 401 `invalid_api_key` for an unknown, revoked or expired key alike. */
function keyOf(found: KeyLookup): ApiKeyRow {
  if (!found.ok) throw errors.invalidApiKey();
  return found.key;
}

/** Makes `key` the request's principal and notes its use (every authenticator ends here). */
export function admit(ctx: Koa.ParameterizedContext<AppState>, key: ApiKeyRow, lastUsed: LastUsedBatcher, now: Date): void {
  ctx.state.principal = { key, workspaceId: key.workspace_id, userId: key.user_id, environment: key.environment, scopes: key.scopes };
  lastUsed.record(key.id, now);
}
