import type { Knex } from 'knex';

/**
 * Issue 29 (per-call metadata): `POST /api/v1/calls` and `/calls/conversation` take a small
 * `metadata` object (string values, Stripe's limits: src/domain/calls/rules.ts), kept on the call,
 * returned with it and echoed in every event of the call. Null for calls placed without one and
 * for inbound calls.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.jsonb('metadata');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.dropColumn('metadata');
  });
}
