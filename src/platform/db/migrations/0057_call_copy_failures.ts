import type { Knex } from 'knex';

/**
 * Issue 32 (docs/decisions/recordings.md, "The copy's state, for the API and the portal"): a store that is down or
 * refuses the credentials delays a call's copy, visibly. One row per object of a call whose copy has failed since it
 * was last stored: why the last attempt failed (a reason class, never the store's or carrier's own words, which may
 * name a key or a bucket), when the failing began and when it last failed, how many attempts failed, and whether the
 * copy is still retried (`retrying` false: a final refusal, which the sweeper tries again). The row goes in the same
 * transaction as the object's `call_objects` row, so a call is either stored or failing, never both.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('call_copy_failures', (t) => {
    t.uuid('call_id').notNullable().references('calls.id');
    t.text('kind').notNullable().checkIn(['recording', 'transcript', 'events']);
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.text('reason').notNullable();
    t.integer('attempts').notNullable();
    t.boolean('retrying').notNullable();
    t.timestamp('first_failed_at', { useTz: true }).notNullable();
    t.timestamp('last_failed_at', { useTz: true }).notNullable();
    t.primary(['call_id', 'kind']);
    // The portal counts an environment's failing copies.
    t.index(['workspace_id', 'environment']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('call_copy_failures');
}
