import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A key is replaced by at most one rotation: two racing rotations cannot both win.
  await knex.raw('create unique index api_keys_rotated_once on api_keys (rotated_from) where rotated_from is not null');
  await knex.schema.alterTable('api_keys', (t) => {
    t.index(['created_by_service_key_id']);
    t.index(['user_id', 'environment']);
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.bigIncrements('id');
    // Whose request it was: the authenticated key.
    t.uuid('principal_key_id').notNullable();
    // What the key protects, e.g. `POST /v1/keys` or `POST /v1/keys/{id}/rotate`.
    t.text('scope').notNullable();
    t.text('idempotency_key').notNullable();
    // SHA-256 of what makes two requests "the same" (target and body).
    t.text('fingerprint').notNullable();
    t.text('state').notNullable().checkIn(['in_progress', 'completed']);
    // While in progress, the owner's lease: a crashed request's record is taken over after it.
    t.timestamp('locked_until', { useTz: true }).notNullable();
    t.integer('response_status');
    t.jsonb('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.unique(['principal_key_id', 'scope', 'idempotency_key']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('rate_limit_hits', (t) => {
    t.bigIncrements('id');
    t.text('bucket').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
    t.index(['bucket', 'at']);
  });

  await knex.schema.createTable('compliance_events', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.uuid('line_id');
    t.uuid('call_id');
    t.text('phone_number');
    t.text('event_type').notNullable();
    // The key that caused the event; null for carrier-initiated traffic.
    t.uuid('actor_key_id');
    t.jsonb('metadata');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['workspace_id', 'environment', 'created_at']);
    t.index(['actor_key_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('compliance_events');
  await knex.schema.dropTableIfExists('rate_limit_hits');
  await knex.schema.dropTableIfExists('idempotency_keys');
  await knex.raw('drop index if exists api_keys_rotated_once');
}
