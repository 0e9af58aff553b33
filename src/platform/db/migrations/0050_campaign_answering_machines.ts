import type { Knex } from 'knex';

/**
 * Issue 31 (docs/decisions/campaigns.md): what a campaign's calls do when a machine answers: `hang_up`, or
 * `voicemail` (speak `voicemail_message`, then hang up). Null: the call goes on as the line decides.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaigns', (t) => {
    t.text('answering_machine');
    t.text('voicemail_message');
  });
  await knex.raw(
    "alter table campaigns add constraint campaigns_answering_machine_check check (answering_machine in ('hang_up', 'voicemail') and (answering_machine = 'voicemail') = (voicemail_message is not null))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaigns', (t) => {
    t.dropColumn('voicemail_message');
    t.dropColumn('answering_machine');
  });
}
