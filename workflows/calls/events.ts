import type { SignalledCallEvent } from '../definitions/calls';

/** What the carrier reported about one speak command so far. */
export interface Playback {
  /** The words played (the latest report). */
  playedText: string;
  done: boolean;
  stopped: boolean;
  /** Carrier time of the stop, when it was stopped. */
  stoppedAt: number | null;
}

/** What a call's run carries over into the next one (continue-as-new) from its carrier events. */
export interface CarriedEvents {
  /** Caller sentences not taken yet, oldest first. */
  sentences: SignalledCallEvent[];
  /** Playback of the speech still in play (the agent's current reply). */
  playback: Array<[string, Playback]>;
  /** Keys of the latest sentences and transfer outcomes taken (`CallEvents.repeats`); absent in runs carried before them. */
  taken?: string[];
}

/** How many of the latest sentences and transfer outcomes a call remembers to know a redelivery (`CallEvents.repeats`). */
const TAKEN_KEPT = 32;

/**
 * What tells a caller sentence or a transfer outcome from another: the carrier's time of it (epoch
 * milliseconds) with its text (its length and first 64 characters: keys stay small in the run's state
 * and its continuation) or result. A redelivery carries the same body; two different sentences never
 * share a millisecond. Undefined for the events that are folded idempotently anyway.
 */
function takenKey(event: SignalledCallEvent): string | undefined {
  if (event.type === 'call.utterance') {
    const text = event.text ?? '';
    return `u:${event.at}:${text.length}:${text.slice(0, 64)}`;
  }
  if (event.type === 'call.transfer') return `t:${event.at}:${event.answered === true}`;
  return undefined;
}

const TERMINAL: ReadonlyArray<SignalledCallEvent['type']> = ['call.completed', 'call.busy', 'call.no_answer', 'call.failed'];

/**
 * The carrier's events for one call, folded as they arrive (the signal handler feeds it), so the
 * workflow keeps what it acts on rather than every event: the first answer and the first end,
 * a queue of the caller's sentences, and each speak command's playback.
 */
export class CallEvents {
  ringing = false;
  answered: SignalledCallEvent | undefined;
  /** Who answered, when the carrier says it after the answer (`call.machine_detection`): the first report. */
  detection: SignalledCallEvent | undefined;
  /** A machine's greeting ended (`call.greeting_ended`): the first report. */
  greetingEnded: SignalledCallEvent | undefined;
  terminal: SignalledCallEvent | undefined;
  readonly sentences: SignalledCallEvent[];
  /** Caller sentences this run has heard (a control request watches it for a barge-in). */
  heard = 0;
  readonly playback: Map<string, Playback>;
  /** Outcomes of transfers (`call.transfer`), in order: whether each destination answered. */
  readonly transfers: boolean[] = [];
  /** Keys of the latest sentences and transfer outcomes taken, oldest first (`takenKey`). */
  private readonly taken: string[];

  constructor(carried?: CarriedEvents) {
    this.sentences = [...(carried?.sentences ?? [])];
    this.playback = new Map(carried?.playback ?? []);
    this.taken = [...(carried?.taken ?? [])];
  }

  /**
   * Whether `event` is a sentence or transfer outcome taken lately, delivered again: carriers deliver at
   * least once (the simulator retries a callback whose answer it did not get in time; Telnyx redelivers
   * webhooks), and a sentence taken twice would be a second turn. Every other event folds idempotently.
   */
  repeats(event: SignalledCallEvent): boolean {
    const key = takenKey(event);
    return key !== undefined && this.taken.includes(key);
  }

  add(event: SignalledCallEvent): void {
    const key = takenKey(event);
    if (key !== undefined) {
      this.taken.push(key);
      if (this.taken.length > TAKEN_KEPT) this.taken.shift();
    }
    if (event.type === 'call.ringing') this.ringing = true;
    else if (event.type === 'call.answered') this.answered ??= event;
    else if (event.type === 'call.machine_detection') this.detection ??= event;
    else if (event.type === 'call.greeting_ended') this.greetingEnded ??= event;
    else if (event.type === 'call.utterance') {
      this.sentences.push(event);
      this.heard += 1;
    } else if (event.type === 'call.playback' && event.speak_id) {
      const before = this.playback.get(event.speak_id);
      this.playback.set(event.speak_id, {
        playedText: event.played_text ?? before?.playedText ?? '',
        done: (before?.done ?? false) || event.done === true,
        stopped: (before?.stopped ?? false) || event.stopped === true,
        stoppedAt: before?.stoppedAt ?? (event.stopped ? event.at : null),
      });
    } else if (event.type === 'call.transfer') this.transfers.push(event.answered === true);
    else if (TERMINAL.includes(event.type)) this.terminal ??= event;
  }

  finished(speakId: string): boolean {
    return this.playback.get(speakId)?.done ?? false;
  }

  stopped(speakId: string): boolean {
    return this.playback.get(speakId)?.stopped ?? false;
  }

  /** What the caller heard of one speak command ('' before any report). */
  played(speakId: string): string {
    return this.playback.get(speakId)?.playedText ?? '';
  }

  /** Speak ids starting with `prefix` that the carrier reported on, in chunk order (`<prefix><n>`). */
  reportedWithPrefix(prefix: string): string[] {
    return [...this.playback.keys()]
      .filter((id) => id.startsWith(prefix))
      .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)));
  }

  /** What the next run needs to go on with `speeches` still in play. */
  carry(speeches: readonly string[]): CarriedEvents {
    return {
      sentences: [...this.sentences],
      playback: speeches.flatMap((id) => (this.playback.has(id) ? [[id, this.playback.get(id)!] as [string, Playback]] : [])),
      taken: [...this.taken],
    };
  }
}
