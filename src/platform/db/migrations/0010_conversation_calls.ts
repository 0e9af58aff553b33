import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    /** Conversation calls: what the call is about (its system prompt is built from it). */
    t.text('topic');
    /** A cap below the platform's 15 minutes, when the request set one. */
    t.integer('max_duration_sec');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.dropColumn('topic');
    t.dropColumn('max_duration_sec');
  });
}
