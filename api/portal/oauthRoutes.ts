import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { CONSENT_PATH } from '../oauth/provider';
import { consentToRequest, declineRequest, findOpenRequest, type OpenRequest } from '../../src/domain/oauth/authorize';
import { formActionSourceOf } from '../../src/domain/oauth/rules';
import { isScope, type Scope } from '../../src/domain/keys/scopes';
import { pageContentSecurityPolicy } from '../contentSecurityPolicy';
import { refuse } from './answer';
import { delegationChoices, delegationOf, mintingAnswered } from './apiKeyRoutes';
import { assertCsrf, readForm, sendPage, wantsJson } from './http';
import { consentPage } from './pages/oauthConsent';
import { signInThenReturn } from './returnTo';
import { signedInOperator, type Operator } from './visitor';

const requestGone = () =>
  new ApiError(
    404,
    'authorization_request_not_found',
    'This sign-in request has expired or was already answered: connect again from your MCP host',
  );

/**
 * The consent page's CSP lets its form's answer redirect to the client's redirect URI (browsers
 * apply `form-action` to the redirects of a form post), and nowhere else.
 */
function allowRedirectTo(ctx: AppContext, redirectUri: string): void {
  ctx.set(
    'Content-Security-Policy',
    pageContentSecurityPolicy(["style-src 'self'", "img-src 'self' data:"]).replace(
      "form-action 'self'",
      `form-action 'self' ${formActionSourceOf(redirectUri)}`,
    ),
  );
}

/**
 * The person's side of an OAuth authorization (issue 29): the portal's sign-in (second factor
 * included) and then this consent page, which mints a delegated token under the `/api-tokens` rules
 * (./apiKeyRoutes.ts `delegationOf`) and sends the browser back to the client with a code.
 */
export function oauthRoutes(router: Router<AppState>, deps: AppDeps): void {
  const render = async (
    ctx: AppContext,
    operator: Operator,
    open: Extract<OpenRequest, { ok: true }>,
    requestId: string,
    form?: Record<string, string>,
  ) => {
    const choices = await delegationChoices(deps, operator);
    const requested = open.request.scopes.filter((scope): scope is Scope => isScope(scope) && choices.scopes.includes(scope));
    const destination = new URL(open.request.redirect_uri);
    allowRedirectTo(ctx, open.request.redirect_uri);
    return (shown?: Parameters<typeof consentPage>[1]['error']) =>
      consentPage(
        { email: operator.user.email, environment: operator.environment, csrfToken: operator.csrfToken },
        {
          requestId,
          clientName: open.client.client_name,
          clientDestination:
            destination.protocol === 'http:' || destination.protocol === 'https:' ? destination.host : destination.protocol,
          ...choices,
          presetScopes: requested.length > 0 ? requested : choices.scopes.filter((scope) => scope !== 'keys:admin'),
          form,
          error: shown,
        },
      );
  };

  router.get(CONSENT_PATH, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await signedInOperator(ctx, deps, typeof ctx.query.env === 'string' ? ctx.query.env : undefined);
    if (!operator) return signInThenReturn(ctx, deps, ctx.url);
    const requestId = String(ctx.query.request ?? '');
    const open = await findOpenRequest(deps, requestId);
    if (!open.ok) throw requestGone();
    sendPage(ctx, 200, (await render(ctx, operator, open, requestId))());
  });

  router.post(CONSENT_PATH, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const operator = await signedInOperator(ctx, deps, form.env);
    if (!operator) throw new ApiError(401, 'unauthorized', 'Sign in again, then connect again from your MCP host');
    assertCsrf(ctx, deps, form, operator.csrfToken);
    const requestId = form.request ?? '';
    if (form.decision === 'deny') {
      const declined = await declineRequest(deps, requestId);
      if (!declined.ok || !declined.redirectTo) throw requestGone();
      ctx.state.log.info({ client_id: declined.client.client_id, user_id: operator.user.id }, 'oauth authorization declined');
      return answerRedirect(ctx, declined.redirectTo);
    }
    const open = await findOpenRequest(deps, requestId);
    if (!open.ok) throw requestGone();
    const again = await render(ctx, operator, open, requestId, form);
    try {
      const delegation = await delegationOf(deps, operator, form);
      const consent = await mintingAnswered(() => consentToRequest(deps, { requestId, userId: operator.user.id, ...delegation }));
      if (!consent.ok) throw requestGone();
      ctx.state.log.info(
        { client_id: open.client.client_id, grant_id: consent.grantId, key_id: consent.key.id, user_id: operator.user.id },
        'oauth authorization granted',
      );
      answerRedirect(ctx, consent.redirectTo);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refuse(ctx, err, again);
    }
  });
}

/** The browser goes back to the client (303); a script asking for JSON gets the URL instead. */
function answerRedirect(ctx: AppContext, location: string): void {
  if (wantsJson(ctx)) {
    ctx.body = { redirect_to: location };
    return;
  }
  ctx.status = 303;
  ctx.redirect(location);
}
