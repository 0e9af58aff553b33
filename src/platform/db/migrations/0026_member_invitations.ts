import type { Knex } from 'knex';

/**
 * Member invitations (issue 17): an owner or admin invites an address with a role; only the
 * SHA-256 of the link's random token is kept. Single use (accepted_at), revocable (revoked_at),
 * expiring (expires_at). A removed member's row stays (keys, sessions and audit entries name it)
 * with `removed_at` set.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.timestamp('removed_at', { useTz: true });
  });
  await knex.schema.createTable('member_invitations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('email').notNullable();
    t.text('role').notNullable().checkIn(['owner', 'admin', 'member']);
    /** SHA-256 (hex) of the link's token; the token itself is never stored. */
    t.text('token_hash').notNullable().unique();
    t.uuid('invited_by').references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['workspace_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('member_invitations');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('removed_at');
  });
}
