import type { Knex } from 'knex';

/**
 * Delegation trees and stable spend identities on `api_keys` (issue #12: C2, M6, H4, L2).
 * - `ancestor_ids`: the minting chain, root first (parent keys, and the service key of an agent
 *   key); a GIN index answers "every key below X" for revocation and spend.
 * - `lineage_id`: the first key of the rotation chain; spend and caps count by it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.specificType('ancestor_ids', 'uuid[]').notNullable().defaultTo('{}');
    t.uuid('lineage_id');
  });
  await backfillKeyAncestry(knex);
  await knex.raw('alter table api_keys alter column lineage_id set not null');
  await knex.raw('create index api_keys_ancestor_ids on api_keys using gin (ancestor_ids)');
  await knex.raw('create index api_keys_lineage on api_keys (lineage_id)');
}

/**
 * Computes both columns from `parent_key_id`, `created_by_service_key_id` and `rotated_from`, and
 * revokes keys left active under a revoked ancestor (revocation did not cascade before this
 * migration). Keys minted through `/api/v1/auth/keys` before it recorded no minter and stay
 * roots. Idempotent.
 */
export async function backfillKeyAncestry(knex: Knex): Promise<void> {
  await knex.raw(`
    with recursive chain (id, ancestors) as (
      select id, array[]::uuid[] from api_keys where parent_key_id is null and created_by_service_key_id is null
      union all
      select k.id, c.ancestors || c.id from api_keys k join chain c on c.id = coalesce(k.parent_key_id, k.created_by_service_key_id)
    )
    update api_keys a set ancestor_ids = c.ancestors from chain c where a.id = c.id and a.ancestor_ids is distinct from c.ancestors`);
  await knex.raw(`
    with recursive lineage (id, root) as (
      select id, id from api_keys where rotated_from is null
      union all
      select k.id, l.root from api_keys k join lineage l on k.rotated_from = l.id
    )
    update api_keys a set lineage_id = l.root from lineage l where a.id = l.id and a.lineage_id is distinct from l.root`);
  await knex.raw(`
    update api_keys k set revoked_at = now()
     where k.revoked_at is null
       and exists (select 1 from api_keys a where a.id = any(k.ancestor_ids) and a.revoked_at is not null)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists api_keys_lineage');
  await knex.raw('drop index if exists api_keys_ancestor_ids');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('lineage_id');
    t.dropColumn('ancestor_ids');
  });
}
