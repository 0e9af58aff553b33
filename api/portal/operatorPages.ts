import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { ROLE_PRESETS, type Scope } from '../../src/domain/keys/scopes';
import type { OutboundActor } from '../../src/domain/outbound/preflight';
import { refuse } from './answer';
import type { Html } from './html';
import { spendPortalLimit, type PortalLimit } from './limits';
import { assertCsrf, readForm } from './http';
import type { PageNav, ShownError } from './layout';
import { signInThenReturn } from './returnTo';
import { signedInOperator, type Operator } from './visitor';

/** What every signed-in page needs: its operator (or the login page), its navigation, its tenant and role checks. */

export function navOf(operator: Operator, current: string): PageNav {
  return {
    email: operator.user.email,
    environment: operator.environment,
    csrfToken: operator.csrfToken,
    current,
    managesMembers: roleAllows(operator, MEMBERS_SCOPE),
  };
}

/** Managing members is administering the workspace: the scope its API counterpart needs (keys:admin; owners and admins). */
export const MEMBERS_SCOPE: Scope = 'keys:admin';

/** A page's operator, or a redirect to the login page that comes back to this page once signed in (then undefined). */
export async function operatorOrLogin(ctx: AppContext, deps: AppDeps, environment: unknown): Promise<Operator | undefined> {
  const operator = await signedInOperator(ctx, deps, typeof environment === 'string' ? environment : undefined);
  if (!operator) signInThenReturn(ctx, deps, ctx.url);
  return operator;
}

/**
 * A signed-in form post: its fields and operator once the session's CSRF token is checked, or a
 * redirect to the login page (then undefined). Every portal change starts here.
 */
export async function operatorForm(ctx: AppContext, deps: AppDeps, limitBytes?: number): Promise<SignedInForm | undefined> {
  const form = await readForm(ctx, limitBytes);
  const operator = await operatorOrLogin(ctx, deps, form.env);
  if (!operator) return undefined;
  assertCsrf(ctx, deps, form, operator.csrfToken);
  return { form, operator };
}

export interface SignedInForm {
  form: Record<string, string>;
  operator: Operator;
}

/** Serves a signed-in operator's form post at `path`: `operatorForm` answers a visitor and a bad CSRF token first. */
export function postOperatorForm(
  router: Router<AppState>,
  path: string,
  deps: AppDeps,
  handle: (ctx: AppContext, signedIn: SignedInForm) => Promise<unknown>,
): void {
  router.post(path, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const signedIn = await operatorForm(ctx, deps);
    if (signedIn) await handle(ctx, signedIn);
  });
}

/** Serves a signed-in operator's page at `path` (`?env=` picks the environment); a visitor is sent to sign in. */
export function getOperatorPage(
  router: Router<AppState>,
  path: string,
  deps: AppDeps,
  handle: (ctx: AppContext, operator: Operator) => Promise<unknown>,
): void {
  router.get(path, async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (operator) await handle(ctx, operator);
  });
}

/** Roles gate the portal as their presets gate the API: a page action needs the scope its API route needs. */
export function roleAllows(operator: Operator, scope: Scope): boolean {
  return ROLE_PRESETS[operator.user.role].includes(scope);
}

export function tenantOf(operator: Operator) {
  return { workspaceId: operator.user.workspace_id, environment: operator.environment };
}

/** An operator acting as the API's outbound use cases' actor: their tenant and user, with no key (unrestricted, as an inbound call). */
export function actorOf(operator: Operator): OutboundActor {
  return { ...tenantOf(operator), userId: operator.user.id, key: { id: null, line_id: null, grant_numbers: null } };
}

/** A signed-in change whose refusals show its page again, with the error and what was typed. */
export interface GatedFormPost {
  path: string;
  /** The scope the change's API counterpart needs. */
  scope: Scope;
  /** What a role without `scope` is told (403). */
  refusal: string;
  /** The row of the limits table its API counterpart spends (L15), when it has one. */
  rateLimit?: PortalLimit;
  /** Makes the change and answers; an ApiError it throws is a refusal. */
  act: (ctx: AppContext, operator: Operator, form: Record<string, string>) => Promise<void>;
  /** The page again, with `form` as typed and the refusal shown. */
  pageAgain: (operator: Operator, form: Record<string, string>) => Promise<(shown: ShownError) => Html>;
}

export function gatedFormPost(router: Router<AppState>, deps: AppDeps, post: GatedFormPost): void {
  postOperatorForm(router, post.path, deps, async (ctx, { form, operator }) => {
    try {
      if (!roleAllows(operator, post.scope)) throw errors.forbidden(post.refusal);
      const limited = post.rateLimit && (await spendPortalLimit(ctx, deps, operator, post.rateLimit));
      if (limited) throw limited;
      await post.act(ctx, operator, form);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refuse(ctx, err, await post.pageAgain(operator, form));
    }
  });
}
