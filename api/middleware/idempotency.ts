import type Koa from 'koa';
import type { AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { claimIdempotencyKey, completeIdempotencyKey, fingerprintOf, releaseIdempotencyKey } from '../../src/idempotency/store';

/**
 * Idempotency as a middleware (Stripe's model). The record is keyed by (authenticated key,
 * operation, Idempotency-Key), where the operation is the route's canonical path template,
 * and the fingerprint covers the path parameters and the body. So the same key with a
 * different body, or on another child key for rotate, is `idempotency_key_reused`.
 *
 * What is replayed: successes, and refusals that stay true for the original request
 * (`payment_method_required`). What is not stored, so a retry is evaluated afresh:
 * validation errors, not-found bindings, scope/tier/cap refusals, rate limits and 5xx.
 */
const STICKY_ERROR_CODES = new Set(['payment_method_required']);
const MAX_KEY_LENGTH = 255;

export function idempotency(options: { required: boolean; scope: string }, deps: AppDeps): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const occurrences = ctx.req.rawHeaders.filter((_, i) => i % 2 === 0).filter((name) => name.toLowerCase() === 'idempotency-key').length;
    if (occurrences > 1) throw new ApiError(400, 'duplicate_idempotency_key_header', 'Send the Idempotency-Key header once');
    const idempotencyKey = ctx.get('idempotency-key').trim();
    if (!idempotencyKey) {
      if (options.required) throw new ApiError(400, 'missing_idempotency_key', 'This request requires an Idempotency-Key header');
      return next();
    }
    if (idempotencyKey.length > MAX_KEY_LENGTH) {
      throw new ApiError(422, 'validation_error', 'Idempotency-Key is too long', [{ field: 'Idempotency-Key', message: `At most ${MAX_KEY_LENGTH} characters` }]);
    }
    const principal = ctx.state.principal;
    if (!principal) throw new Error('idempotency middleware needs an authenticated principal');
    const params = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
    const claim = await claimIdempotencyKey(
      deps.db,
      { principalKeyId: principal.key.id, scope: options.scope, idempotencyKey, fingerprint: fingerprintOf({ params, body: ctx.state.body ?? null }) },
      deps.now(),
    );
    switch (claim.kind) {
      case 'reused':
        throw new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request in the last 12 hours');
      case 'in_progress':
        throw new ApiError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress', undefined, { 'Retry-After': '1' });
      case 'replay':
        ctx.status = claim.status;
        ctx.body = claim.body;
        ctx.set('Idempotent-Replayed', 'true');
        return;
      case 'owned':
        break;
    }

    let completedInHandler = false;
    ctx.state.idempotency = {
      async completeInTransaction(trx, status, replayBody) {
        await completeIdempotencyKey(trx, claim.recordId, status, replayBody, deps.now());
        completedInHandler = true;
      },
    };
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError && STICKY_ERROR_CODES.has(err.code)) {
        await completeIdempotencyKey(deps.db, claim.recordId, err.status, err.toBody(), deps.now());
      } else {
        // Deletes only a record still in progress: one the handler completed and committed stays.
        await releaseIdempotencyKey(deps.db, claim.recordId);
      }
      throw err;
    }
    if (completedInHandler) return;
    if (ctx.status >= 200 && ctx.status < 300) {
      await completeIdempotencyKey(deps.db, claim.recordId, ctx.status, ctx.state.replayBody ?? ctx.body, deps.now());
    } else {
      await releaseIdempotencyKey(deps.db, claim.recordId);
    }
  };
}
