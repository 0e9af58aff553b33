import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { login } from '../../src/domain/accounts/login';
import { logout } from '../../src/domain/accounts/logout';
import { SESSION_LIFETIME_MS } from '../../src/domain/accounts/rules';
import { signup, type SignupOutcome } from '../../src/domain/accounts/signup';
import type { AccountHold } from '../../src/domain/accounts/accountTokens';
import type { MailingDeps } from '../../src/domain/accounts/mail';
import { portalSignups } from '../metrics';
import { changed, refuse } from './answer';
import {
  assertCsrf,
  clearCookie,
  PRE_SESSION_CSRF_COOKIE,
  readCookie,
  readForm,
  sendPage,
  SESSION_COOKIE,
  setCookie,
  wantsJson,
} from './http';
import { checkInboxPage, loginPage, signupPage } from './pages/accounts';
import { askForSecondFactor } from './signInChallenge';
import { preSessionToken, signedInOperator } from './visitor';
import type { OpenedSession } from '../../src/domain/accounts/session';
import { takeReturnPath } from './returnTo';
import { noteAction } from './actionLog';

const signupClosed = () =>
  new ApiError(403, 'signup_closed', 'This service creates workspaces by invitation only: ask a workspace owner to invite you');
const emailTaken = () => new ApiError(409, 'email_taken', 'This email address is already registered; log in instead');
const invalidCredentials = () => new ApiError(401, 'invalid_credentials', 'Wrong email or password');
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', 'Too many attempts; try again later', undefined, { 'Retry-After': String(retryAfterSeconds) });
const accountHeld: Record<AccountHold, () => ApiError> = {
  email_unverified: () =>
    new ApiError(
      403,
      'email_unverified',
      'Confirm your email address first: follow the link we mailed you, or sign up again to get a new one',
    ),
  approval_pending: () => new ApiError(403, 'approval_pending', 'An operator has not approved this workspace yet; try again later'),
};

/** What a use case that mails needs from this request: the process's mailer (503 without one) and the request's log. */
export function mailingDeps(ctx: AppContext, deps: AppDeps): MailingDeps {
  if (!deps.mailer) throw new ApiError(503, 'mail_unavailable', 'This server sends no mail; ask its operator');
  return { ...deps, mailer: deps.mailer, log: ctx.state.log };
}

/** Opens `userId`'s session in the browser; the action log names them as who acted. */
export function startSession(ctx: AppContext, deps: AppDeps, session: OpenedSession, userId: string): void {
  noteAction(ctx, { userId });
  setCookie(ctx, deps, SESSION_COOKIE, session.token, { sameSite: 'Lax', maxAgeSeconds: Math.floor(SESSION_LIFETIME_MS / 1000) });
  clearCookie(ctx, deps, PRE_SESSION_CSRF_COOKIE);
}

/** Whether SIGNUP_MODE lets visitors sign up (`open`, `approval`); `invite` shows no signup page. */
function signupOpen(deps: AppDeps): boolean {
  return deps.config.signupMode === 'open' || deps.config.signupMode === 'approval';
}

/** The `outcome` label of switchboard_portal_signups_total for each refusal. */
const SIGNUP_OUTCOME: Record<Extract<SignupOutcome, { ok: false }>['refused'], string> = {
  signup_closed: 'closed',
  invalid_fields: 'invalid',
  email_taken: 'email_taken',
  rate_limited: 'rate_limited',
  rate_limited_global: 'rate_limited_global',
};

/** Signup, login and logout: forms posted with the pre-session double-submit token (before) or the session's (logout). */
export function accountRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/portal/signup', async (ctx) => {
    if (await signedInOperator(ctx as AppContext, deps, undefined)) return ctx.redirect('/portal');
    if (!signupOpen(deps)) throw signupClosed();
    sendPage(ctx as AppContext, 200, signupPage({ csrfToken: preSessionToken(ctx as AppContext, deps) }));
  });

  router.post('/portal/signup', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const csrfToken = preSessionToken(ctx, deps);
    assertCsrf(ctx, deps, form, readCookie(ctx, PRE_SESSION_CSRF_COOKIE));
    if (!signupOpen(deps)) {
      portalSignups.inc({ outcome: SIGNUP_OUTCOME.signup_closed });
      ctx.state.log.info({ client_address: ctx.ip }, 'portal signup refused: SIGNUP_MODE=invite');
      throw signupClosed();
    }
    const outcome = await signup(mailingDeps(ctx, deps), {
      email: form.email ?? '',
      password: form.password ?? '',
      workspaceName: form.workspace_name,
      clientAddress: ctx.ip,
    });
    portalSignups.inc({ outcome: outcome.ok ? 'created' : SIGNUP_OUTCOME[outcome.refused] });
    const again = (error: ApiError) =>
      refuse(ctx, error, (shown) => signupPage({ csrfToken, email: form.email, workspaceName: form.workspace_name, error: shown }));
    if (!outcome.ok) {
      ctx.state.log.info({ client_address: ctx.ip, refused: outcome.refused }, 'portal signup refused');
      switch (outcome.refused) {
        case 'signup_closed':
          throw signupClosed();
        case 'invalid_fields':
          return again(errors.validation(outcome.problems));
        case 'email_taken':
          return again(emailTaken());
        case 'rate_limited':
        case 'rate_limited_global':
          return again(rateLimited(outcome.retryAfterSeconds));
      }
    }
    ctx.state.log.info(
      { workspace_id: outcome.workspaceId, user_id: outcome.userId, awaiting_approval: outcome.awaitingApproval, mailed: outcome.mailed },
      'portal signup: verification link mailed',
    );
    noteAction(ctx, { userId: outcome.userId, targetId: outcome.workspaceId });
    const answer = {
      workspace_id: outcome.workspaceId,
      user_id: outcome.userId,
      email_verification: outcome.mailed ? 'mailed' : 'not_sent',
      awaiting_approval: outcome.awaitingApproval,
    };
    if (wantsJson(ctx)) {
      ctx.status = 202;
      ctx.body = answer;
      return;
    }
    sendPage(
      ctx,
      202,
      checkInboxPage({ csrfToken, email: outcome.email, mailed: outcome.mailed, awaitingApproval: outcome.awaitingApproval }),
    );
  });

  router.get('/portal/login', async (ctx) => {
    if (await signedInOperator(ctx as AppContext, deps, undefined)) return ctx.redirect('/portal');
    const notice =
      ctx.query.signed_out === '1' ? 'You are logged out.' : ctx.query.reset === '1' ? 'Your password is set: log in with it.' : undefined;
    sendPage(
      ctx as AppContext,
      200,
      loginPage({ csrfToken: preSessionToken(ctx as AppContext, deps), notice, signupOpen: signupOpen(deps) }),
    );
  });

  router.post('/portal/login', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const csrfToken = preSessionToken(ctx, deps);
    assertCsrf(ctx, deps, form, readCookie(ctx, PRE_SESSION_CSRF_COOKIE));
    const outcome = await login(deps, { email: form.email ?? '', password: form.password ?? '', clientAddress: ctx.ip });
    const again = (error: ApiError) =>
      refuse(ctx, error, (shown) => loginPage({ csrfToken, email: form.email, error: shown, signupOpen: signupOpen(deps) }));
    if (!outcome.ok) {
      if (outcome.refused === 'rate_limited') return again(rateLimited(outcome.retryAfterSeconds));
      if (outcome.refused === 'email_unverified' || outcome.refused === 'approval_pending') {
        ctx.state.log.info({ client_address: ctx.ip, refused: outcome.refused }, 'portal login refused');
        return again(accountHeld[outcome.refused]());
      }
      ctx.state.log.info({ client_address: ctx.ip }, 'portal login refused');
      return again(invalidCredentials());
    }
    if ('challenge' in outcome) {
      noteAction(ctx, { userId: outcome.userId, details: { second_factor: 'asked' } });
      return askForSecondFactor(ctx, deps, outcome.challenge);
    }
    startSession(ctx, deps, outcome.session, outcome.userId);
    changed(ctx, takeReturnPath(ctx, deps), 200, { user_id: outcome.userId });
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
