import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('calls', (t) => {
    t.uuid('id').primary(); // also the call workflow's id
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.uuid('line_id').notNullable().references('lines.id');
    t.uuid('actor_key_id');
    t.text('direction').notNullable().checkIn(['inbound', 'outbound']);
    t.text('from_number').notNullable();
    t.text('to_number').notNullable();
    t.text('status').notNullable().checkIn(['initiated', 'ringing', 'in_progress', 'completed', 'failed', 'no_answer', 'busy', 'canceled']);
    t.text('end_cause');
    t.text('carrier_call_id');
    t.text('mode').notNullable();
    t.text('zone').notNullable();
    t.integer('duration_sec');
    t.bigInteger('charge_cents');
    t.text('recording_url');
    t.jsonb('transcript');
    t.text('system_prompt');
    t.text('begin_message');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.timestamp('ended_at', { useTz: true });
    t.index(['workspace_id', 'environment', 'created_at']);
    t.index(['actor_key_id', 'created_at']);
  });
  // One active call per line, decided by the database rather than by read-then-write.
  await knex.raw(
    "create unique index calls_one_active_per_line on calls (line_id) where status in ('initiated', 'ringing', 'in_progress')",
  );

  // Calls join the agent self-audit feed.
  await knex.raw('drop view agent_activity');
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
       where t.actor_key_id is not null
      union all
      select 'call'::text, c.id::text, c.actor_key_id, c.created_at,
             jsonb_build_object('line_id', c.line_id, 'direction', c.direction, 'from_number', c.from_number, 'to_number', c.to_number,
                                'status', c.status, 'duration_sec', c.duration_sec)
        from calls c
       where c.actor_key_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop view if exists agent_activity');
  await knex.schema.dropTableIfExists('calls');
}
