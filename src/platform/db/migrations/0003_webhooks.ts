import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('line_webhook_secrets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('line_id').notNullable().references('lines.id');
    t.text('state').notNullable().checkIn(['current', 'next', 'retired']);
    // AES-256-GCM ciphertext of the 64-hex secret (src/platform/crypto/secretBox.ts); never the plaintext.
    t.text('ciphertext').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('promoted_at', { useTz: true });
    t.timestamp('retired_at', { useTz: true });
    t.index(['line_id']);
  });
  await knex.raw("create unique index line_webhook_secrets_one_current on line_webhook_secrets (line_id) where state = 'current'");
  await knex.raw("create unique index line_webhook_secrets_one_next on line_webhook_secrets (line_id) where state = 'next'");

  await knex.schema.createTable('webhook_events', (t) => {
    t.uuid('id').primary(); // the event_id receivers dedupe on
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.uuid('line_id').notNullable().references('lines.id');
    t.uuid('call_id');
    t.text('event_type').notNullable();
    t.text('target').notNullable().checkIn(['webhook', 'status_callback']);
    t.jsonb('payload').notNullable();
    t.uuid('actor_key_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['workspace_id', 'environment', 'created_at']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary(); // the x-service-delivery-id of this attempt
    t.uuid('event_id').notNullable().references('webhook_events.id');
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.uuid('line_id').notNullable();
    t.uuid('call_id');
    t.text('event_type').notNullable();
    t.text('url');
    t.integer('attempt').notNullable();
    t.text('status').notNullable().checkIn(['pending', 'success', 'failed']);
    t.integer('http_status');
    t.text('error_message');
    t.integer('duration_ms');
    t.jsonb('request_body').notNullable();
    t.text('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.unique(['event_id', 'attempt']);
    t.index(['workspace_id', 'environment', 'created_at']);
    t.index(['line_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_events');
  await knex.schema.dropTableIfExists('line_webhook_secrets');
}
