import type { Knex } from 'knex';

/**
 * Creates sent to a carrier that has no idempotency key (Twilio's Calls and Messages): one row per
 * call or message id, written before the first attempt and given the carrier's id once known, so a
 * retry on any worker after a lost answer finds what the first attempt created instead of dialling
 * or sending again (src/adapters/carrier/twilio/createAttempts.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('carrier_create_attempts', (t) => {
    t.text('kind').notNullable();
    t.text('key').notNullable();
    t.timestamp('first_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('carrier_id');
    // While an attempt may still be waiting for the carrier's answer; null once it ended either way.
    t.timestamp('running_until', { useTz: true });
    t.primary(['kind', 'key']);
    t.unique(['kind', 'carrier_id']);
    t.index(['first_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('carrier_create_attempts');
}
