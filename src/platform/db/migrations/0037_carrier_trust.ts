import type { Knex } from 'knex';

/**
 * Issue 27 (security review L13): a ConversationRelay socket opens only on a one-time URL. Each TwiML
 * the API gives Twilio names `/carrier/twilio/relay/<call id>/<token>`; the token (stored as its
 * SHA-256) is bound to the call, to the CallSid of the signed request that fetched the TwiML and to
 * the call's environment, used once, and short-lived (src/adapters/carrier/twilio/callbacks/relayTokens.ts).
 */
export async function up(knex: Knex): Promise<void> {
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
  await knex.schema.dropTableIfExists('twilio_relay_tokens');
}
