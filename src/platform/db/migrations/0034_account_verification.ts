import type { Knex } from 'knex';

/**
 * Issue 27, H5 (accounts that cannot be farmed): a user's address is verified before their
 * workspace is usable (`users.email_verified_at`; every user from before this migration was made by
 * an operator or an invitation and counts as verified), a workspace signed up under
 * `SIGNUP_MODE=approval` waits for an operator (`workspaces.approval_requested_at` set,
 * `approved_at` null), and the single-use links mailed for address verification and password
 * resets are stored only as their SHA-256 (`account_tokens`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.timestamp('email_verified_at', { useTz: true });
  });
  await knex('users').update({ email_verified_at: knex.ref('created_at') });
  await knex.schema.alterTable('workspaces', (t) => {
    t.timestamp('approval_requested_at', { useTz: true });
    t.timestamp('approved_at', { useTz: true });
  });
  await knex.schema.createTable('account_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id');
    t.text('purpose').notNullable().checkIn(['email_verification', 'password_reset']);
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['user_id', 'purpose']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('account_tokens');
  await knex.schema.alterTable('workspaces', (t) => {
    t.dropColumn('approval_requested_at');
    t.dropColumn('approved_at');
  });
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('email_verified_at');
  });
}
