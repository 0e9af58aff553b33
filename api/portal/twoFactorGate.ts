import type Koa from 'koa';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { twoFactorStanding } from '../../src/domain/accounts/store';
import { assertCsrf, readForm, wantsJson } from './http';
import { signedInOperator } from './visitor';

/** Pages a member without a required second factor may still reach: signing up, in and out, mailed links, and enrolling. */
const OPEN_PATHS = [/^\/portal\/assets\//, /^\/portal\/(login|logout|signup|verify|password)(\/|$)/, /^\/portal\/security(\/|$)/];

/**
 * Issue 27: when the owner requires two-factor sign-in, a signed-in member without it is sent to
 * the security page to enrol before anything else: a page is redirected there, anything else is
 * refused 403 `two_factor_required` (a post of the portal's own form is on the audit log as a refused attempt).
 */
export function twoFactorGate(deps: AppDeps): Koa.Middleware<AppState> {
  return async (rawCtx, next) => {
    const ctx = rawCtx as unknown as AppContext;
    if (OPEN_PATHS.some((path) => path.test(ctx.path))) return next();
    const operator = await signedInOperator(ctx, deps, undefined);
    if (!operator) return next();
    const standing = await twoFactorStanding(deps.db, operator.user.id);
    if (!standing.required || standing.enabled) return next();
    if (ctx.method === 'GET' && !wantsJson(ctx)) {
      ctx.status = 303;
      return ctx.redirect('/portal/security');
    }
    // A form of the portal's own (its CSRF token checks out) is an attempt the audit log records as refused, with
    // its author, address and browser (./actionLog.ts); a forged one is refused as forged and recorded nowhere.
    if (ctx.method === 'POST' && ctx.is('urlencoded', 'json')) assertCsrf(ctx, deps, await readForm(ctx), operator.csrfToken);
    throw new ApiError(403, 'two_factor_required', 'Your workspace requires two-factor sign-in: set it up on /portal/security first');
  };
}
