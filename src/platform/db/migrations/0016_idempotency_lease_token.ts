import type { Knex } from 'knex';

/**
 * A fencing token on idempotency records (security L1): each claim or takeover writes a new
 * token, and completing, renewing or releasing a record requires the token the request was given,
 * so a request whose lease was taken over can no longer complete the record or commit its effect.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.uuid('lease_token');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('lease_token');
  });
}
