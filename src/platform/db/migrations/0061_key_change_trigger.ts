import type { Knex } from 'knex';

/**
 * Issue 33 (docs/decisions/api.md "Key lookups are cached in each API process"): every change to what an API key
 * may do is announced by the database itself, on the channel each API process's key cache listens on
 * (`api_key_changes`, src/domain/keys/cache.ts), whoever makes it: the product's own paths, an operator's SQL, a
 * restore. A write of `last_used_at` alone (the batched use stamp) is not a change and announces nothing. One
 * statement-level trigger per operation, so a cascade that revokes thousands of keys sends one notification per
 * 200 ids (NOTIFY payloads stop at 8,000 bytes), not one per row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function api_keys_announce_changes() returns trigger language plpgsql as $$
    declare
      v_ids text[];
    begin
      if tg_op = 'DELETE' then
        select array_agg(o.id::text) into v_ids from old_rows o;
      else
        select array_agg(n.id::text) into v_ids
          from new_rows n join old_rows o on o.id = n.id
         where (to_jsonb(n) - 'last_used_at') is distinct from (to_jsonb(o) - 'last_used_at');
      end if;
      for i in 1 .. coalesce(cardinality(v_ids), 0) by 200 loop
        perform pg_notify('api_key_changes', array_to_string(v_ids[i : i + 199], ','));
      end loop;
      return null;
    end
    $$`);
  await knex.raw(`
    create trigger api_keys_announce_updates after update on api_keys
      referencing old table as old_rows new table as new_rows
      for each statement execute function api_keys_announce_changes()`);
  await knex.raw(`
    create trigger api_keys_announce_deletes after delete on api_keys
      referencing old table as old_rows
      for each statement execute function api_keys_announce_changes()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists api_keys_announce_deletes on api_keys');
  await knex.raw('drop trigger if exists api_keys_announce_updates on api_keys');
  await knex.raw('drop function if exists api_keys_announce_changes()');
}
