import type { Knex } from 'knex';

/**
 * Issue 30 (items 1 and 6, leftovers):
 * - `calls.ringing_at`: when the carrier said an outbound call started ringing (its `call.ringing`
 *   callback, bounded by the call's creation and the database's clock), so the call's timeline says
 *   "Ringing" with its time. Null for inbound calls (they ring from `created_at`), for outbound calls
 *   the carrier never reported ringing, and for calls from before this column.
 * - `api_keys.mcp_first_used_at` / `mcp_last_used_at`: the first and latest authenticated request to
 *   /mcp made with the key (an OAuth access token counts for the delegated key it stands for), written
 *   by the API process at the request (latest at one-minute resolution): the overview's "connect an
 *   agent by MCP" step reads it from the database, never from one process's memory.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calls', (t) => {
    t.timestamp('ringing_at', { useTz: true });
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.timestamp('mcp_first_used_at', { useTz: true });
    t.timestamp('mcp_last_used_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('mcp_last_used_at');
    t.dropColumn('mcp_first_used_at');
  });
  await knex.schema.alterTable('calls', (t) => {
    t.dropColumn('ringing_at');
  });
}
