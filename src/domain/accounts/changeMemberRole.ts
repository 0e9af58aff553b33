import { narrowKeysToRole, type MembershipActor } from '../keys/memberKeys';
import type { Role } from '../keys/scopes';
import type { UseCaseDeps } from '../useCaseDeps';
import { memberToChange } from './memberChange';
import { rolesGrantableBy } from './rules';
import { revokeInvitationsIssuedBy, setRole } from './store';

export type RoleChangeOutcome =
  | { ok: true; narrowedKeys: number; revokedKeys: number; revokedInvitations: number }
  | { ok: false; refused: 'not_found' | 'forbidden' | 'last_owner' };

/**
 * Gives a member of the actor's workspace another role. The owner count is read under a lock on the
 * workspace's owners, so two owners demoting each other at once cannot leave none. In the same
 * transaction the member's keys are narrowed to the new role's preset (issue 27, M12) and the
 * pending invitations they issued for a role they may no longer give are revoked.
 */
export async function changeMemberRole(
  deps: UseCaseDeps,
  request: { actor: { id: string; workspace_id: string; role: Role }; userId: string; role: Role; via: MembershipActor['via'] },
): Promise<RoleChangeOutcome> {
  const now = deps.now();
  return deps.db.transaction(async (trx) => {
    const found = await memberToChange(trx, { actor: request.actor, userId: request.userId, newRole: request.role });
    if (!found.ok) return found;
    const { target } = found;
    await setRole(trx, target.id, request.role);
    const keys = await narrowKeysToRole(trx, {
      member: { workspaceId: target.workspace_id, userId: target.id },
      role: request.role,
      actor: { userId: request.actor.id, via: request.via },
      now,
    });
    const revokedInvitations = await revokeInvitationsIssuedBy(trx, {
      userId: target.id,
      keepRoles: rolesGrantableBy(request.role),
      at: now,
    });
    return { ok: true, narrowedKeys: keys.narrowed.length, revokedKeys: keys.revoked.length, revokedInvitations } as const;
  });
}
