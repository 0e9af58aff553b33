import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('messages', (t) => {
    t.uuid('id').primary(); // outbound: also names the send workflow (`message-send:<id>`)
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.uuid('line_id').notNullable().references('lines.id');
    /** The key that sent it; null for inbound SMS and for automatic keyword replies. */
    t.uuid('actor_key_id');
    t.text('direction').notNullable().checkIn(['inbound', 'outbound']);
    /** `customer`: sent through the API; `keyword_reply`: the STOP/START/HELP confirmation. */
    t.text('origin').notNullable().defaultTo('customer').checkIn(['customer', 'keyword_reply', 'carrier']);
    /** The other party (E.164), whichever way the message went: the conversation's key with line_id. */
    t.text('remote_number').notNullable();
    t.text('from_number').notNullable();
    t.text('to_number').notNullable();
    t.text('body').notNullable();
    t.integer('segments').notNullable();
    t.text('status').notNullable().checkIn(['queued', 'sent', 'delivered', 'failed', 'undelivered', 'received']);
    t.text('error_code');
    t.bigInteger('charge_cents');
    t.text('carrier_message_id');
    /** Why an outbound message was allowed: the 24 h window or an explicit_outbound consent. */
    t.text('authorization_basis');
    t.uuid('consent_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['actor_key_id', 'created_at']);
  });
  // A carrier message maps to at most one of ours: a repeated sms.received is the same message.
  await knex.raw('create unique index messages_carrier_message_id on messages (carrier_message_id) where carrier_message_id is not null');
  // A conversation's messages, newest first (cursor pagination on created_at, id).
  await knex.raw('create index messages_conversation on messages (line_id, remote_number, created_at desc, id desc)');
  // The 24-hour window: the latest inbound message of a (line, number) pair.
  await knex.raw("create index messages_last_inbound on messages (line_id, remote_number, created_at desc) where direction = 'inbound'");

  // One row per (line, remote number), kept in step with `messages` in the same transaction, so
  // the conversation list pages through an index instead of grouping every message.
  await knex.schema.createTable('conversations', (t) => {
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.uuid('line_id').notNullable().references('lines.id');
    t.text('remote_number').notNullable();
    t.integer('message_count').notNullable();
    t.uuid('last_message_id').notNullable();
    t.timestamp('last_message_at', { useTz: true }).notNullable();
    t.primary(['line_id', 'remote_number']);
  });
  await knex.raw(
    'create index conversations_recent on conversations (workspace_id, environment, last_message_at desc, last_message_id desc)',
  );

  // SMS join the agent self-audit feed (inbound and keyword replies have no actor key).
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
       where c.actor_key_id is not null
      union all
      select 'sms'::text, m.id::text, m.actor_key_id, m.created_at,
             jsonb_build_object('line_id', m.line_id, 'direction', m.direction, 'from_number', m.from_number, 'to_number', m.to_number,
                                'status', m.status, 'segments', m.segments, 'charge_cents', m.charge_cents)
        from messages m
       where m.actor_key_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop view if exists agent_activity');
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
  await knex.schema.dropTableIfExists('conversations');
  await knex.schema.dropTableIfExists('messages');
}
