import type { Knex } from 'knex';

/**
 * Issue 30 (item 2, "every action has an author"): one row per operator action in the portal (a change, a
 * sign-in, a sign-out, success or refusal), written by one middleware (api/portal/actionLog.ts). It names the
 * person (`user_id`, and the email as it was then, which is all a failed sign-in has), the address and user
 * agent the request came from, what was done (`action`, `target_id`, readable `details`: never a secret) and
 * how it ended. `environment` is null for workspace-wide actions (members, sign-ins, two-factor), which the
 * audit page shows in both environments. Read newest first per workspace.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('portal_actions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment');
    t.uuid('user_id').references('users.id');
    t.text('email').notNullable();
    t.text('action').notNullable();
    t.text('outcome').notNullable();
    t.text('refusal_code');
    t.text('target_id');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.text('client_address');
    t.text('user_agent');
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.raw("alter table portal_actions add constraint portal_actions_environment check (environment in ('test', 'live'))");
  await knex.raw("alter table portal_actions add constraint portal_actions_outcome check (outcome in ('succeeded', 'refused', 'failed'))");
  await knex.raw('create index portal_actions_by_workspace on portal_actions (workspace_id, created_at desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('portal_actions');
}
