import type { Principal } from './context';
import { ApiError } from './errors';
import { restrictedLineIds } from '../src/keys/grants';

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
  if (principal.key.line_id) {
    throw new ApiError(403, 'agent_scope_error', 'This key is bound to another line', [{ field: 'line_id', message: principal.key.line_id }]);
  }
  throw new ApiError(403, 'forbidden', "This line is not in the key's number allow-list", [{ field: 'line_id', message: lineId }]);
}

/** Provisioning a new number: a key restricted to particular lines cannot add lines. */
export function assertMayAddLines(principal: Principal): void {
  if (principal.key.line_id) {
    throw new ApiError(403, 'agent_scope_error', 'A line-scoped key cannot create lines', [{ field: 'line_id', message: principal.key.line_id }]);
  }
  if (principal.key.grant_numbers) {
    throw new ApiError(403, 'forbidden', 'A key limited to a number allow-list cannot provision new numbers', [{ field: 'grant.resources.numbers', message: 'restricted' }]);
  }
}
