import type { Knex } from 'knex';

/**
 * Replay protection of carrier callbacks (api/carrierAuth.ts): every accepted signature is kept
 * until its timestamp has left the 5-minute window, so a captured request cannot be replayed to
 * this or any other API instance. The hourly maintenance activity purges older rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('carrier_callback_signatures', (t) => {
    /** The `v1=<hex>` value of X-Carrier-Signature. */
    t.text('signature').primary();
    /** When the carrier signed it (X-Carrier-Timestamp). */
    t.timestamp('signed_at', { useTz: true }).notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable();
    t.index(['signed_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('carrier_callback_signatures');
}
