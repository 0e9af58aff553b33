import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One account per workspace and environment: the balance, and the settings that go with it.
  await knex.schema.createTable('billing_accounts', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.bigInteger('balance_cents').notNullable().defaultTo(0);
    t.boolean('auto_recharge_enabled').notNullable().defaultTo(true);
    t.bigInteger('auto_recharge_threshold_cents').notNullable().defaultTo(500);
    t.bigInteger('auto_recharge_amount_cents').notNullable().defaultTo(2000);
    t.text('default_webhook_url');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['workspace_id', 'environment']);
  });

  // Append-only: every money movement, each with the balance it left and a unique reference
  // derived from the workflow/activity that caused it, so a retry can never post twice.
  await knex.schema.createTable('ledger_transactions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.text('type').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('balance_after_cents').notNullable();
    t.text('description').notNullable();
    t.text('reference_id');
    t.text('reference_type');
    t.text('idempotency_ref').notNullable().unique();
    t.uuid('actor_key_id');
    t.uuid('line_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.foreign(['workspace_id', 'environment']).references(['workspace_id', 'environment']).inTable('billing_accounts');
    t.index(['workspace_id', 'environment', 'created_at', 'id']);
    t.index(['actor_key_id', 'created_at']);
  });

  // Funds set aside before and during a call; settled to a charge or released.
  await knex.schema.createTable('spend_holds', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.uuid('key_id');
    t.text('reference').notNullable().unique();
    t.bigInteger('amount_cents').notNullable();
    t.text('status').notNullable().checkIn(['active', 'settled', 'released']);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('closed_at', { useTz: true });
    t.index(['workspace_id', 'environment', 'status']);
    t.index(['key_id', 'status']);
  });

  // Billable usage, one row per call or message, for the usage endpoints.
  await knex.schema.createTable('usage_records', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.uuid('line_id');
    t.uuid('key_id');
    t.text('kind').notNullable().checkIn(['call', 'sms_inbound', 'sms_outbound']);
    t.integer('seconds');
    t.bigInteger('cost_cents').notNullable();
    t.text('reference').notNullable().unique();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.index(['workspace_id', 'environment', 'occurred_at']);
  });

  // Card charges attempted by auto-recharge, whatever their outcome.
  await knex.schema.createTable('payment_attempts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.text('idempotency_key').notNullable().unique();
    t.bigInteger('amount_cents').notNullable();
    t.text('status').notNullable().checkIn(['succeeded', 'declined']);
    t.text('decline_code');
    t.text('processor_charge_id');
    t.uuid('payment_method_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
  });

  // Closed monthly spend per key, written by the monthly Temporal Schedule.
  await knex.schema.createTable('spend_periods', (t) => {
    t.uuid('key_id').notNullable();
    t.text('period').notNullable(); // YYYY-MM, UTC
    t.uuid('workspace_id').notNullable();
    t.text('environment').notNullable();
    t.bigInteger('spent_cents').notNullable();
    t.timestamp('closed_at', { useTz: true }).notNullable();
    t.primary(['key_id', 'period']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['spend_periods', 'payment_attempts', 'usage_records', 'spend_holds', 'ledger_transactions', 'billing_accounts']) {
    await knex.schema.dropTableIfExists(table);
  }
}
