import type { Knex } from 'knex';

/**
 * Webhook events without a workflow per event (issue 14): an event is recorded `awaiting_dispatch`
 * and its raiser makes the first attempt right after the commit; the flag is cleared once that
 * attempt was delivered, failed for good, or handed to the retry workflow. The partial index keeps
 * the sweeper's look for events whose raiser died before that (`dispatchStrandedEvents`) one
 * index range over the few in flight, whatever the size of the table. Events recorded before this
 * migration all had their delivery workflow started, so they default to not awaiting it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => {
    t.boolean('awaiting_dispatch').notNullable().defaultTo(false);
  });
  await knex.raw('create index webhook_events_awaiting_dispatch on webhook_events (created_at) where awaiting_dispatch');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists webhook_events_awaiting_dispatch');
  await knex.schema.alterTable('webhook_events', (t) => {
    t.dropColumn('awaiting_dispatch');
  });
}
