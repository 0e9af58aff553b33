import type { Knex } from 'knex';

/**
 * Billing per environment (review M7, M8, D17):
 * - payment methods belong to one environment; existing cards become live cards (they were
 *   saved for real money; a test card has to be added again, explicitly for test);
 * - auto-recharge is on by default in live only: `ensureAccount` states it per environment (the
 *   column default is now off), and existing test accounts still at the shipped defaults are
 *   switched off;
 * - an auto-charge is recorded as a `pending` attempt before the processor is called, at most
 *   one per account, and resolved to `succeeded`, `declined` or `failed`;
 * - the first test line of a user gets the same 30-day grace as the first live line.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_methods', (t) => {
    t.text('environment').checkIn(['test', 'live']);
  });
  await knex('payment_methods').whereNull('environment').update({ environment: 'live' });
  await knex.schema.alterTable('payment_methods', (t) => {
    t.text('environment').notNullable().alter({ alterType: false });
  });
  await knex.raw('drop index payment_methods_one_default');
  await knex.raw('create unique index payment_methods_one_default on payment_methods (user_id, environment) where is_default');
  await knex.raw('create index payment_methods_workspace_environment on payment_methods (workspace_id, environment) where is_default');

  // Off unless said otherwise: `ensureAccount` states the default of each environment.
  await knex.raw('alter table billing_accounts alter column auto_recharge_enabled set default false');
  await disableUntouchedTestAutoRecharge(knex);

  await knex.raw('alter table payment_attempts drop constraint payment_attempts_status_check');
  await knex.raw(
    "alter table payment_attempts add constraint payment_attempts_status_check check (status in ('pending', 'succeeded', 'declined', 'failed'))",
  );
  await knex.schema.alterTable('payment_attempts', (t) => {
    t.text('failure_reason');
    t.timestamp('resolved_at', { useTz: true });
  });
  await knex.raw(
    "create unique index payment_attempts_one_pending on payment_attempts (workspace_id, environment) where status = 'pending'",
  );

  await giveFirstTestLinesTheirGrace(knex);
}

/**
 * Test accounts whose auto-recharge settings are all still the shipped defaults (on, 500,
 * 2000) never chose them: switch auto-recharge off. An owner who had deliberately enabled it
 * at exactly those values turns it on again with PATCH /settings (and a test card).
 */
export async function disableUntouchedTestAutoRecharge(knex: Knex): Promise<number> {
  return knex('billing_accounts')
    .where({ environment: 'test', auto_recharge_enabled: true, auto_recharge_threshold_cents: 500, auto_recharge_amount_cents: 2000 })
    .update({ auto_recharge_enabled: false });
}

/** The first test line of each user, as the first live line: free for 30 days from creation. */
export async function giveFirstTestLinesTheirGrace(knex: Knex): Promise<number> {
  const result = await knex.raw(`
    update lines l set grace_ends_at = l.created_at + interval '30 days'
      from (select distinct on (user_id) id from lines where environment = 'test' order by user_id, created_at, id) first
     where l.id = first.id and l.grace_ends_at is null`);
  return result.rowCount ?? 0;
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists payment_attempts_one_pending');
  await knex.schema.alterTable('payment_attempts', (t) => {
    t.dropColumn('failure_reason');
    t.dropColumn('resolved_at');
  });
  await knex('payment_attempts').whereIn('status', ['pending', 'failed']).del();
  await knex.raw('alter table payment_attempts drop constraint payment_attempts_status_check');
  await knex.raw("alter table payment_attempts add constraint payment_attempts_status_check check (status in ('succeeded', 'declined'))");
  await knex.raw('alter table billing_accounts alter column auto_recharge_enabled set default true');
  await knex.raw('drop index if exists payment_methods_workspace_environment');
  await knex.raw('drop index payment_methods_one_default');
  await knex('payment_methods').where({ environment: 'test' }).del();
  await knex.raw('create unique index payment_methods_one_default on payment_methods (user_id) where is_default');
  await knex.schema.alterTable('payment_methods', (t) => {
    t.dropColumn('environment');
  });
}
