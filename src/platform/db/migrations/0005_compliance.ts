import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('consents', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.uuid('line_id').notNullable().references('lines.id');
    t.text('phone_number').notNullable();
    t.text('consent_type').notNullable().checkIn(['implied_inbound', 'explicit_outbound']);
    t.text('source').notNullable();
    t.text('status').notNullable().checkIn(['active', 'revoked']);
    t.uuid('actor_key_id');
    t.timestamp('granted_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['workspace_id', 'environment', 'phone_number']);
  });
  // One active grant per (line, number, type): a second one is a conflict, decided by the database.
  await knex.raw("create unique index consents_one_active on consents (line_id, phone_number, consent_type) where status = 'active'");

  await knex.schema.createTable('opt_outs', (t) => {
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.text('phone_number').notNullable();
    t.text('source').notNullable();
    t.timestamp('opted_out_at', { useTz: true }).notNullable();
    t.primary(['workspace_id', 'environment', 'phone_number']);
  });

  await knex.schema.createTable('disclosures', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.text('message').notNullable();
    t.text('language').notNullable();
    t.text('jurisdiction').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.text('audio_url');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['workspace_id', 'environment']);
  });
  await knex.raw('create unique index disclosures_one_default on disclosures (workspace_id, environment, language) where is_default');

  await knex.schema.alterTable('compliance_events', (t) => {
    t.index(['workspace_id', 'environment', 'event_type', 'created_at']);
  });

  // The agent self-audit feed reads one view: every kind of activity with the key that caused it.
  // Calls and SMS join it when their tables land (a later migration replaces the view).
  await knex.raw(`
    create view agent_activity as
      select 'compliance_event'::text as type, e.id::text as id, e.actor_key_id, e.created_at,
             jsonb_build_object('event_type', e.event_type, 'line_id', e.line_id, 'call_id', e.call_id,
                                'phone_number', e.phone_number, 'metadata', e.metadata) as data
        from compliance_events e
       where e.actor_key_id is not null
      union all
      select 'billing_transaction'::text, t.id::text, t.actor_key_id, t.created_at,
             jsonb_build_object('transaction_type', t.type, 'amount_cents', t.amount_cents, 'balance_after_cents', t.balance_after_cents,
                                'description', t.description, 'reference_id', t.reference_id, 'line_id', t.line_id)
        from ledger_transactions t
       where t.actor_key_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop view if exists agent_activity');
  await knex.schema.dropTableIfExists('disclosures');
  await knex.schema.dropTableIfExists('opt_outs');
  await knex.schema.dropTableIfExists('consents');
}
