/**
 * The keys a member answers for (issue 27, M12/M13): the keys of their user, the keys they minted
 * in the portal under another's key (`minted_by_user_id`), and every descendant of those. A
 * demotion narrows them to the new role's preset; a removal revokes them. Both run inside the
 * membership change's transaction and announce the changed keys to every API's key cache.
 */
import type { Knex } from 'knex';
import { recordComplianceEvent, type KeyLifecycleEvent } from '../compliance/events';
import { lockKeys, revocationEvent, revokeWithDescendants } from './ancestry';
import { dropChangedKeysHere } from './cache';
import { ROLE_PRESETS, type Role } from './scopes';
import type { ApiKeyRow } from './store';

/** Who made the membership change, as every event it causes records it (L21). */
export interface MembershipActor {
  userId: string;
  via: 'portal' | 'cli';
}

interface Member {
  workspaceId: string;
  userId: string;
}

/** The live keys `member` answers for, parents before their descendants. */
export async function keysAnsweredBy(trx: Knex.Transaction, member: Member): Promise<ApiKeyRow[]> {
  const roots = () =>
    trx('api_keys')
      .where({ workspace_id: member.workspaceId })
      .andWhere((w) => w.where({ user_id: member.userId }).orWhere({ minted_by_user_id: member.userId }))
      .select('id');
  return trx<ApiKeyRow>('api_keys')
    .where({ workspace_id: member.workspaceId })
    .whereNull('revoked_at')
    .andWhere((w) => w.whereIn('id', roots()).orWhereRaw('ancestor_ids && array(?)::uuid[]', [roots()]))
    .orderByRaw('cardinality(ancestor_ids), id');
}

/** Narrowing a key's scopes is its update: an agent key's own event, else the scoped key's. */
function updateEvent(key: ApiKeyRow): KeyLifecycleEvent {
  return key.created_by_service_key_id ? 'agent_key_updated' : 'scoped_key_updated';
}

/**
 * Narrows every key `member` answers for to `role`'s preset: each keeps the scopes the role still
 * holds, and one left with none is revoked with its subtree. Service keys hold no scopes of their
 * own (their user's preset is applied at use). Returns the ids narrowed and revoked.
 */
export async function narrowKeysToRole(
  trx: Knex.Transaction,
  input: { member: Member; role: Role; actor: MembershipActor; now: Date },
): Promise<{ narrowed: string[]; revoked: string[] }> {
  const preset = ROLE_PRESETS[input.role];
  const keys = await keysAnsweredBy(trx, input.member);
  await lockKeys(trx, { ids: keys.map((key) => key.id), mode: 'update' });
  const metadata = { via: input.actor.via, user_id: input.actor.userId, member_user_id: input.member.userId, reason: 'member_demoted' };
  const narrowed: string[] = [];
  const revoked = new Set<string>();
  for (const key of keys) {
    if (key.kind === 'service' || revoked.has(key.id)) continue;
    const kept = key.scopes.filter((scope) => (preset as readonly string[]).includes(scope));
    if (kept.length === key.scopes.length) continue;
    if (kept.length === 0) {
      const { descendants } = await revokeWithDescendants(trx, {
        key,
        actorKeyId: null,
        now: input.now,
        targetEvent: revocationEvent(key),
        metadata,
      });
      for (const id of [key.id, ...descendants.map((d) => d.id)]) revoked.add(id);
      continue;
    }
    await trx('api_keys').where({ id: key.id }).update({ scopes: kept });
    await recordComplianceEvent(trx, {
      workspaceId: key.workspace_id,
      environment: key.environment,
      eventType: updateEvent(key),
      actorKeyId: null,
      lineId: key.line_id,
      metadata: { key_id: key.id, key_prefix: key.key_prefix, scopes_before: key.scopes, scopes: kept, ...metadata },
      at: input.now,
    });
    narrowed.push(key.id);
  }
  dropChangedKeysHere(trx, narrowed);
  return { narrowed, revoked: [...revoked] };
}

/** Revokes every key `member` answers for, each with its subtree. Returns how many the member held. */
export async function revokeKeysAnsweredBy(
  trx: Knex.Transaction,
  input: { member: Member; actor: MembershipActor; now: Date },
): Promise<number> {
  const keys = await keysAnsweredBy(trx, input.member);
  const metadata = { via: input.actor.via, user_id: input.actor.userId, member_user_id: input.member.userId, reason: 'member_removed' };
  for (const key of keys)
    await revokeWithDescendants(trx, { key, actorKeyId: null, now: input.now, targetEvent: revocationEvent(key), metadata });
  return keys.length;
}
