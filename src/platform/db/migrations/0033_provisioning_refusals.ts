import type { Knex } from 'knex';

/**
 * Issue 26, provider refusals: a line whose number the carrier refused (not for want of a number as
 * asked) ends released with `failure_code` `carrier_error`, and keeps which provider refused and the
 * provider's own code, so the line's `provisioning_error` can name them (src/domain/lines/store.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('lines', (t) => {
    t.text('failure_provider');
    t.text('failure_provider_code');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('lines', (t) => {
    t.dropColumn('failure_provider');
    t.dropColumn('failure_provider_code');
  });
}
