import type { Knex } from 'knex';

/**
 * Issue 31 (docs/decisions/campaigns.md, "Campaign events and resuming when funds return"):
 * `transitions` counts a campaign's status changes, so each change's `campaign.*` event has an id
 * derived from it (recorded once, in the change's own transaction); `paused_need_cents` is what the
 * refused reservation asked for when the campaign paused itself for funds, what must be available again
 * before it resumes by itself.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaigns', (t) => {
    t.integer('transitions').notNullable().defaultTo(0);
    t.bigInteger('paused_need_cents');
  });
  // The paused campaigns funds may lift, found per tenant when funds return.
  await knex.raw(
    "create index campaigns_paused_for_funds on campaigns (workspace_id, environment) where status = 'paused' and paused_reason in ('insufficient_credits', 'agent_cap_exceeded')",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists campaigns_paused_for_funds');
  await knex.schema.alterTable('campaigns', (t) => {
    t.dropColumn('paused_need_cents');
    t.dropColumn('transitions');
  });
}
