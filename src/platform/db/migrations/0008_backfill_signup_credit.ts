import type { Knex } from 'knex';

/**
 * Workspaces created before the ledger existed (migration 0004) got no billing account and no
 * signup credit. Give them both, exactly as a new workspace gets them, so an upgraded
 * deployment behaves like a fresh one. Idempotent through the ledger's unique references.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    insert into billing_accounts (workspace_id, environment)
    select w.id, e.environment from workspaces w cross join (values ('test'), ('live')) as e(environment)
    on conflict do nothing`);
  await knex.raw(`
    with missing as (
      select w.id as workspace_id, e.environment, w.created_at
        from workspaces w cross join (values ('test'), ('live')) as e(environment)
       where not exists (
         select 1 from ledger_transactions t
          where t.idempotency_ref = 'workspace:' || w.id || ':' || e.environment || ':signup_credit')
    ),
    credited as (
      update billing_accounts a set balance_cents = a.balance_cents + 500
        from missing m
       where a.workspace_id = m.workspace_id and a.environment = m.environment
      returning a.workspace_id, a.environment, a.balance_cents
    )
    insert into ledger_transactions (workspace_id, environment, type, amount_cents, balance_after_cents, description, idempotency_ref, created_at)
    select c.workspace_id, c.environment, 'signup_credit', 500, c.balance_cents, 'Signup credit',
           'workspace:' || c.workspace_id || ':' || c.environment || ':signup_credit', now()
      from credited c`);
}

export async function down(): Promise<void> {
  // Ledger entries are never deleted.
}
