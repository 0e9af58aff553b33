import type { Knex } from 'knex';

/**
 * Issue 16: who answered an outbound call placed with machine detection, and the number a call
 * was transferred to (`POST /calls/{id}/transfer`). Both null otherwise.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.text('answered_by').checkIn(['human', 'machine', 'unknown']);
    t.text('transferred_to');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.dropColumn('answered_by');
    t.dropColumn('transferred_to');
  });
}
