import type { Knex } from 'knex';

/**
 * Speech queued on a Twilio call (src/adapters/carrier/twilio/callbacks/speechQueue.ts): Twilio runs
 * one TwiML document at a time, so speeches after the playing one wait here until the API, told the
 * playing one ended, hands Twilio the next.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('twilio_speeches', (t) => {
    t.text('call_sid').notNullable();
    t.text('speak_id').notNullable();
    /** Order of arrival within the call. */
    t.bigIncrements('seq', { primaryKey: false });
    t.text('text').notNullable();
    t.text('voice');
    t.text('state').notNullable().checkIn(['queued', 'playing']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['call_sid', 'speak_id']);
    t.index(['call_sid', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('twilio_speeches');
}
