import { revokeKeysAnsweredBy, type MembershipActor } from '../keys/memberKeys';
import type { Role } from '../keys/scopes';
import type { UseCaseDeps } from '../useCaseDeps';
import { memberChangeRefusal } from './rules';
import { countOwners, findAccountUser, markUserRemoved, revokeInvitationsIssuedBy } from './store';

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
    const target = await findAccountUser(trx, request.userId);
    if (!target || target.workspace_id !== request.actor.workspace_id) return { ok: false, refused: 'not_found' } as const;
    await trx('users').where({ workspace_id: target.workspace_id, role: 'owner' }).forUpdate().select('id');
    const refusal = memberChangeRefusal({
      actorRole: request.actor.role,
      targetRole: target.role,
      ownerCount: await countOwners(trx, target.workspace_id),
    });
    if (refusal) return { ok: false, refused: refusal } as const;
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
