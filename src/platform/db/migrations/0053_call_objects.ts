import type { Knex } from 'knex';

/**
 * Issue 32, slice 2 (docs/decisions/recordings.md, "The durable copy"): one row per object of a call kept in the
 * operator's recordings store (src/adapters/storage/port.ts): its recording, transcript and, when the environment
 * asks, its events. A row is written only once the store holds the object and it was verified (size and SHA-256
 * read back), so a row is a promise the bytes are there. `kind` is what the object is (one per call and kind);
 * `name` its file name in the call's prefix (`recording.wav`, `transcript.json`, `events.json`); `carrier_url`,
 * for the recording, the carrier's URL it was copied from (the call's `recording_url` then).
 *
 * Room for retention and legal hold (slice 3): `workspace_id, environment, stored_at` is indexed for the schedule
 * that deletes a tenant's objects past their age; a deletion will remove the row with the object.
 *
 * `billing_accounts.recordings`: the recordings settings of a workspace's environment, one JSON object so they
 * can grow without a migration each (`store_events` now; `delete_at_carrier` next).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('call_objects', (t) => {
    t.uuid('call_id').notNullable().references('calls.id');
    t.text('kind').notNullable().checkIn(['recording', 'transcript', 'events']);
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.text('name').notNullable();
    t.text('store').notNullable().checkIn(['filesystem', 's3']);
    t.text('store_key').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.text('sha256').notNullable();
    t.text('content_type').notNullable();
    t.text('carrier_url');
    t.timestamp('stored_at', { useTz: true }).notNullable();
    t.primary(['call_id', 'kind']);
    t.index(['workspace_id', 'environment', 'stored_at']);
  });
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.jsonb('recordings').notNullable().defaultTo('{}');
  });
  // The sweeper's backstop looks for ended calls with something not stored yet, among the recent ones.
  await knex.raw('create index calls_ended_at on calls (ended_at) where ended_at is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists calls_ended_at');
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.dropColumn('recordings');
  });
  await knex.schema.dropTable('call_objects');
}
