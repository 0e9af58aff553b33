import type { Knex } from 'knex';
import type { Role } from '../keys/scopes';
import { memberChangeRefusal, type MemberChangeRefusal } from './rules';
import { countOwnersLocked, findAccountUser, type AccountUser } from './store';

/**
 * The member a role change or a removal acts on, in the actor's workspace, checked against the membership rules with
 * the workspace's owners locked: two owners demoting or removing each other at once cannot leave none.
 */
export async function memberToChange(
  trx: Knex.Transaction,
  change: { actor: { workspace_id: string; role: Role }; userId: string; newRole?: Role },
): Promise<{ ok: true; target: AccountUser } | { ok: false; refused: 'not_found' | MemberChangeRefusal }> {
  const target = await findAccountUser(trx, change.userId);
  if (!target || target.workspace_id !== change.actor.workspace_id) return { ok: false, refused: 'not_found' };
  const refusal = memberChangeRefusal({
    actorRole: change.actor.role,
    targetRole: target.role,
    newRole: change.newRole,
    ownerCount: await countOwnersLocked(trx, target.workspace_id),
  });
  return refusal ? { ok: false, refused: refusal } : { ok: true, target };
}
