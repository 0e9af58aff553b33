import type { Knex } from 'knex';

/**
 * Issue 27, M13: the portal user who minted a key, when it differs from (or is not implied by) the
 * key's owner: a delegated token minted in the portal belongs to its parent's user, but removing or
 * demoting the member who minted it must reach it too, and the key list shows who minted it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.uuid('minted_by_user_id').references('users.id');
    t.index(['minted_by_user_id'], 'api_keys_minted_by_user_id_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['minted_by_user_id'], 'api_keys_minted_by_user_id_idx');
    t.dropColumn('minted_by_user_id');
  });
}
