import type { Knex } from 'knex';

/**
 * Issue 33 (docs/decisions/sms.md "Accepted messages are sent in batches"): the API hands accepted messages to one
 * send workflow per batch instead of one per message. Before the batch's workflow is started its messages are
 * claimed for it (`dispatch_batch_id`), so a batch whose start was never confirmed is started again under the same
 * workflow id, with the same messages, and no message is ever in two batches. Messages sent before this migration
 * keep their own workflow (`message-send:<id>`) and have no batch.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.uuid('dispatch_batch_id').nullable();
  });
  // The dispatch sweep's second question: every message of a claimed batch whose start is not confirmed.
  await knex.raw(
    `create index messages_dispatch_batch_idx on messages (dispatch_batch_id)
      where dispatch_batch_id is not null and dispatched_at is null`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists messages_dispatch_batch_idx');
  await knex.schema.alterTable('messages', (t) => {
    t.dropColumn('dispatch_batch_id');
  });
}
