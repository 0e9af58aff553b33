import type Koa from 'koa';
import type { AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { loggableError } from './errorMapping';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintOf,
  IDEMPOTENCY_LEASE_RENEW_MS,
  IdempotencyLeaseLostError,
  forgetIdempotencyKey,
  releaseIdempotencyKey,
  renewIdempotencyLease,
  type IdempotencyIdentity,
  type IdempotencyLease,
} from '../../src/domain/idempotency/store';
import { claimCountingHit } from '../../src/domain/idempotency/claimCountingHit';
import { bucketFor, RATE_LIMITS, type LimitName } from '../../src/domain/limits/policies';
import { limitSpendOf, limitSubject } from './rateLimit';

/**
 * Idempotency as a middleware (Stripe's model). The record is keyed by (authenticated key,
 * operation, Idempotency-Key), where the operation is the route's canonical path template,
 * and the fingerprint covers the path parameters and the body. So the same key with a
 * different body, or on another child key for rotate, is `idempotency_key_reused`.
 *
 * What is replayed: successes, and refusals that stay true for the original request
 * (`payment_method_required`). What is not stored, so a retry is evaluated afresh:
 * validation errors, not-found bindings, scope/tier/cap refusals, rate limits and 5xx.
 *
 * The claim is a lease renewed while the request runs and fenced by a token (src/domain/idempotency/store.ts):
 * a request whose record was taken over answers 409 `idempotency_in_progress`, and when it completes
 * inside its own transaction (`completeInTransaction`) its effect rolls back with it; one that writes its effect in one
 * statement writes the completion in it too (`answerWithin`), and nothing when its lease is lost.
 */
const STICKY_ERROR_CODES = new Set(['payment_method_required']);
const MAX_KEY_LENGTH = 255;

/** A route's rate limit, counted with the claim (the rateLimit middleware later in the chain applies the decision). */
export interface ClaimedLimit {
  name: LimitName;
  route: string;
}

export function idempotency(options: { required: boolean; scope: string; limit?: ClaimedLimit }, deps: AppDeps): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const occurrences = ctx.req.rawHeaders.filter((_, i) => i % 2 === 0).filter((name) => name.toLowerCase() === 'idempotency-key').length;
    if (occurrences > 1) throw new ApiError(400, 'duplicate_idempotency_key_header', 'Send the Idempotency-Key header once');
    const idempotencyKey = ctx.get('idempotency-key').trim();
    if (!idempotencyKey) {
      if (options.required) throw new ApiError(400, 'missing_idempotency_key', 'This request requires an Idempotency-Key header');
      return next();
    }
    if (idempotencyKey.length > MAX_KEY_LENGTH) {
      throw new ApiError(422, 'validation_error', 'Idempotency-Key is too long', [
        { field: 'Idempotency-Key', message: `At most ${MAX_KEY_LENGTH} characters` },
      ]);
    }
    const principal = ctx.state.principal;
    if (!principal) throw new Error('idempotency middleware needs an authenticated principal');
    const params = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
    const identity = {
      principalKeyId: principal.key.id,
      scope: options.scope,
      idempotencyKey,
      // An upload is fingerprinted by its digest: the same file again is the same request.
      fingerprint: fingerprintOf({ params, body: ctx.state.upload ? { sha256: ctx.state.upload.sha256 } : (ctx.state.body ?? null) }),
    };
    const outcome = await runIdempotently(ctx, deps, identity, next, options.limit);
    if (outcome.replayed) {
      ctx.status = outcome.status;
      ctx.body = outcome.body;
      ctx.set('Idempotent-Replayed', 'true');
    }
  };
}

/**
 * Claims `identity` and runs `run` holding its lease, or answers what was stored for it. The
 * middleware's core, also used where the requester is not an API key (a portal operator's form,
 * keyed by the user's id under its own scope).
 */
export async function runIdempotently(
  ctx: Koa.ParameterizedContext<AppState>,
  deps: AppDeps,
  identity: IdempotencyIdentity,
  run: () => Promise<unknown>,
  limit?: ClaimedLimit,
): Promise<{ replayed: false } | { replayed: true; status: number; body: unknown }> {
  const claim = limit ? await claimCountingLimit(ctx, deps, identity, limit) : await claimIdempotencyKey(deps.db, identity, deps.now());
  switch (claim.kind) {
    case 'reused':
      throw new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request in the last 12 hours');
    case 'in_progress':
      throw inProgress();
    case 'replay':
      return { replayed: true, status: claim.status, body: claim.body };
    case 'owned':
      try {
        await runHolding(claim.lease, ctx, run, deps);
      } catch (err) {
        await giveBackUnappliedHit(ctx, err);
        throw err;
      }
      return { replayed: false };
  }
}

/** The claim, counting the route's rate-limit hit when it takes the record: one round trip for both (issue 33). */
async function claimCountingLimit(
  ctx: Koa.ParameterizedContext<AppState>,
  deps: AppDeps,
  identity: IdempotencyIdentity,
  limit: ClaimedLimit,
) {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('a rate limit counted with the claim needs an authenticated principal');
  const bucket = bucketFor(limit.name, limitSubject(principal), limit.route);
  const counted = await claimCountingHit(deps.db, identity, { bucket, policy: RATE_LIMITS[limit.name] }, deps.now());
  if ('decision' in counted) ctx.state.limitSpent = limitSpendOf(deps, limit.name, bucket, counted.decision);
  return counted.claim;
}

/**
 * A request refused as malformed before the rateLimit middleware applied the hit the claim counted (validation runs
 * between them) did no work: its hit is given back, as if it had never been counted.
 */
async function giveBackUnappliedHit(ctx: Koa.ParameterizedContext<AppState>, err: unknown): Promise<void> {
  const spent = ctx.state.limitSpent;
  if (!spent || !(err instanceof ApiError) || (err.status !== 400 && err.status !== 422)) return;
  ctx.state.limitSpent = undefined;
  await spent.giveBack();
}

function inProgress(): ApiError {
  return new ApiError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress', undefined, {
    'Retry-After': '1',
  });
}

/** Runs the handler while holding (and renewing) the lease, then stores or releases the record. */
async function runHolding(
  lease: IdempotencyLease,
  ctx: Koa.ParameterizedContext<AppState>,
  next: () => Promise<unknown>,
  deps: AppDeps,
): Promise<void> {
  // Once the outcome is being written, a renewal that finds the record completed is no news.
  let settling = false;
  const renewal = setInterval(() => {
    renewIdempotencyLease(deps.db, lease, deps.now()).then(
      (held) => {
        if (!held && !settling) ctx.state.log.warn({ idempotency_record: lease.recordId }, 'idempotency lease lost while the request ran');
      },
      (err: unknown) =>
        ctx.state.log.warn({ err: loggableError(err), idempotency_record: lease.recordId }, 'idempotency lease renewal failed'),
    );
  }, IDEMPOTENCY_LEASE_RENEW_MS);
  renewal.unref();

  let completedInHandler = false;
  ctx.state.idempotency = {
    async completeInTransaction(trx, status, replayBody) {
      settling = true;
      await completeIdempotencyKey(trx, lease, status, replayBody, deps.now());
      completedInHandler = true;
    },
    answerWithin(status, body) {
      return {
        completion(recorded) {
          // From here the use case's statement may complete the record.
          settling = true;
          return { lease, status, body: body(recorded), at: deps.now() };
        },
        committed() {
          completedInHandler = true;
        },
      };
    },
    async forgetCompleted() {
      if (!completedInHandler) return;
      await forgetIdempotencyKey(deps.db, lease);
      completedInHandler = false;
    },
  };
  try {
    try {
      await next();
    } catch (err) {
      settling = true;
      // Another request holds the key now; this one's transaction has rolled back.
      if (err instanceof IdempotencyLeaseLostError) throw inProgress();
      if (err instanceof ApiError && STICKY_ERROR_CODES.has(err.code)) {
        await completeIdempotencyKey(deps.db, lease, err.status, err.toBody(), deps.now()).catch(ignoreLostLease);
      } else {
        // Deletes only a record still held and in progress: one the handler completed and committed stays.
        await releaseIdempotencyKey(deps.db, lease);
      }
      throw err;
    }
    settling = true;
    if (completedInHandler) return;
    if (ctx.status >= 200 && ctx.status < 300) {
      // This handler's effect is not in a transaction with the record: if the lease was lost
      // meanwhile, the response stays true for this request, and the record is the other one's.
      await completeIdempotencyKey(deps.db, lease, ctx.status, ctx.state.replayBody ?? ctx.body, deps.now()).catch((err: unknown) => {
        ignoreLostLease(err);
        ctx.state.log.warn({ idempotency_record: lease.recordId }, 'request completed after its idempotency lease was taken over');
      });
    } else {
      await releaseIdempotencyKey(deps.db, lease);
    }
  } finally {
    clearInterval(renewal);
  }
}

function ignoreLostLease(err: unknown): void {
  if (!(err instanceof IdempotencyLeaseLostError)) throw err;
}
