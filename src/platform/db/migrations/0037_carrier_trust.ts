import type { Knex } from 'knex';

/** Twilio's one test number: every line bought with test credentials gets it (src/adapters/carrier/twilio/twilioCarrier.ts). */
const TWILIO_TEST_NUMBER = '+15005550006';

/**
 * Issue 27 (security review L19): on Twilio's test credentials every test line is given Twilio's
 * single magic number, so a number is one line's only outside that: the index that keeps a number to
 * one line not released leaves test lines with the magic number out (test credentials receive no
 * calls or messages, so no inbound routing by that number exists).
 *
 * Issue 27 (security review L13): a ConversationRelay socket opens only on a one-time URL. Each TwiML
 * the API gives Twilio names `/carrier/twilio/relay/<call id>/<token>`; the token (stored as its
 * SHA-256) is bound to the call, to the CallSid of the signed request that fetched the TwiML and to
 * the call's environment, used once, and short-lived (src/adapters/carrier/twilio/callbacks/relayTokens.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index lines_phone_number_in_use');
  await knex.raw(
    `create unique index lines_phone_number_in_use on lines (phone_number) where status <> 'released' and phone_number is not null and not (environment = 'test' and phone_number = '${TWILIO_TEST_NUMBER}')`,
  );
  await knex.schema.createTable('twilio_relay_tokens', (t) => {
    t.text('token_hash').primary();
    t.uuid('call_id').notNullable();
    t.text('call_sid').notNullable();
    t.text('environment').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['call_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index lines_phone_number_in_use');
  await knex.raw(
    "create unique index lines_phone_number_in_use on lines (phone_number) where status <> 'released' and phone_number is not null",
  );
  await knex.schema.dropTableIfExists('twilio_relay_tokens');
}
