import type { Knex } from 'knex';

/**
 * Telnyx calls (issue 26): what the webhook translator needs that Telnyx does not send back, shared by every
 * API and worker instance (src/adapters/carrier/callbacks/telnyx/speechQueue.ts, callRecords.ts).
 *
 * `telnyx_speech_chunks`: the text of each speech, cut into `speak` commands of at most 3,000 characters,
 * played one command at a time per call: `client_state` carries only a chunk reference, and Telnyx
 * applies it to every later webhook of the call, so a webhook can only be matched to the one command
 * outstanding. `telnyx_calls`: the language each call's transcription was started in (its utterances'
 * language), written when the call is dialled or answered.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('telnyx_speech_chunks', (t) => {
    /** Order of arrival (also the reference in `client_state`). */
    t.bigIncrements('seq').primary();
    t.text('carrier_call_id').notNullable();
    t.text('speak_id').notNullable();
    t.integer('chunk').notNullable();
    t.integer('chunks').notNullable();
    t.text('text').notNullable();
    t.text('voice').notNullable();
    // queued → sent → playing → done; sent/playing → stopping → stopped; queued → dropped.
    t.text('state').notNullable().checkIn(['queued', 'sent', 'playing', 'stopping', 'done', 'stopped', 'dropped']);
    t.timestamp('sent_at', { useTz: true });
    /** Telnyx's clock (`call.speak.started`'s `occurred_at`). */
    t.timestamp('started_at', { useTz: true });
    t.timestamp('stop_requested_at', { useTz: true });
    /** Set on every chunk of a speech once its final `call.playback` was reported. */
    t.boolean('reported').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['carrier_call_id', 'speak_id', 'chunk']);
    t.index(['carrier_call_id', 'state', 'seq']);
    t.index(['created_at']);
  });
  await knex.schema.createTable('telnyx_calls', (t) => {
    t.text('carrier_call_id').primary();
    t.uuid('call_id').notNullable();
    /** The line's language when the call started: `multi` or the pinned code. */
    t.text('language').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('telnyx_calls');
  await knex.schema.dropTableIfExists('telnyx_speech_chunks');
}
