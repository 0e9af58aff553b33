import { revokeKeysAnsweredBy, type MembershipActor } from '../keys/memberKeys';
import type { Role } from '../keys/scopes';
import type { UseCaseDeps } from '../useCaseDeps';
import { memberToChange } from './memberChange';
import { markUserRemoved, revokeInvitationsIssuedBy } from './store';

export type RemovalOutcome =
  { ok: true; revokedKeys: number; revokedInvitations: number } | { ok: false; refused: 'not_found' | 'forbidden' | 'last_owner' };

/**
 * Removes a member from the actor's workspace: they can no longer sign in (sessions revoked,
 * password cleared), every key they answer for (theirs, and those they minted in the portal under
 * another's key) is revoked with what it minted, and every invitation they issued and is still
 * pending is revoked (issue 27, M13). The row stays, marked removed, since keys and audit entries
 * name it. The same rules as a role change apply.
 */
export async function removeMember(
  deps: UseCaseDeps,
  request: { actor: { id: string; workspace_id: string; role: Role }; userId: string; via: MembershipActor['via'] },
): Promise<RemovalOutcome> {
  const now = deps.now();
  return deps.db.transaction(async (trx) => {
    const found = await memberToChange(trx, { actor: request.actor, userId: request.userId });
    if (!found.ok) return found;
    const { target } = found;
    await markUserRemoved(trx, target.id, now);
    const revokedKeys = await revokeKeysAnsweredBy(trx, {
      member: { workspaceId: target.workspace_id, userId: target.id },
      actor: { userId: request.actor.id, via: request.via },
      now,
    });
    const revokedInvitations = await revokeInvitationsIssuedBy(trx, { userId: target.id, keepRoles: [], at: now });
    return { ok: true, revokedKeys, revokedInvitations } as const;
  });
}
