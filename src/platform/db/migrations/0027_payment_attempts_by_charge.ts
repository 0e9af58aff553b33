import type { Knex } from 'knex';

/**
 * The processor's refund and dispute events name the charge (for Stripe, the PaymentIntent id that
 * `processor_charge_id` holds): found by it, per environment (issue 26).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index payment_attempts_by_charge on payment_attempts (processor_charge_id, environment) where processor_charge_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists payment_attempts_by_charge');
}
