import type { Knex } from 'knex';

/**
 * Issue 29 (MCP item 2): `POST /api/v1/lines/{id}/calls/wait` hands each inbound call to one wait. The
 * call is claimed by stamping `wait_claimed_at` (a conditional UPDATE, so two waits on one line, in any
 * API process, never get the same call); the partial index holds only the inbound calls no wait has
 * taken yet, by line and age, which is all a wait reads.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.timestamp('wait_claimed_at', { useTz: true });
  });
  await knex.raw(
    "create index calls_inbound_unclaimed on calls (line_id, created_at) where direction = 'inbound' and wait_claimed_at is null",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists calls_inbound_unclaimed');
  await knex.schema.alterTable('calls', (t) => {
    t.dropColumn('wait_claimed_at');
  });
}
