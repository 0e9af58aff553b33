import type { Role } from '../keys/scopes';
import { revocationEvent, revokeWithDescendants } from '../keys/ancestry';
import type { ApiKeyRow } from '../keys/store';
import type { UseCaseDeps } from '../useCaseDeps';
import { memberChangeRefusal } from './rules';
import { countOwners, findAccountUser, markUserRemoved } from './store';

export type RemovalOutcome = { ok: true; revokedKeys: number } | { ok: false; refused: 'not_found' | 'forbidden' | 'last_owner' };

/**
 * Removes a member from the actor's workspace: they can no longer sign in (sessions revoked,
 * password cleared) and every key minted for them is revoked with what it minted. The row stays,
 * marked removed, since keys and audit entries name it. The same rules as a role change apply.
 */
export async function removeMember(
  deps: UseCaseDeps,
  request: { actor: { workspace_id: string; role: Role }; userId: string },
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
    const keys = await trx<ApiKeyRow>('api_keys').where({ user_id: target.id }).whereNull('revoked_at');
    for (const key of keys)
      await revokeWithDescendants(trx, {
        key,
        actorKeyId: null,
        now,
        targetEvent: revocationEvent(key),
        metadata: { via: 'member_removed' },
      });
    return { ok: true, revokedKeys: keys.length } as const;
  });
}
