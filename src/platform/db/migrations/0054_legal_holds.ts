import type { Knex } from 'knex';

/**
 * Issue 32, slice 3 (docs/decisions/recordings.md, "Retention and legal hold"): a legal hold keeps a call's stored
 * objects past the environment's `recordings.retention_days`. A hold names one call (`call_id`) or one phone number
 * (a line's or a callee's: every call from or to it). Released holds stay, with `released_at`, for the audit.
 * Active holds of an environment are what the retention schedule reads on every pass.
 *
 * `call_objects_deleted`: one row per call whose stored objects the retention schedule deleted (what, when), written
 * with the removal of its `call_objects` rows. It is why the call is not copied again (the sweeper would otherwise
 * find its recording "missing") and why its recording answers 404 rather than the carrier's copy.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('legal_holds', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.uuid('call_id').references('calls.id');
    t.text('phone_number');
    t.text('reason').notNullable();
    t.uuid('created_by_key_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('released_at', { useTz: true });
    t.uuid('released_by_key_id');
    t.index(['workspace_id', 'environment', 'created_at']);
  });
  await knex.raw('alter table legal_holds add constraint legal_holds_one_subject check ((call_id is null) <> (phone_number is null))');
  await knex.schema.createTable('call_objects_deleted', (t) => {
    t.uuid('call_id').primary().references('calls.id');
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.jsonb('objects').notNullable();
    t.timestamp('deleted_at', { useTz: true }).notNullable();
  });
  await knex.raw('create index legal_holds_active on legal_holds (workspace_id, environment) where released_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('call_objects_deleted');
  await knex.schema.dropTable('legal_holds');
}
