import type { Knex } from 'knex';

/**
 * Telnyx's webhooks, stored before they are acted on (src/domain/telnyxInbox/): Telnyx delivers a voice webhook
 * once (a failover URL is its only second try) and sometimes twice, so `/carrier/telnyx/events` answers 2xx as
 * soon as the event is here, keyed by Telnyx's event id (`data.id`: a duplicate inserts nothing), and the event
 * is processed from this table: at once by the API that stored it, or by the sweeper when that did not finish.
 *
 * `order_key` groups the events processed in order (a call session's, a message's); `next_attempt_at` is when an
 * unprocessed event is due (a receipt ahead of its message waits); `processed_at` with `outcome` and `reason`
 * records what became of it (kept a week, so an operator can read what Telnyx sent); `translation` is what the event
 * became once translated, kept so a retry applies that again rather than translating anew (translating advances
 * state shared with the worker, such as a call's speech queue, which must move once per event). The call ids Telnyx
 * correlates events with are kept in columns so a `call.recording.saved`, which has no `call_control_id`, finds
 * its call's leg. `telnyx_inbox_leases` holds the one processor of each `order_key` at a time, across instances.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('telnyx_inbox', (t) => {
    t.text('event_id').primary();
    t.text('event_type').notNullable();
    t.timestamp('occurred_at', { useTz: true });
    t.jsonb('body').notNullable();
    t.jsonb('translation');
    t.text('order_key').notNullable();
    t.text('call_control_id');
    t.text('call_leg_id');
    t.text('call_session_id');
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('last_error');
    t.timestamp('processed_at', { useTz: true });
    t.text('outcome');
    t.text('reason');
  });
  await knex.raw('create index telnyx_inbox_due on telnyx_inbox (next_attempt_at) where processed_at is null');
  await knex.raw('create index telnyx_inbox_pending_by_key on telnyx_inbox (order_key, occurred_at) where processed_at is null');
  await knex.raw('create index telnyx_inbox_by_leg on telnyx_inbox (call_leg_id) where call_control_id is not null');
  await knex.raw('create index telnyx_inbox_received on telnyx_inbox (received_at)');
  await knex.schema.createTable('telnyx_inbox_leases', (t) => {
    t.text('order_key').primary();
    t.text('holder').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('telnyx_inbox_leases');
  await knex.schema.dropTableIfExists('telnyx_inbox');
}
