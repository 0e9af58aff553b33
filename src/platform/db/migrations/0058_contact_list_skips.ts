import type { Knex } from 'knex';

/**
 * Issue 31 (docs/decisions/campaigns.md "Contact lists as a resource"): a contact list says how many of its rows
 * will be skipped at a campaign's creation (`skipped.invalid_number`, `skipped.duplicate_number`), counted at the
 * upload, so reading or listing lists never scans their rows. Lists uploaded before it are counted here (they are at
 * most 7 days old).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaign_contact_lists', (t) => {
    t.integer('invalid_number_rows').notNullable().defaultTo(0);
    t.integer('duplicate_number_rows').notNullable().defaultTo(0);
  });
  await knex.raw(
    `update campaign_contact_lists l
        set invalid_number_rows = s.invalid, duplicate_number_rows = s.duplicate
       from (select list_id,
                    count(*) filter (where skip_reason = 'invalid_number')::integer as invalid,
                    count(*) filter (where skip_reason = 'duplicate_number')::integer as duplicate
               from campaign_contact_list_rows where skip_reason is not null group by list_id) s
      where s.list_id = l.id`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaign_contact_lists', (t) => {
    t.dropColumn('invalid_number_rows');
    t.dropColumn('duplicate_number_rows');
  });
}
