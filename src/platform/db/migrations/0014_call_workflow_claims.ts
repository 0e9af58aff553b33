import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    /**
     * When the call's workflow took the call over (its first step). The API compensates a start
     * it could not confirm only while this is null, so a call is never both failed by the API
     * and dialled by a workflow.
     */
    t.timestamp('workflow_claimed_at', { useTz: true });
  });
  // The recovery sweeper looks for old active calls and old queued messages.
  await knex.raw("create index calls_active_by_age on calls (created_at) where status in ('initiated', 'ringing', 'in_progress')");
  await knex.raw("create index messages_queued_by_age on messages (created_at) where status = 'queued'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists messages_queued_by_age');
  await knex.raw('drop index if exists calls_active_by_age');
  await knex.schema.alterTable('calls', (t) => {
    t.dropColumn('workflow_claimed_at');
  });
}
