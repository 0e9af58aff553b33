import type { Knex } from 'knex';

/**
 * Deferred `call.playback` reports (issue 14, call turns): a report of a speech the call's
 * workflow is not waiting on is recorded here instead of costing a signal and a workflow task,
 * and rides on the next signal to that call. `call_playback_deferrals` holds, per call, the speak
 * ids whose reports may be deferred (a webhook-mode turn's reply, marked by the turn's activity before it speaks;
 * emptied by the workflow before it waits on them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('call_playback_deferrals', (t) => {
    t.uuid('call_id').primary();
    t.specificType('speak_ids', 'text[]').notNullable();
    /** A streamed reply's chunks are spoken as `<prefix><n>`: any of them. */
    t.text('speak_prefix');
  });
  await knex.schema.createTable('call_deferred_playback', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('call_id').notNullable();
    t.jsonb('report').notNullable();
    t.index(['call_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('call_deferred_playback');
  await knex.schema.dropTable('call_playback_deferrals');
}
