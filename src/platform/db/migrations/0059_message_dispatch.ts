import type { Knex } from 'knex';

/**
 * Issue 33 (docs/decisions/sms.md "A message is accepted when it is recorded"): `POST /messages` answers once the
 * message is stored; its send workflow is started right after, off the request, and `dispatched_at` says when that
 * start was confirmed. The dispatch sweep starts the workflow of a queued message still without one. Messages queued
 * before this migration had their workflow started before the API answered, so they count as dispatched.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.timestamp('dispatched_at', { useTz: true }).nullable();
  });
  await knex.raw(`update messages set dispatched_at = created_at where direction = 'outbound' and status = 'queued'`);
  // The sweep's question: queued outbound messages whose workflow start is not confirmed, oldest first.
  await knex.raw(
    `create index messages_undispatched_idx on messages (created_at)
      where direction = 'outbound' and status = 'queued' and dispatched_at is null`,
  );
  // Its predecessor (migration 0014) answered the recovery sweeper's old question, which no query asks any more.
  await knex.raw('drop index if exists messages_queued_by_age');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("create index messages_queued_by_age on messages (created_at) where status = 'queued'");
  await knex.raw('drop index if exists messages_undispatched_idx');
  await knex.schema.alterTable('messages', (t) => {
    t.dropColumn('dispatched_at');
  });
}
