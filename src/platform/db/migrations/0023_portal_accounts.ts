import type { Knex } from 'knex';

/**
 * Portal accounts (issue 17): a user's password hash (scrypt, its parameters in the string; users
 * created by the CLI have none and cannot sign in) and the portal's server-side sessions, of which
 * only a hash of the cookie's token is kept.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.text('password_hash');
    t.timestamp('password_changed_at', { useTz: true });
  });
  await knex.schema.createTable('portal_sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    /** SHA-256 (hex) of the cookie's token; the token itself is never stored. */
    t.text('token_hash').notNullable().unique();
    t.uuid('user_id').notNullable().references('users.id');
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('client_address');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('portal_sessions');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('password_changed_at');
    t.dropColumn('password_hash');
  });
}
