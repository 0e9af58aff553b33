import type { Knex } from 'knex';

/**
 * Issue 30 (item 5, "find anything"):
 * - `workspaces.time_zone`: the IANA zone the portal shows the workspace's times in (default UTC;
 *   validated against `Intl.supportedValuesOf('timeZone')` by src/domain/workspaces/timeZone.ts).
 * - `webhook_deliveries.request_headers`: the headers an attempt was POSTed with (signature, delivery
 *   id, timestamp, attempt, content type, user agent), recorded with its outcome, so that an operator
 *   debugging a signature failure sees what the receiver got. Never the secret: only what was sent.
 *   Null for an attempt that was never made and for attempts made before this column.
 * - An index of deliveries by call: the deliveries list filtered by a call, and a call's page listing its deliveries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspaces', (t) => {
    t.text('time_zone').notNullable().defaultTo('UTC');
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.jsonb('request_headers');
  });
  await knex.raw('create index webhook_deliveries_by_call on webhook_deliveries (call_id, created_at) where call_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists webhook_deliveries_by_call');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('request_headers');
  });
  await knex.schema.alterTable('workspaces', (t) => {
    t.dropColumn('time_zone');
  });
}
