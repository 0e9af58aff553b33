import type { AppDeps, Principal } from './context';
import { ApiError, errors } from './errors';
import { keyRestrictions, restrictedLineIds } from '../src/domain/keys/grants';
import { findUser } from '../src/domain/workspaces/service';

/**
 * Which lines a key may act on. A line-scoped agent key (line_id set) is held to its line
 * (403 `agent_scope_error`, naming the bound line); a grant with a number allow-list is held
 * to those lines (403 `forbidden`). Lists are filtered instead of refused.
 */
export function allowedLineIds(principal: Principal): readonly string[] | undefined {
  return restrictedLineIds(principal.key);
}

export function assertLineAllowed(principal: Principal, lineId: string): void {
  const allowed = allowedLineIds(principal);
  if (!allowed || allowed.includes(lineId)) return;
  throw lineNotAllowedError(principal, lineId);
}

/** The refusal of a line the key may not act on (see above). */
export function lineNotAllowedError(principal: { key: { line_id: string | null } }, lineId: string): ApiError {
  if (principal.key.line_id) {
    return new ApiError(403, 'agent_scope_error', 'This key is bound to another line', [
      { field: 'line_id', message: principal.key.line_id },
    ]);
  }
  return new ApiError(403, 'forbidden', "This line is not in the key's number allow-list", [{ field: 'line_id', message: lineId }]);
}

/** Whether the key may act on every line of the workspace: neither bound to a line nor held to an allow-list. */
export function isWorkspaceWideKey(principal: Pick<Principal, 'key'>): boolean {
  return !principal.key.line_id && !principal.key.grant_numbers;
}

/**
 * A write that reaches every line of the workspace (a new line, a workspace-wide disclosure):
 * refused to a key restricted to particular lines, with the same codes as a single line.
 */
export function assertWorkspaceWide(principal: Principal, action: { lineScoped: string; allowListed: string }): void {
  if (isWorkspaceWideKey(principal)) return;
  if (principal.key.line_id) {
    throw new ApiError(403, 'agent_scope_error', action.lineScoped, [{ field: 'line_id', message: principal.key.line_id }]);
  }
  if (principal.key.grant_numbers) {
    throw new ApiError(403, 'forbidden', action.allowListed, [{ field: 'grant.resources.numbers', message: 'restricted' }]);
  }
}

/** Provisioning a new number: a key restricted to particular lines cannot add lines. */
export function assertMayAddLines(principal: Principal): void {
  assertWorkspaceWide(principal, {
    lineScoped: 'A line-scoped key cannot create lines',
    allowListed: 'A key limited to a number allow-list cannot provision new numbers',
  });
}

/**
 * Workspace-wide money and routing (settings): only an unrestricted key of an owner or admin,
 * i.e. one an operator made for them, with no parent, line, allow-list, cap or lower tier.
 * 403 `forbidden`, one detail per restriction.
 */
export async function assertUnrestrictedAdminKey(deps: AppDeps, principal: Principal, what: string): Promise<void> {
  const user = await findUser(deps.db, principal.userId);
  const restrictions = keyRestrictions(principal.key);
  if (user && user.role !== 'owner' && user.role !== 'admin') restrictions.unshift({ field: 'role', message: user.role });
  if (!user) throw errors.invalidApiKey();
  if (restrictions.length > 0) throw errors.forbidden(`Only an unrestricted key of an owner or admin may change ${what}`, restrictions);
}
