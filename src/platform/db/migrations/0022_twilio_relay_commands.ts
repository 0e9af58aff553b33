import type { Knex } from 'knex';
import * as speeches from './0021_twilio_speeches';

/**
 * Commands for a Twilio call's ConversationRelay session (src/adapters/carrier/twilio/callbacks/relayCommands.ts):
 * the worker writes them and NOTIFYs; the API instance holding the call's WebSocket takes them in order. A
 * command written before Twilio opened the socket waits here until it does. The `<Say>` speech queue this
 * replaces (0021) goes: ConversationRelay queues speech itself.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('twilio_relay_commands', (t) => {
    t.bigIncrements('seq');
    t.text('call_sid').notNullable();
    t.jsonb('command').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['call_sid', 'seq']);
  });
  await knex.schema.dropTableIfExists('twilio_speeches');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('twilio_relay_commands');
  await speeches.up(knex);
}
