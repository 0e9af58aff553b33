import type { Knex } from 'knex';

/**
 * Issue 27, M12/M13.
 * - `api_keys.minted_by_user_id`: the portal user who minted a key when it differs from (or is not
 *   implied by) the key's owner: a delegated token minted in the portal belongs to its parent's user,
 *   but removing or demoting the member who minted it must reach it too, and the key list shows who.
 * - What a demotion or removal now does (src/domain/keys/memberKeys.ts) is applied once to what
 *   earlier ones left behind (`applyEarlierMembershipChanges`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.uuid('minted_by_user_id').references('users.id');
    t.index(['minted_by_user_id'], 'api_keys_minted_by_user_id_idx');
  });
  await applyEarlierMembershipChanges(knex, new Date());
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['minted_by_user_id'], 'api_keys_minted_by_user_id_idx');
    t.dropColumn('minted_by_user_id');
  });
}

/** The member preset as of this migration (src/domain/keys/scopes.ts), frozen here as migrations are. */
const MEMBER_SCOPES = [
  'calls:create',
  'calls:control',
  'messages:create',
  'numbers:read',
  'connections:read',
  'consent:write',
  'billing:read',
  'read',
];

/**
 * Before issue 27 a demotion left keys as they were. A member's keys (and their descendants) that
 * hold scopes beyond the member preset can only come from such a demotion (a member mints within
 * the preset): they are narrowed to it, and one left with no scope is revoked with its subtree,
 * each with its event, as a demotion now does. Pending invitations whose inviter was removed, or
 * may no longer give that role, are revoked. Returns what it changed.
 */
export async function applyEarlierMembershipChanges(
  knex: Knex,
  at: Date,
  /** Only this workspace's keys and invitations (all when absent). */
  workspaceId?: string,
): Promise<{ narrowed: number; revoked: number; invitations: number }> {
  const metadata = { reason: 'member_demoted', via: 'migration_0036' };
  const narrowed = await knex.raw<{ rows: Array<{ id: string; emptied: boolean }> }>(
    `with roots as (
       select k.id from api_keys k join users u on u.id = k.user_id
        where u.role = 'member' and u.removed_at is null and k.revoked_at is null and k.kind = 'standard'
          and (cast(:workspaceId as uuid) is null or k.workspace_id = cast(:workspaceId as uuid))
     ), targets as (
       select k.id, k.scopes from api_keys k
        where k.revoked_at is null and k.kind = 'standard'
          and (k.id in (select id from roots) or k.ancestor_ids && array(select id from roots))
          and not (k.scopes <@ cast(:preset as text[]))
     ), changed as (
       update api_keys k set scopes = array(select s from unnest(k.scopes) s where s = any(cast(:preset as text[])))
         from targets t where k.id = t.id
       returning k.id, k.workspace_id, k.environment, k.line_id, k.key_prefix, k.created_by_service_key_id, t.scopes as scopes_before, k.scopes
     ), recorded as (
       insert into compliance_events (workspace_id, environment, event_type, actor_key_id, line_id, metadata, created_at)
       select workspace_id, environment,
              case when created_by_service_key_id is null then 'scoped_key_updated' else 'agent_key_updated' end, null, line_id,
              jsonb_build_object('key_id', id, 'key_prefix', key_prefix, 'scopes_before', scopes_before, 'scopes', scopes) || cast(:metadata as jsonb),
              :at
         from changed where cardinality(scopes) > 0
     )
     select id, cardinality(scopes) = 0 as emptied from changed`,
    { preset: MEMBER_SCOPES, metadata: JSON.stringify(metadata), at, workspaceId: workspaceId ?? null },
  );
  const emptied = narrowed.rows.filter((row) => row.emptied).map((row) => row.id);
  let revoked = 0;
  if (emptied.length > 0) {
    const rows = await knex.raw<{ rows: unknown[] }>(
      `with gone as (
         update api_keys set revoked_at = :at
          where revoked_at is null and (id = any(cast(:ids as uuid[])) or ancestor_ids && cast(:ids as uuid[]))
         returning id, workspace_id, environment, line_id, key_prefix, kind, created_by_service_key_id
       )
       insert into compliance_events (workspace_id, environment, event_type, actor_key_id, line_id, metadata, created_at)
       select workspace_id, environment,
              case when kind = 'service' then 'service_key_revoked'
                   when created_by_service_key_id is not null then 'agent_key_revoked' else 'scoped_key_revoked' end,
              null, line_id, jsonb_build_object('key_id', id, 'key_prefix', key_prefix) || cast(:metadata as jsonb), :at
         from gone
       returning id`,
      { ids: emptied, metadata: JSON.stringify(metadata), at },
    );
    revoked = rows.rows.length;
  }
  // Pending, and issued by someone removed since, or by a role that may not give it (a member none, an admin no owner).
  const stale = knex('member_invitations')
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .andWhere((q) =>
      q
        .whereIn('invited_by', knex('users').whereNotNull('removed_at').orWhere({ role: 'member' }).select('id'))
        .orWhere((owner) => owner.where({ role: 'owner' }).whereIn('invited_by', knex('users').where({ role: 'admin' }).select('id'))),
    );
  if (workspaceId) stale.andWhere({ workspace_id: workspaceId });
  const invitations = await stale.update({ revoked_at: at });
  return { narrowed: narrowed.rows.length - emptied.length, revoked, invitations };
}
