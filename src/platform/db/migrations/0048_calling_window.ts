import type { Knex } from 'knex';

/**
 * Issue 31 (item 1, calling hours): `billing_accounts.calling_window`, a workspace's own calling
 * window in one environment (`{start: "HH:MM", end: "HH:MM", days: ["mon", …]}`, callee-local),
 * kept with the other settings of that environment. Null: the legal window alone
 * (src/domain/callingHours/rules.ts); a window may only narrow it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.jsonb('calling_window');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.dropColumn('calling_window');
  });
}
