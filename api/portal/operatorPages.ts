import type { AppContext, AppDeps } from '../context';
import { ROLE_PRESETS, type Scope } from '../../src/domain/keys/scopes';
import { assertCsrf, readForm } from './http';
import type { PageNav } from './layout';
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

/** A page's operator, or a redirect to the login page (then undefined). */
export async function operatorOrLogin(ctx: AppContext, deps: AppDeps, environment: unknown): Promise<Operator | undefined> {
  const operator = await signedInOperator(ctx, deps, typeof environment === 'string' ? environment : undefined);
  if (!operator) ctx.redirect('/portal/login');
  return operator;
}

/**
 * A signed-in form post: its fields and operator once the session's CSRF token is checked, or a
 * redirect to the login page (then undefined). Every portal change starts here.
 */
export async function operatorForm(
  ctx: AppContext,
  deps: AppDeps,
): Promise<{ form: Record<string, string>; operator: Operator } | undefined> {
  const form = await readForm(ctx);
  const operator = await operatorOrLogin(ctx, deps, form.env);
  if (!operator) return undefined;
  assertCsrf(ctx, deps, form, operator.csrfToken);
  return { form, operator };
}

/** Roles gate the portal as their presets gate the API: a page action needs the scope its API route needs. */
export function roleAllows(operator: Operator, scope: Scope): boolean {
  return ROLE_PRESETS[operator.user.role].includes(scope);
}

export function tenantOf(operator: Operator) {
  return { workspaceId: operator.user.workspace_id, environment: operator.environment };
}
