import type { UseCaseDeps } from '../useCaseDeps';
import { approveWorkspaceRow, workspacesAwaitingApproval, type PendingWorkspace } from './accountTokens';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Workspaces signed up under SIGNUP_MODE=approval that no operator approved yet (the CLI's `workspace pending`). */
export async function pendingWorkspaces(deps: Pick<UseCaseDeps, 'db'>): Promise<PendingWorkspace[]> {
  return workspacesAwaitingApproval(deps.db);
}

/**
 * An operator approves a waiting workspace (the CLI's `workspace approve`): its owner can sign in
 * once their address is verified too. `not_pending` for an unknown workspace, one approved already,
 * or one that never waited.
 */
export async function approveWorkspace(
  deps: Pick<UseCaseDeps, 'db' | 'now'>,
  workspaceId: string,
): Promise<{ ok: true } | { ok: false; refused: 'not_pending' }> {
  if (!UUID.test(workspaceId) || !(await approveWorkspaceRow(deps.db, workspaceId, deps.now())))
    return { ok: false, refused: 'not_pending' };
  return { ok: true };
}
