import type { Db } from '../../../../platform/db/knex';

/** One speech for Twilio's `<Say>`: the voice already mapped to Twilio's. */
export interface TwilioSpeech {
  speakId: string;
  text: string;
  voice?: { voice: string; language: string };
}

/**
 * The speeches of each Twilio call, in order. Twilio runs one TwiML document at a time and a new
 * one replaces it, so only the first speech goes to Twilio at once; the others wait until the API
 * hears (`played`) that the one before ended and answers that request with the next.
 */
export interface TwilioSpeechQueue {
  /** Queues a speech; when none plays on the call, `play` hands it to Twilio (a failure queues nothing). Idempotent on `speakId`. */
  speak(callSid: string, speech: TwilioSpeech, play: (speech: TwilioSpeech) => Promise<void>): Promise<void>;
  /** The playing speech `endedSpeakId` ended: the next one, now playing, if any. */
  next(callSid: string, endedSpeakId: string): Promise<TwilioSpeech | undefined>;
  /** Drops the call's speeches (stop speaking, call over); `then` runs before anything can queue again. */
  clear(callSid: string, then?: () => Promise<void>): Promise<void>;
}

interface SpeechRow {
  speak_id: string;
  text: string;
  voice: string | null;
  state: 'queued' | 'playing';
}

const TABLE = 'twilio_speeches';

const fromRow = (row: SpeechRow): TwilioSpeech => ({
  speakId: row.speak_id,
  text: row.text,
  ...(row.voice ? { voice: JSON.parse(row.voice) as TwilioSpeech['voice'] } : {}),
});

/** The queue in Postgres, shared by the workers (which speak) and the API instances (which hear speech end); one lock per call. */
export function postgresSpeechQueue(db: Db): TwilioSpeechQueue {
  const locked = <T>(callSid: string, work: (trx: Db) => Promise<T>): Promise<T> =>
    db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`twilio_speech:${callSid}`]);
      return work(trx as unknown as Db);
    });
  return {
    speak: (callSid, speech, play) =>
      locked(callSid, async (trx) => {
        const inserted = await trx(TABLE)
          .insert({
            call_sid: callSid,
            speak_id: speech.speakId,
            text: speech.text,
            voice: speech.voice ? JSON.stringify(speech.voice) : null,
            state: 'queued',
          })
          .onConflict(['call_sid', 'speak_id'])
          .ignore()
          .returning('speak_id');
        if (inserted.length === 0) return;
        const playing = await trx(TABLE).where({ call_sid: callSid, state: 'playing' }).first();
        if (playing) return;
        await trx(TABLE).where({ call_sid: callSid, speak_id: speech.speakId }).update({ state: 'playing' });
        await play(speech);
      }),
    next: (callSid, endedSpeakId) =>
      locked(callSid, async (trx) => {
        await trx(TABLE).where({ call_sid: callSid, speak_id: endedSpeakId }).del();
        if (await trx(TABLE).where({ call_sid: callSid, state: 'playing' }).first()) return undefined;
        const row = (await trx(TABLE).where({ call_sid: callSid, state: 'queued' }).orderBy('seq').first()) as SpeechRow | undefined;
        if (!row) return undefined;
        await trx(TABLE).where({ call_sid: callSid, speak_id: row.speak_id }).update({ state: 'playing' });
        return fromRow(row);
      }),
    clear: (callSid, then) =>
      locked(callSid, async (trx) => {
        await trx(TABLE).where({ call_sid: callSid }).del();
        await then?.();
      }),
  };
}

/** The same queue in one process's memory (a single worker and API, and the adapter's unit tests). */
export function memorySpeechQueue(): TwilioSpeechQueue {
  const calls = new Map<string, { playing?: TwilioSpeech; queued: TwilioSpeech[]; seen: Set<string> }>();
  const of = (callSid: string) => calls.get(callSid) ?? calls.set(callSid, { queued: [], seen: new Set() }).get(callSid)!;
  return {
    async speak(callSid, speech, play) {
      const call = of(callSid);
      if (call.seen.has(speech.speakId)) return;
      if (call.playing) {
        call.seen.add(speech.speakId);
        call.queued.push(speech);
        return;
      }
      await play(speech);
      call.seen.add(speech.speakId);
      call.playing = speech;
    },
    async next(callSid, endedSpeakId) {
      const call = of(callSid);
      if (call.playing?.speakId === endedSpeakId) call.playing = undefined;
      if (call.playing) return undefined;
      call.playing = call.queued.shift();
      return call.playing;
    },
    async clear(callSid, then) {
      calls.delete(callSid);
      await then?.();
    },
  };
}
