import type { Knex } from 'knex';

/**
 * Issue 32, item 2 (docs/decisions/recordings.md, "Deleting the carrier's copy"): when the workspace chooses
 * (`recordings.delete_at_carrier`), the carrier's copy of a recording is deleted once the store holds a verified copy
 * of it. `carrier_deleted_at` on the recording's `call_objects` row says when: the call's `recording_url` keeps the
 * carrier's URL (what "the call has a recording" and "the stored copy is of the current one" are judged by), so the
 * deletion is recorded beside the copy it relied on, and serving knows the carrier has nothing to fall back on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('call_objects', (t) => {
    t.timestamp('carrier_deleted_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('call_objects', (t) => {
    t.dropColumn('carrier_deleted_at');
  });
}
