import type { Knex } from 'knex';

/**
 * Issue 29 (item 4): lines get a fourth mode, `agent` (docs/decisions/calls.md, "Agent lines"): its agent drives each
 * call through live control. The mode check of 0001 (named by Postgres `lines_mode_check`) is replaced to admit it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table lines drop constraint lines_mode_check');
  await knex.raw("alter table lines add constraint lines_mode_check check (mode in ('hosted', 'webhook', 'audio', 'agent'))");
}

/** Refused while an agent line exists: no other mode runs its calls the same way, so none is chosen for it. */
export async function down(knex: Knex): Promise<void> {
  const agentLines = await knex('lines').where({ mode: 'agent' }).count<{ count: string }[]>({ count: '*' });
  if (Number(agentLines[0].count) > 0) throw new Error('agent lines exist: change their mode before rolling back 0044');
  await knex.raw('alter table lines drop constraint lines_mode_check');
  await knex.raw("alter table lines add constraint lines_mode_check check (mode in ('hosted', 'webhook', 'audio'))");
}
