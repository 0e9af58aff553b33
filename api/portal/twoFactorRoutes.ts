import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { confirmTwoFactor, pendingTwoFactor, startTwoFactor } from '../../src/domain/accounts/enrolTwoFactor';
import { completeSecondFactor } from '../../src/domain/accounts/secondFactor';
import { twoFactorStanding, unusedRecoveryCodes } from '../../src/domain/accounts/store';
import { setTwoFactorRequirement } from '../../src/domain/accounts/twoFactorPolicy';
import { changed, refuse } from './answer';
import { assertCsrf, clearCookie, PRE_SESSION_CSRF_COOKIE, readCookie, readForm, sendPage, wantsJson } from './http';
import { CHALLENGE_COOKIE } from './signInChallenge';
import { navOf, postOperatorForm, getOperatorPage } from './operatorPages';
import { secondFactorPage, securityPage, type SecurityView } from './pages/security';
import { preSessionToken, type Operator } from './visitor';
import { rateLimited, startSession } from './accountRoutes';
import { takeReturnPath } from './returnTo';
import { noteAction } from './actionLog';

/**
 * Two-factor sign-in (issue 27): the code step of a sign-in (pre-session CSRF, as the login form),
 * and the signed-in security page: enrol (secret shown, confirmed by a code, recovery codes shown
 * once), and the owner's workspace requirement (api/portal/twoFactorGate.ts enforces it); turning it off and new
 * recovery codes, each behind its confirmation step: ./securityActions.ts.
 */
export function twoFactorRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/portal/login/code', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    if (!readCookie(ctx, CHALLENGE_COOKIE)) return ctx.redirect('/portal/login');
    sendPage(ctx, 200, secondFactorPage({ csrfToken: preSessionToken(ctx, deps) }));
  });

  router.post('/portal/login/code', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const csrfToken = preSessionToken(ctx, deps);
    assertCsrf(ctx, deps, form, readCookie(ctx, PRE_SESSION_CSRF_COOKIE));
    const again = (error: ApiError) => refuse(ctx, error, (shown) => secondFactorPage({ csrfToken, error: shown }));
    const token = readCookie(ctx, CHALLENGE_COOKIE);
    const outcome = token
      ? await completeSecondFactor(deps, { challengeToken: token, code: form.code ?? '', clientAddress: ctx.ip })
      : ({ ok: false, refused: 'challenge_expired' } as const);
    if (!outcome.ok) {
      switch (outcome.refused) {
        case 'rate_limited':
          return again(rateLimited(outcome.retryAfterSeconds));
        case 'challenge_expired':
          clearCookie(ctx, deps, CHALLENGE_COOKIE);
          ctx.state.log.info({ client_address: ctx.ip }, 'portal second factor refused: no open sign-in');
          return again(new ApiError(401, 'challenge_expired', 'This sign-in has expired or had too many wrong codes: log in again'));
        case 'invalid_code':
          noteAction(ctx, { userId: outcome.userId });
          ctx.state.log.warn(
            { user_id: outcome.userId, client_address: ctx.ip, reason: outcome.reason, tries_left: outcome.triesLeft },
            'portal second factor refused',
          );
          return again(new ApiError(401, 'invalid_code', 'That code is wrong, expired or already used'));
      }
    }
    clearCookie(ctx, deps, CHALLENGE_COOKIE);
    ctx.state.log.info({ user_id: outcome.userId, recovery_code: outcome.usedRecoveryCode }, 'portal sign-in with a second factor');
    startSession(ctx, deps, outcome.session, outcome.userId);
    changed(ctx, takeReturnPath(ctx, deps), 200, { user_id: outcome.userId });
  });

  getOperatorPage(router, '/portal/security', deps, async (ctx, operator) => {
    const pending = await pendingTwoFactor(deps, operator.user.id);
    sendPage(ctx, 200, securityPage(navOf(operator, '/portal/security'), { ...(await securityViewOf(deps, operator)), pending }));
  });

  postOperatorForm(router, '/portal/security/two-factor', deps, async (ctx, { operator }) => {
    const started = await startTwoFactor(deps, operator.user.id);
    const nav = navOf(operator, '/portal/security');
    if (!started.ok) {
      const view = await securityViewOf(deps, operator);
      return refuse(ctx, new ApiError(409, 'two_factor_enabled', 'Two-factor sign-in is already on'), (shown) =>
        securityPage(nav, { ...view, error: shown }),
      );
    }
    if (wantsJson(ctx)) {
      ctx.body = { secret: started.pending.secret, otpauth_uri: started.pending.uri };
      return;
    }
    sendPage(ctx, 200, securityPage(nav, { ...(await securityViewOf(deps, operator)), pending: started.pending }));
  });

  postOperatorForm(router, '/portal/security/two-factor/confirm', deps, async (ctx, { form, operator }) => {
    const nav = navOf(operator, '/portal/security');
    const outcome = await confirmTwoFactor(deps, { userId: operator.user.id, sessionId: operator.session.id, code: form.code ?? '' });
    if (!outcome.ok) {
      ctx.state.log.info({ user_id: operator.user.id, refused: outcome.refused }, 'portal two-factor enrolment refused');
      const error =
        outcome.refused === 'invalid_code'
          ? new ApiError(422, 'invalid_code', 'That code does not match the key: check the time on your device and try the next code')
          : new ApiError(409, 'not_started', 'Set up two-factor sign-in first');
      const view = { ...(await securityViewOf(deps, operator)), pending: await pendingTwoFactor(deps, operator.user.id) };
      return refuse(ctx, error, (shown) => securityPage(nav, { ...view, error: shown }));
    }
    ctx.state.log.info({ user_id: operator.user.id, revoked_sessions: outcome.revokedSessions }, 'portal two-factor sign-in turned on');
    if (wantsJson(ctx)) {
      ctx.body = { recovery_codes: outcome.recoveryCodes };
      return;
    }
    const notice = 'Two-factor sign-in is on; your other sessions are signed out.';
    sendPage(ctx, 200, securityPage(nav, { ...(await securityViewOf(deps, operator)), recoveryCodes: outcome.recoveryCodes, notice }));
  });

  postOperatorForm(router, '/portal/security/require', deps, async (ctx, { form, operator }) => {
    const required = form.required === 'true';
    const outcome = await setTwoFactorRequirement(deps, { userId: operator.user.id, required });
    if (!outcome.ok) {
      const error =
        outcome.refused === 'not_owner'
          ? errors.forbidden('Only an owner decides whether the workspace requires two-factor sign-in')
          : new ApiError(409, 'two_factor_not_enabled', 'Turn on two-factor sign-in for yourself first');
      const view = await securityViewOf(deps, operator);
      return refuse(ctx, error, (shown) => securityPage(navOf(operator, '/portal/security'), { ...view, error: shown }));
    }
    ctx.state.log.info(
      { user_id: operator.user.id, workspace_id: operator.user.workspace_id, required },
      'portal two-factor requirement changed',
    );
    changed(ctx, '/portal/security', 200, { require_two_factor: required });
  });
}

/** What the security page shows of `operator`'s second factor and the workspace's requirement. */
export async function securityViewOf(deps: AppDeps, operator: Operator): Promise<SecurityView> {
  const standing = await twoFactorStanding(deps.db, operator.user.id);
  return {
    enabled: standing.enabled,
    required: standing.required,
    isOwner: operator.user.role === 'owner',
    recoveryCodesLeft: standing.enabled ? await unusedRecoveryCodes(deps.db, operator.user.id) : 0,
  };
}
