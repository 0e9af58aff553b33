import { countCallsSince } from '../calls/store';
import { hasMcpUse, hasUsableRegularKey } from '../keys/store';
import { hasUnreleasedLine } from '../lines/store';
import type { Environment } from '../keys/format';
import type { UseCaseDeps } from '../useCaseDeps';

/** The four steps from a new workspace to a first call, in order (issue 30). */
export const GETTING_STARTED_STEPS = ['line', 'key', 'mcp', 'call'] as const;
export type GettingStartedStep = (typeof GETTING_STARTED_STEPS)[number];

export type GettingStarted = Record<GettingStartedStep, boolean>;

/**
 * Which steps one environment of a workspace has done, each read from what exists (never from a flag that could
 * disagree with it): a line not released; a regular key that still works; an agent connected by MCP (any key of
 * the environment, or an OAuth token standing for one, made an authenticated request to /mcp); a call, of any outcome.
 */
export async function gettingStarted(
  deps: UseCaseDeps,
  tenant: { workspaceId: string; environment: Environment },
): Promise<GettingStarted> {
  const [line, key, mcp, calls] = await Promise.all([
    hasUnreleasedLine(deps.db, tenant),
    hasUsableRegularKey(deps.db, tenant, deps.now()),
    hasMcpUse(deps.db, tenant),
    countCallsSince(deps.db, tenant, new Date(0)),
  ]);
  return { line, key, mcp, call: calls > 0 };
}
