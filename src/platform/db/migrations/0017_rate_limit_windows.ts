import type { Knex } from 'knex';

/**
 * Rate-limit state as one row per bucket holding the timestamps of its counted hits (a sliding log
 * in an array), so each decision is one `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` instead of a
 * transaction of four statements under an advisory lock (issue 14). UNLOGGED: the state is ephemeral;
 * after a crash Postgres empties the table, which only forgives the hits of the current windows.
 * The old per-hit table goes: nothing else reads it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create unlogged table rate_limit_windows (
      bucket text primary key,
      hits timestamptz[] not null,
      last_refused boolean not null default false
    )`);
  await knex.schema.dropTable('rate_limit_hits');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limit_hits', (t) => {
    t.bigIncrements('id');
    t.text('bucket').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
    t.index(['bucket', 'at']);
  });
  await knex.schema.dropTable('rate_limit_windows');
}
