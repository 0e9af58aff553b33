import type { Knex } from 'knex';

/**
 * Issue 26 item 7, choosing numbers. A line keeps what its number was asked as (country, type,
 * area code) and where it came from: bought for it, or imported from the carrier account
 * (`import_number`, the owned number asked for; kept in the account on release). A provisioning
 * that fails keeps a code and the request field it names beside the operator's `failure_reason`.
 * `number_grants`: the carrier account's own numbers the operator lets one workspace import, per
 * environment (each environment has its carrier account); a number is granted to one workspace at most.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('lines', (t) => {
    t.text('number_country').notNullable().defaultTo('US');
    t.text('number_type').notNullable().defaultTo('local').checkIn(['local', 'toll_free', 'mobile']);
    t.text('area_code');
    t.text('number_source').notNullable().defaultTo('purchased').checkIn(['purchased', 'imported']);
    t.text('import_number');
    t.text('failure_code');
    t.text('failure_field');
  });
  // Two unreleased lines never import the same number (the second is refused before it reaches the carrier).
  await knex.raw(
    "create unique index lines_import_number_in_use on lines (import_number) where status <> 'released' and import_number is not null",
  );
  await knex.schema.createTable('number_grants', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.text('phone_number').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['environment', 'phone_number']);
    t.index(['workspace_id', 'environment']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('number_grants');
  await knex.raw('drop index if exists lines_import_number_in_use');
  await knex.schema.alterTable('lines', (t) => {
    for (const column of ['number_country', 'number_type', 'area_code', 'number_source', 'import_number', 'failure_code', 'failure_field'])
      t.dropColumn(column);
  });
}
