import type { Knex } from 'knex';

/**
 * Issue 27, two-factor sign-in (docs/decisions.md "Two-factor sign-in (issue 27)"):
 * - a user's TOTP secret, sealed with SECRETS_KEY (src/platform/crypto/secretBox.ts), first as
 *   `totp_pending_sealed` while enrolment waits for a code, then as `totp_secret_sealed` once
 *   confirmed; `totp_last_step` is the last accepted time step, so a code is good once;
 * - recovery codes, SHA-256 only (80 random bits each), each used once;
 * - sign-in challenges: a password checked, a second factor awaited (token SHA-256 only);
 * - the owner's switch that every member of the workspace must use a second factor.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.text('totp_pending_sealed');
    t.text('totp_secret_sealed');
    t.timestamp('totp_enabled_at', { useTz: true });
    t.bigInteger('totp_last_step');
  });
  await knex.schema.alterTable('workspaces', (t) => {
    t.boolean('require_two_factor').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('recovery_codes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id');
    t.text('code_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.unique(['user_id', 'code_hash']);
  });
  await knex.schema.createTable('sign_in_challenges', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('token_hash').notNullable().unique();
    t.uuid('user_id').notNullable().references('users.id');
    t.text('client_address');
    t.integer('failures').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sign_in_challenges');
  await knex.schema.dropTableIfExists('recovery_codes');
  await knex.schema.alterTable('workspaces', (t) => {
    t.dropColumn('require_two_factor');
  });
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('totp_pending_sealed');
    t.dropColumn('totp_secret_sealed');
    t.dropColumn('totp_enabled_at');
    t.dropColumn('totp_last_step');
  });
}
