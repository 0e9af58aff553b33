import type { Knex } from 'knex';

/**
 * Issue 31 (item 2, docs/decisions/campaigns.md "Contact lists uploaded as CSV"): a campaign's contacts uploaded
 * as a CSV file (`POST /api/v1/campaigns/contact-lists`), then named by `contact_list_id` at the campaign's creation.
 * - `campaign_contact_lists`: the tenant's upload, its header and row count; purged (with its rows) at `expires_at`.
 * - `campaign_contact_list_rows`: one row per contact in file order, its number already normalized to E.164 and the
 *   reason it will be skipped when the number is not one or repeats an earlier row's (as a JSON list's are).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('campaign_contact_lists', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable();
    t.uuid('actor_key_id');
    t.integer('row_count').notNullable();
    t.specificType('columns', 'text[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['workspace_id', 'environment', 'id']);
    t.index(['expires_at']);
  });
  await knex.schema.createTable('campaign_contact_list_rows', (t) => {
    t.uuid('list_id').notNullable().references('campaign_contact_lists.id').onDelete('CASCADE');
    t.integer('row_number').notNullable();
    t.text('to_number').notNullable();
    t.jsonb('variables');
    t.jsonb('metadata');
    t.text('skip_reason');
    t.primary(['list_id', 'row_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('campaign_contact_list_rows');
  await knex.schema.dropTable('campaign_contact_lists');
}
