import type { Knex } from 'knex';

/**
 * Issue 31 (items 2-3, docs/decisions/campaigns.md): campaigns, their contacts and each contact's attempts.
 * - `campaigns`: what the customer asked for (a pool of lines, the pace, the retry policy) and where it stands.
 * - `campaign_contacts`: one row per contact, numbered by its position in the list (`row_number`, as a CSV's
 *   data rows are numbered), with its own variables and metadata and its result so far. `claim_token` is the
 *   dispatcher's claim (workflow run and step), so a retried claim answers the same contacts.
 * - `campaign_attempts`: each dial, keyed by (campaign, contact, attempt) and naming the call it placed
 *   (the call id is derived from that identity, so a repeated attempt finds its call instead of dialling again).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('campaigns', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable();
    t.uuid('user_id').notNullable();
    t.uuid('actor_key_id');
    t.text('name');
    t.text('status').notNullable();
    t.text('paused_reason');
    t.specificType('line_ids', 'uuid[]').notNullable();
    t.text('topic');
    t.text('begin_message');
    t.integer('max_duration_sec');
    t.boolean('machine_detection').notNullable().defaultTo(false);
    t.integer('max_concurrency').notNullable();
    t.integer('calls_per_minute').notNullable();
    t.integer('max_attempts').notNullable();
    t.integer('retry_backoff_sec').notNullable();
    t.specificType('retry_on', 'text[]').notNullable();
    t.timestamp('start_at', { useTz: true }).notNullable();
    t.integer('contact_count').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true });
    t.index(['workspace_id', 'environment', 'created_at']);
  });
  await knex.raw(
    "alter table campaigns add constraint campaigns_status_check check (status in ('scheduled', 'running', 'paused', 'completed', 'cancelled'))",
  );
  await knex.schema.createTable('campaign_contacts', (t) => {
    t.uuid('id').primary();
    t.uuid('campaign_id').notNullable().references('campaigns.id');
    t.integer('row_number').notNullable();
    t.text('to_number').notNullable();
    t.jsonb('variables');
    t.jsonb('metadata');
    t.text('status').notNullable();
    t.text('outcome');
    t.text('skip_reason');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.text('claim_token');
    t.integer('duration_sec').notNullable().defaultTo(0);
    t.bigInteger('charge_cents').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['campaign_id', 'row_number']);
  });
  await knex.raw(
    "alter table campaign_contacts add constraint campaign_contacts_status_check check (status in ('pending', 'dialing', 'done'))",
  );
  // The dispatcher's questions: the contacts due next, the ones being dialled, and a claim's contacts.
  await knex.raw(
    "create index campaign_contacts_due on campaign_contacts (campaign_id, next_attempt_at, row_number) where status = 'pending'",
  );
  await knex.raw("create index campaign_contacts_dialing on campaign_contacts (campaign_id) where status = 'dialing'");
  await knex.raw('create index campaign_contacts_claims on campaign_contacts (campaign_id, claim_token) where claim_token is not null');
  await knex.schema.createTable('campaign_attempts', (t) => {
    t.uuid('campaign_id').notNullable().references('campaigns.id');
    t.uuid('contact_id').notNullable().references('campaign_contacts.id');
    t.integer('attempt').notNullable();
    t.uuid('call_id').notNullable().unique();
    t.uuid('line_id').notNullable();
    t.text('outcome');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['campaign_id', 'contact_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('campaign_attempts');
  await knex.schema.dropTable('campaign_contacts');
  await knex.schema.dropTable('campaigns');
}
