import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { login } from '../../src/domain/accounts/login';
import { logout } from '../../src/domain/accounts/logout';
import { SESSION_LIFETIME_MS } from '../../src/domain/accounts/rules';
import { signup } from '../../src/domain/accounts/signup';
import { changed, refuse } from './answer';
import { assertCsrf, clearCookie, PRE_SESSION_CSRF_COOKIE, readCookie, readForm, sendPage, SESSION_COOKIE, setCookie } from './http';
import { loginPage, signupPage } from './pages/accounts';
import { askForSecondFactor } from './signInChallenge';
import { preSessionToken, signedInOperator } from './visitor';
import type { OpenedSession } from '../../src/domain/accounts/session';

const emailTaken = () => new ApiError(409, 'email_taken', 'This email address is already registered; log in instead');
const invalidCredentials = () => new ApiError(401, 'invalid_credentials', 'Wrong email or password');
const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', 'Too many attempts; try again later', undefined, { 'Retry-After': String(retryAfterSeconds) });

export function startSession(ctx: AppContext, deps: AppDeps, session: OpenedSession): void {
  setCookie(ctx, deps, SESSION_COOKIE, session.token, { sameSite: 'Lax', maxAgeSeconds: Math.floor(SESSION_LIFETIME_MS / 1000) });
  clearCookie(ctx, deps, PRE_SESSION_CSRF_COOKIE);
}

/** Signup, login and logout: forms posted with the pre-session double-submit token (before) or the session's (logout). */
export function accountRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/portal/signup', async (ctx) => {
    if (await signedInOperator(ctx as AppContext, deps, undefined)) return ctx.redirect('/portal');
    sendPage(ctx as AppContext, 200, signupPage({ csrfToken: preSessionToken(ctx as AppContext, deps) }));
  });

  router.post('/portal/signup', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const csrfToken = preSessionToken(ctx, deps);
    assertCsrf(ctx, deps, form, readCookie(ctx, PRE_SESSION_CSRF_COOKIE));
    const outcome = await signup(deps, {
      email: form.email ?? '',
      password: form.password ?? '',
      workspaceName: form.workspace_name,
      clientAddress: ctx.ip,
    });
    const again = (error: ApiError) =>
      refuse(ctx, error, (shown) => signupPage({ csrfToken, email: form.email, workspaceName: form.workspace_name, error: shown }));
    if (!outcome.ok) {
      switch (outcome.refused) {
        case 'invalid_fields':
          return again(errors.validation(outcome.problems));
        case 'email_taken':
          return again(emailTaken());
        case 'rate_limited':
          return again(rateLimited(outcome.retryAfterSeconds));
      }
    }
    ctx.state.log.info({ workspace_id: outcome.workspaceId, user_id: outcome.userId }, 'portal signup');
    startSession(ctx, deps, outcome.session);
    changed(ctx, '/portal', 201, { workspace_id: outcome.workspaceId, user_id: outcome.userId });
  });

  router.get('/portal/login', async (ctx) => {
    if (await signedInOperator(ctx as AppContext, deps, undefined)) return ctx.redirect('/portal');
    const notice = ctx.query.signed_out === '1' ? 'You are logged out.' : undefined;
    sendPage(ctx as AppContext, 200, loginPage({ csrfToken: preSessionToken(ctx as AppContext, deps), notice }));
  });

  router.post('/portal/login', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const csrfToken = preSessionToken(ctx, deps);
    assertCsrf(ctx, deps, form, readCookie(ctx, PRE_SESSION_CSRF_COOKIE));
    const outcome = await login(deps, { email: form.email ?? '', password: form.password ?? '', clientAddress: ctx.ip });
    const again = (error: ApiError) => refuse(ctx, error, (shown) => loginPage({ csrfToken, email: form.email, error: shown }));
    if (!outcome.ok) {
      if (outcome.refused === 'rate_limited') return again(rateLimited(outcome.retryAfterSeconds));
      ctx.state.log.info({ client_address: ctx.ip }, 'portal login refused');
      return again(invalidCredentials());
    }
    if ('challenge' in outcome) return askForSecondFactor(ctx, deps, outcome.challenge);
    startSession(ctx, deps, outcome.session);
    changed(ctx, '/portal', 200, { user_id: outcome.userId });
  });

  router.post('/portal/logout', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const operator = await signedInOperator(ctx, deps, undefined);
    if (operator) {
      assertCsrf(ctx, deps, form, operator.csrfToken);
      await logout(deps, operator.session.id);
    }
    clearCookie(ctx, deps, SESSION_COOKIE);
    changed(ctx, '/portal/login?signed_out=1', 200, { signed_out: true });
  });
}
