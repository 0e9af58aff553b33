import type { Principal } from '../context';
import { isWorkspaceWideKey } from '../lineAccess';
import { hasScope } from '../../src/domain/keys/scopes';
import { tierAllows } from '../../src/domain/keys/tiers';
import type { Tool } from './tools';

/**
 * Whether the caller's key is offered a tool in tools/list: the checks its route makes of every
 * request before it looks at the arguments, by the same rules (the tier and the scope, as
 * api/middleware/auth.ts checks them; a line-bound or allow-listed key cannot reach a workspace-wide
 * operation, as api/lineAccess.ts refuses it). A hidden tool called anyway gets the route's refusal.
 */
export function offeredTo(principal: Pick<Principal, 'key'>): (tool: Tool) => boolean {
  const { key } = principal;
  return (tool) => {
    const { auth } = tool.route;
    if (auth.kind !== 'standard') return false;
    if (!tierAllows(key.permissions, auth.verb) || !hasScope(key.scopes, auth.scope)) return false;
    return !tool.workspaceWide || isWorkspaceWideKey(principal);
  };
}
