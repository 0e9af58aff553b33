import type { Knex } from 'knex';

/**
 * Issue 29 (tools during hosted calls): a line declares the tools its model may call
 * (src/domain/tools/rules.ts), and each call keeps the declarations it was placed or answered
 * with, so editing the line mid-call does not change a conversation under way. Null: none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('lines', (t) => {
    t.jsonb('tools');
  });
  await knex.schema.alterTable('calls', (t) => {
    t.jsonb('tools');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.dropColumn('tools');
  });
  await knex.schema.alterTable('lines', (t) => {
    t.dropColumn('tools');
  });
}
