import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The carrier's id of a call maps to at most one of ours: a repeated call.incoming is the same call.
  await knex.raw('create unique index calls_carrier_call_id on calls (carrier_call_id) where carrier_call_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists calls_carrier_call_id');
}
