import type { CallEvents } from './callEvents';
import type { LiveCall, SpeechItem, SpeechRecord } from './callRecords';

/** How fast text-to-speech plays, by default (settable with `POST /control/speech`). */
export const DEFAULT_WORDS_PER_SECOND = 20;
/** How often a playing speak command reports progress (`call.playback`, `done: false`). */
export const PLAYBACK_PROGRESS_MS = 250;

/**
 * Text-to-speech on the simulated calls: speak commands queue behind the one playing, which plays
 * word by word at the speed set when it starts and reports `call.playback` every
 * {@link PLAYBACK_PROGRESS_MS} and when it ends or is stopped.
 */
export class Playback {
  /** Text-to-speech speed for playbacks that start from now on. */
  wordsPerSecond = DEFAULT_WORDS_PER_SECOND;

  constructor(private readonly events: CallEvents) {}

  /** Queues `text` on the call, and starts it if nothing is playing. */
  enqueue(call: LiveCall, speakId: string, text: string, voice: string | null): SpeechRecord {
    const item: SpeechItem = {
      record: { speak_id: speakId, text, played_text: '', state: 'queued', voice, started_at: null },
      words: text
        .trim()
        .split(/\s+/)
        .filter((word) => word !== ''),
      wordsPerSecond: this.wordsPerSecond,
      startedAt: 0,
    };
    call.speech.push(item);
    if (!call.speech.some((other) => other.record.state === 'speaking')) this.startNext(call);
    return { ...item.record };
  }

  /** What was said on the call, oldest first, with the playing command's words so far. */
  said(call: LiveCall): SpeechRecord[] {
    return call.speech.map((item) => ({
      ...item.record,
      played_text: item.record.state === 'speaking' ? playedWords(item).join(' ') : item.record.played_text,
    }));
  }

  /**
   * Stops the playing speak command and drops the queued ones. With `report`, the playing one's
   * `call.playback` (`stopped: true`) is sent; a hang-up stops speech silently.
   */
  stop(call: LiveCall, report: boolean): { stopped: string | null; dropped: number } {
    if (call.speechTimer) {
      this.events.cancel(call.speechTimer);
      call.speechTimer = null;
    }
    let stopped: string | null = null;
    let dropped = 0;
    for (const item of call.speech) {
      if (item.record.state === 'speaking') {
        item.record.played_text = playedWords(item).join(' ');
        item.record.state = 'stopped';
        stopped = item.record.speak_id;
        if (report)
          this.events.emit(call, {
            type: 'call.playback',
            speak_id: item.record.speak_id,
            played_text: item.record.played_text,
            done: true,
            stopped: true,
          });
      } else if (item.record.state === 'queued') {
        item.record.state = 'stopped';
        dropped += 1;
      }
    }
    return { stopped, dropped };
  }

  /** Starts the oldest queued speak command, if any. */
  private startNext(call: LiveCall): void {
    const item = call.speech.find((other) => other.record.state === 'queued');
    if (!item) return;
    item.record.state = 'speaking';
    item.startedAt = Date.now();
    item.record.started_at = new Date(item.startedAt).toISOString();
    item.wordsPerSecond = this.wordsPerSecond;
    this.scheduleTick(call, item);
  }

  /**
   * The next progress tick, or the end of the text if that comes first. A timer may fire a
   * millisecond before `Date.now()` reaches its time (timers run on the monotonic clock): the tick
   * counts as at its time, so it never reports one boundary twice or ends a word early.
   */
  private scheduleTick(call: LiveCall, item: SpeechItem, from = Date.now()): void {
    const endsAt = item.startedAt + Math.ceil((item.words.length * 1000) / item.wordsPerSecond);
    const elapsed = from - item.startedAt;
    const nextTick = item.startedAt + (Math.floor(elapsed / PLAYBACK_PROGRESS_MS) + 1) * PLAYBACK_PROGRESS_MS;
    const at = Math.min(endsAt, nextTick);
    call.speechTimer = this.events.later(Math.max(0, at - Date.now()), () => {
      call.speechTimer = null;
      if (item.record.state !== 'speaking') return;
      const now = Math.max(Date.now(), at);
      if (now >= endsAt) {
        item.record.state = 'done';
        item.record.played_text = item.words.join(' ');
        this.events.emit(call, { type: 'call.playback', speak_id: item.record.speak_id, played_text: item.record.played_text, done: true });
        this.startNext(call);
        return;
      }
      item.record.played_text = playedWords(item, now).join(' ');
      this.events.emit(call, { type: 'call.playback', speak_id: item.record.speak_id, played_text: item.record.played_text, done: false });
      this.scheduleTick(call, item, now);
    });
  }
}

/** The words of a playing command heard so far (at `now`), by its speed and start. */
function playedWords(item: SpeechItem, now = Date.now()): string[] {
  const count = Math.floor(((now - item.startedAt) * item.wordsPerSecond) / 1000);
  return item.words.slice(0, Math.max(0, Math.min(item.words.length, count)));
}
