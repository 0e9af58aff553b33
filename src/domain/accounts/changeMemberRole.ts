import type { Role } from '../keys/scopes';
import type { UseCaseDeps } from '../useCaseDeps';
import { memberChangeRefusal } from './rules';
import { countOwners, findAccountUser, setRole } from './store';

export type RoleChangeOutcome = { ok: true } | { ok: false; refused: 'not_found' | 'forbidden' | 'last_owner' };

/**
 * Gives a member of the actor's workspace another role. The owner count is read under a lock on the
 * workspace's owners, so two owners demoting each other at once cannot leave none.
 */
export async function changeMemberRole(
  deps: UseCaseDeps,
  request: { actor: { workspace_id: string; role: Role }; userId: string; role: Role },
): Promise<RoleChangeOutcome> {
  return deps.db.transaction(async (trx) => {
    const target = await findAccountUser(trx, request.userId);
    if (!target || target.workspace_id !== request.actor.workspace_id) return { ok: false, refused: 'not_found' } as const;
    await trx('users').where({ workspace_id: target.workspace_id, role: 'owner' }).forUpdate().select('id');
    const refusal = memberChangeRefusal({
      actorRole: request.actor.role,
      targetRole: target.role,
      newRole: request.role,
      ownerCount: await countOwners(trx, target.workspace_id),
    });
    if (refusal) return { ok: false, refused: refusal } as const;
    await setRole(trx, target.id, request.role);
    return { ok: true } as const;
  });
}
