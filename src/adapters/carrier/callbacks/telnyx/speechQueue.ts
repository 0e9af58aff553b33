import type { Knex } from 'knex';
import type { Db } from '../../../../platform/db/knex';
import { CarrierRejectedError } from '../../port';
import { estimatePlayed, joinPlayed } from './speechText';

/**
 * The speech of Telnyx calls, in Postgres (every API and worker instance sees the same queue): each speech
 * is cut into `speak` commands (./speechText.ts) and the commands of a call are sent ONE AT A TIME, the next
 * once Telnyx reported the previous one ended. Telnyx documents `client_state` as state added "to every
 * subsequent webhook" of the call (telnyx 7.24.0 `ActionSpeakParams.client_state`; the `client_state_update`
 * command "Updates client state for every subsequent webhook"), so with two commands queued at Telnyx a
 * `call.speak.ended` would name the later one: with one outstanding command, each `call.speak.started`/
 * `ended` is that command's, whatever its `client_state` says. The cost is one webhook round trip between
 * commands (docs/decisions/telnyx.md "Telnyx speech (issue 26)").
 *
 * Stopping (`stopSpeaking`, or a barge-in seen in `call.transcription`): the outstanding command becomes
 * `stopping` and `playback_stop` is sent; the queued ones are dropped. Telnyx answers `playback_stop` with
 * `call.speak.ended` ("Expected Webhooks: call.playback.ended or call.speak.ended",
 * developers.telnyx.com/api-reference/call-commands/stop-audio-playback) whose `status` can only be
 * `completed` (the documented values are completed, call_hangup, cancelled_amd): our own `stopping` state,
 * not the status, says it was cut, and what was heard is estimated from the playing time.
 */

/** One command as sent: `ref` goes into `client_state`. */
export interface SpeechChunkCommand {
  carrierCallId: string;
  ref: string;
  speakId: string;
  chunk: number;
  text: string;
  voice: string;
}

/** The Telnyx commands the queue sends (the adapter's, with its client): refusals are `CarrierRejectedError`. */
export interface TelnyxSpeechCommands {
  speak(command: SpeechChunkCommand): Promise<void>;
  /** `playback_stop` (`stop: all`); an ended call is fine. */
  stop(carrierCallId: string): Promise<void>;
}

/** What to report as the speech's `call.playback`. */
export interface SpeechReport {
  speakId: string;
  playedText: string;
  done: boolean;
  stopped: boolean;
}

export interface TelnyxSpeechQueue {
  /** Queues a speech's chunks (idempotent on the speak id) and sends the next command if none is outstanding. */
  enqueue(request: { carrierCallId: string; speakId: string; chunks: string[]; voice: string }): Promise<void>;
  /** Stops the outstanding command and drops the queued ones; reports what cannot wait for Telnyx's `call.speak.ended`. */
  stop(carrierCallId: string): Promise<SpeechReport[]>;
  /** `call.speak.started` (Telnyx's time). */
  started(carrierCallId: string, at: Date): Promise<void>;
  /** `call.speak.ended` (Telnyx's time and status): the outstanding command's end, what to report, and the next command sent. */
  ended(carrierCallId: string, at: Date, status: string): Promise<SpeechReport[]>;
}

interface ChunkRow {
  seq: string;
  carrier_call_id: string;
  speak_id: string;
  chunk: number;
  chunks: number;
  text: string;
  voice: string;
  state: 'queued' | 'sent' | 'playing' | 'stopping' | 'done' | 'stopped' | 'dropped';
  sent_at: Date | null;
  started_at: Date | null;
  stop_requested_at: Date | null;
  reported: boolean;
}

const TABLE = 'telnyx_speech_chunks';
const OUTSTANDING = ['sent', 'playing', 'stopping'];

/**
 * An outstanding command whose `call.speak.ended` never came (a webhook lost: Telnyx does not retry voice
 * webhooks) must not silence the call: it counts as over once it has had far longer than it can play
 * (8 characters a second, plus 15 s), or 5 s after a stop. Its report is lost; the call flow goes on.
 */
const staleAfterMs = (row: ChunkRow): number => (row.state === 'stopping' ? 5_000 : (row.text.length / 8) * 1000 + 15_000);

export function postgresTelnyxSpeechQueue(
  db: Db,
  commands: TelnyxSpeechCommands,
  /** A next command that could not be sent after an end (Telnyx unreachable): the next speech or stop sends or drops it. */
  onSendFailure: (err: unknown, carrierCallId: string) => void = () => undefined,
): TelnyxSpeechQueue {
  /** Runs `work` holding the call's lock: one writer of a call's queue at a time, across instances. */
  const locked = <T>(carrierCallId: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
    db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`telnyx-speech:${carrierCallId}`]);
      return work(trx);
    });

  const outstanding = async (trx: Knex.Transaction, carrierCallId: string) =>
    trx<ChunkRow>(TABLE).where({ carrier_call_id: carrierCallId }).whereIn('state', OUTSTANDING).orderBy('seq').first();

  /** What was played of a speech's finished chunks. */
  const doneText = async (trx: Knex.Transaction, carrierCallId: string, speakId: string) =>
    (await trx<ChunkRow>(TABLE).where({ carrier_call_id: carrierCallId, speak_id: speakId, state: 'done' }).orderBy('chunk')).map(
      (row) => row.text,
    );

  const markReported = (trx: Knex.Transaction, carrierCallId: string, speakIds: string[]) =>
    trx(TABLE).where({ carrier_call_id: carrierCallId }).whereIn('speak_id', speakIds).update({ reported: true });

  /** Speeches dropped by a stop and not yet reported: stopped, with what was played of them. */
  async function droppedReports(trx: Knex.Transaction, carrierCallId: string, except: string[] = []): Promise<SpeechReport[]> {
    const rows = await trx<ChunkRow>(TABLE)
      .where({ carrier_call_id: carrierCallId, state: 'dropped', reported: false })
      .whereNotIn('speak_id', except)
      .orderBy('seq');
    const speakIds = [...new Set(rows.map((row) => row.speak_id))];
    const reports: SpeechReport[] = [];
    for (const speakId of speakIds)
      reports.push({ speakId, playedText: joinPlayed(await doneText(trx, carrierCallId, speakId)), done: true, stopped: true });
    await markReported(trx, carrierCallId, speakIds);
    return reports;
  }

  /**
   * Sends the next queued command unless one is outstanding. A refused command (the call is over, or Telnyx
   * will not say it) drops its speech and the next is tried; the refusal of `speakId`'s own is returned.
   */
  async function pump(trx: Knex.Transaction, carrierCallId: string, speakId?: string): Promise<CarrierRejectedError | undefined> {
    let refusal: CarrierRejectedError | undefined;
    const current = await outstanding(trx, carrierCallId);
    if (current) {
      const { rows } = await trx.raw<{ rows: Array<{ stale: boolean }> }>(
        `select coalesce(?::timestamptz, ?::timestamptz) < now() - ? * interval '1 millisecond' as stale`,
        [current.stop_requested_at, current.sent_at, staleAfterMs(current)],
      );
      if (!rows[0].stale) return undefined;
      await trx(TABLE)
        .where({ seq: current.seq })
        .update({ state: current.state === 'stopping' ? 'stopped' : 'done' });
    }
    for (;;) {
      const next = await trx<ChunkRow>(TABLE).where({ carrier_call_id: carrierCallId, state: 'queued' }).orderBy('seq').first();
      if (!next) return refusal;
      try {
        await commands.speak({
          carrierCallId,
          ref: next.seq,
          speakId: next.speak_id,
          chunk: next.chunk,
          text: next.text,
          voice: next.voice,
        });
      } catch (err) {
        if (!(err instanceof CarrierRejectedError)) throw err;
        // The rest of that speech is not said; a speech refused before any of it was sent is forgotten, so the
        // same speak id may be asked again (as the port's other carriers, which keep no refused speech).
        await trx(TABLE).where({ carrier_call_id: carrierCallId, speak_id: next.speak_id, state: 'queued' }).del();
        if (next.speak_id === speakId) refusal = err;
        continue;
      }
      await trx(TABLE).where({ seq: next.seq }).update({ state: 'sent', sent_at: trx.fn.now() });
      return refusal;
    }
  }

  return {
    async enqueue({ carrierCallId, speakId, chunks, voice }) {
      const refusal = await locked(carrierCallId, async (trx) => {
        await trx(TABLE)
          .insert(
            chunks.map((text, chunk) => ({
              carrier_call_id: carrierCallId,
              speak_id: speakId,
              chunk,
              chunks: chunks.length,
              text,
              voice,
              state: 'queued',
            })),
          )
          .onConflict(['carrier_call_id', 'speak_id', 'chunk'])
          .ignore();
        return pump(trx, carrierCallId, speakId);
      });
      if (refusal) throw refusal;
    },

    stop: (carrierCallId) =>
      locked(carrierCallId, async (trx) => {
        await trx(TABLE).where({ carrier_call_id: carrierCallId, state: 'queued' }).update({ state: 'dropped' });
        const current = await outstanding(trx, carrierCallId);
        // Its `call.speak.ended` reports it and the dropped ones.
        if (current?.state === 'stopping') return [];
        if (current) {
          await trx(TABLE).where({ seq: current.seq }).update({ state: 'stopping', stop_requested_at: trx.fn.now() });
          await commands.stop(carrierCallId);
          return [];
        }
        return droppedReports(trx, carrierCallId);
      }),

    started: (carrierCallId, at) =>
      locked(carrierCallId, async (trx) => {
        const current = await outstanding(trx, carrierCallId);
        if (!current) return;
        await trx(TABLE)
          .where({ seq: current.seq })
          .update({ state: current.state === 'sent' ? 'playing' : current.state, started_at: current.started_at ?? at });
      }),

    ended: (carrierCallId, at, status) =>
      locked(carrierCallId, async (trx) => {
        const current = await outstanding(trx, carrierCallId);
        if (!current) return [];
        // The port: a hang-up ends speech without a playback report.
        if (status === 'call_hangup') {
          await trx(TABLE)
            .where({ carrier_call_id: carrierCallId })
            .whereIn('state', [...OUTSTANDING, 'queued'])
            .update({ state: 'dropped', reported: true });
          return [];
        }
        const reports: SpeechReport[] = [];
        const before = await doneText(trx, carrierCallId, current.speak_id);
        if (current.state === 'stopping' || status === 'cancelled_amd') {
          const from = current.started_at ?? current.sent_at ?? at;
          await trx(TABLE).where({ seq: current.seq }).update({ state: 'stopped' });
          await trx(TABLE)
            .where({ carrier_call_id: carrierCallId, speak_id: current.speak_id, state: 'queued' })
            .update({ state: 'dropped' });
          const heard = estimatePlayed(current.text, at.getTime() - from.getTime());
          reports.push({ speakId: current.speak_id, playedText: joinPlayed([...before, heard]), done: true, stopped: true });
          await markReported(trx, carrierCallId, [current.speak_id]);
          reports.push(...(await droppedReports(trx, carrierCallId, [current.speak_id])));
        } else {
          await trx(TABLE).where({ seq: current.seq }).update({ state: 'done' });
          const last = current.chunk === current.chunks - 1;
          reports.push({ speakId: current.speak_id, playedText: joinPlayed([...before, current.text]), done: last, stopped: false });
          if (last) await markReported(trx, carrierCallId, [current.speak_id]);
        }
        try {
          await pump(trx, carrierCallId);
        } catch (err) {
          // The end stays recorded (and reported): only the next command waits.
          onSendFailure(err, carrierCallId);
        }
        return reports;
      }),
  };
}

/** How long rows are kept: far longer than any call (calls end within hours). */
export const SPEECH_RETENTION_MS = 2 * 24 * 3600 * 1000;

export async function purgeOldTelnyxSpeech(db: Db, at: Date): Promise<number> {
  return db(TABLE)
    .where('created_at', '<', new Date(at.getTime() - SPEECH_RETENTION_MS))
    .del();
}
