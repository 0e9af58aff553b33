import type { Knex } from 'knex';
import { queryPrepared } from '../../platform/db/prepared';

/*
 * Deferred `call.playback` reports (docs/decisions/calls.md, "Call turns (issue 14)"). A report of a
 * speech the call's workflow is not waiting on costs one INSERT here instead of a signal and a
 * workflow task; the next signal to that call carries the pending reports, oldest first, ahead of
 * its own event. Which speeches qualify is the workflow's rule: a webhook-mode turn marks its
 * reply's speak ids (`markDeferrable`), and the workflow closes the mark (`closeDeferral`, which
 * also hands it the reports already recorded) before it ever waits on their playback. The
 * report's insert and the close are serialised on the call's mark row, so a report either lands
 * before the close (and the close returns it) or finds no mark (and is signalled at once).
 */

/**
 * The speak ids (and a streamed reply's `<prefix><n>` chunk ids) whose playback reports may wait
 * for the call's next signal; replaces the previous turn's.
 */
export async function markDeferrable(db: Knex, callId: string, speakIds: readonly string[], speakPrefix: string | null): Promise<void> {
  await db.raw(MARK_DEFERRABLE_SQL, markDeferrableBindings(callId, speakIds, speakPrefix));
}

/** `markDeferrable`'s statement, for a caller that runs it inside its own (the webhook-mode turn's first statement). */
export const MARK_DEFERRABLE_SQL = `INSERT INTO call_playback_deferrals (call_id, speak_ids, speak_prefix) VALUES (?, ?::text[], ?)
     ON CONFLICT (call_id) DO UPDATE SET speak_ids = excluded.speak_ids, speak_prefix = excluded.speak_prefix`;

export const markDeferrableBindings = (callId: string, speakIds: readonly string[], speakPrefix: string | null) => [
  callId,
  [...speakIds],
  speakPrefix,
];

/** Records a report of a marked speech (true), or nothing when the speech is not marked (false: signal it). */
export async function deferPlaybackReport(db: Knex, callId: string, speakId: string, report: object): Promise<boolean> {
  const rows = await queryPrepared(
    db,
    'call_deferred_playback_record',
    `INSERT INTO call_deferred_playback (call_id, report)
     SELECT call_id, $1::jsonb FROM call_playback_deferrals WHERE call_id = $2 AND ($3 = ANY(speak_ids) OR starts_with($3, speak_prefix)) FOR SHARE
     RETURNING id`,
    [JSON.stringify(report), callId, speakId],
  );
  return rows.length > 0;
}

export interface PendingReports<T> {
  ids: string[];
  reports: T[];
}

/** The call's recorded reports, oldest first (kept until `acknowledgePlaybackReports`, so a failed signal loses none). */
export async function pendingPlaybackReports<T>(db: Knex, callId: string): Promise<PendingReports<T>> {
  const rows = await queryPrepared<{ id: string; report: T }>(
    db,
    'call_deferred_playback_pending',
    'SELECT id, report FROM call_deferred_playback WHERE call_id = $1 ORDER BY id',
    [callId],
  );
  return { ids: rows.map((row) => row.id), reports: rows.map((row) => row.report) };
}

/** Forgets reports a signal has carried to the workflow. */
export async function acknowledgePlaybackReports(db: Knex, ids: readonly string[]): Promise<void> {
  if (ids.length > 0)
    await queryPrepared(db, 'call_deferred_playback_acknowledge', 'DELETE FROM call_deferred_playback WHERE id = ANY($1::bigint[])', [
      [...ids],
    ]);
}

/**
 * The workflow is about to wait on its current speeches: no report of them is deferred from now
 * on, and the ones recorded so far are returned (they stay recorded until a signal carries them;
 * applying a report twice changes nothing).
 */
export async function closeDeferral<T>(db: Knex, callId: string): Promise<T[]> {
  // Waits for any report insert holding the mark row; the next statement sees what it recorded.
  await db('call_playback_deferrals')
    .where({ call_id: callId })
    .update({ speak_ids: db.raw(`'{}'::text[]`), speak_prefix: null });
  return (await pendingPlaybackReports<T>(db, callId)).reports;
}
