import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { usableAccountToken } from '../../src/domain/accounts/accountTokens';
import { requestPasswordReset, resetPassword } from '../../src/domain/accounts/passwordReset';
import { resendVerification, verifyEmail } from '../../src/domain/accounts/verifyEmail';
import { mailingDeps, rateLimited, startSession } from './accountRoutes';
import { changed, refuse } from './answer';
import { assertCsrf, PRE_SESSION_CSRF_COOKIE, readCookie, readForm, sendPage, wantsJson } from './http';
import { awaitingApprovalPage, checkInboxPage, forgotPasswordPage, resetPasswordPage, verifyPage } from './pages/accounts';
import { preSessionToken } from './visitor';
import { noteAction } from './actionLog';

/** A link that cannot be used: the portal's error page (or the envelope), the same for unknown, used and expired. */
const linkInvalid = () =>
  new ApiError(400, 'link_invalid', 'This link cannot be used: it was used already, has expired or never existed. Ask for a new one.');

/** A pre-session form post (the visitor has no session yet): its fields once the double-submit token is checked. */
async function visitorForm(ctx: AppContext, deps: AppDeps): Promise<Record<string, string>> {
  const form = await readForm(ctx);
  assertCsrf(ctx, deps, form, readCookie(ctx, PRE_SESSION_CSRF_COOKIE));
  return form;
}

const tokenOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The links the portal mails (issue 27, H5): address verification (a session opens when the
 * workspace is usable) and password reset. A link's GET only shows a form, so a mail scanner that
 * fetches it uses nothing up; the form's POST uses the link.
 */
export function verificationRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/portal/verify', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    sendPage(ctx, 200, verifyPage({ csrfToken: preSessionToken(ctx, deps), token: tokenOf(ctx.query.token) }));
  });

  router.post('/portal/verify', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await visitorForm(ctx, deps);
    const outcome = await verifyEmail(mailingDeps(ctx, deps), { token: form.token ?? '', clientAddress: ctx.ip });
    if (!outcome.ok) throw linkInvalid();
    ctx.state.log.info({ user_id: outcome.userId, workspace_id: outcome.workspaceId }, 'email address verified');
    noteAction(ctx, { userId: outcome.userId });
    if ('awaitingApproval' in outcome) {
      if (wantsJson(ctx)) {
        ctx.body = { user_id: outcome.userId, workspace_id: outcome.workspaceId, awaiting_approval: true };
        return;
      }
      return sendPage(ctx, 200, awaitingApprovalPage());
    }
    startSession(ctx, deps, outcome.session, outcome.userId);
    changed(ctx, '/portal', 200, { user_id: outcome.userId, workspace_id: outcome.workspaceId, awaiting_approval: false });
  });

  router.post('/portal/verify/resend', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await visitorForm(ctx, deps);
    const email = form.email ?? '';
    const csrfToken = preSessionToken(ctx, deps);
    const outcome = await resendVerification(mailingDeps(ctx, deps), { email, clientAddress: ctx.ip });
    const page = (notice?: string) => checkInboxPage({ csrfToken, email, mailed: true, notice });
    if (!outcome.ok) return refuse(ctx, rateLimited(outcome.retryAfterSeconds), () => page());
    if (wantsJson(ctx)) {
      ctx.status = 202;
      ctx.body = { email_verification: 'requested' };
      return;
    }
    sendPage(ctx, 202, page('If this address still waits for confirmation, a new link is on its way; earlier links no longer work.'));
  });

  router.get('/portal/password/forgot', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    sendPage(ctx, 200, forgotPasswordPage({ csrfToken: preSessionToken(ctx, deps) }));
  });

  router.post('/portal/password/forgot', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await visitorForm(ctx, deps);
    const csrfToken = preSessionToken(ctx, deps);
    const outcome = await requestPasswordReset(mailingDeps(ctx, deps), { email: form.email ?? '', clientAddress: ctx.ip });
    if (!outcome.ok)
      return refuse(ctx, rateLimited(outcome.retryAfterSeconds), (shown) =>
        forgotPasswordPage({ csrfToken, email: form.email, error: shown }),
      );
    if (wantsJson(ctx)) {
      ctx.status = 202;
      ctx.body = { password_reset: 'requested' };
      return;
    }
    const notice = 'If an account uses this address, we mailed it a link to choose a new password. The link works for an hour, once.';
    sendPage(ctx, 202, forgotPasswordPage({ csrfToken, notice }));
  });

  router.get('/portal/password/reset', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const token = tokenOf(ctx.query.token);
    if (!(await usableAccountToken(deps.db, 'password_reset', token, deps.now()))) {
      ctx.state.log.info('password reset link opened but not usable');
      throw linkInvalid();
    }
    sendPage(ctx, 200, resetPasswordPage({ csrfToken: preSessionToken(ctx, deps), token }));
  });

  router.post('/portal/password/reset', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await visitorForm(ctx, deps);
    const token = form.token ?? '';
    const csrfToken = preSessionToken(ctx, deps);
    const outcome = await resetPassword(mailingDeps(ctx, deps), { token, password: form.password ?? '' });
    if (!outcome.ok) {
      if (outcome.refused === 'link_invalid') throw linkInvalid();
      return refuse(ctx, errors.validation(outcome.problems), (shown) => resetPasswordPage({ csrfToken, token, error: shown }));
    }
    noteAction(ctx, { userId: outcome.userId });
    changed(ctx, '/portal/login?reset=1', 200, { user_id: outcome.userId, sessions_ended: outcome.sessionsEnded });
  });
}
