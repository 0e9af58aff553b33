import type { SequencedEntry } from '../../src/domain/calls/store';
import { records } from './activities';

/** Turns of context when a line sets no context_limit. */
const DEFAULT_CONTEXT_TURNS = 20;

/**
 * The call's transcript, kept here only as far as the conversation needs it (the last turns),
 * and appended to the call record in batches: entries are merged by `seq`, so retries and
 * concurrent writers are harmless.
 */
export class Transcript {
  /** Turns of context sent with each `message` and to the model (the line's context_limit). */
  readonly contextLimit: number;
  /** The latest entries, oldest first. */
  readonly entries: SequencedEntry[];
  /** The next entry's `seq`. */
  nextSeq: number;
  /** Entries not yet appended to the call record. */
  readonly unwritten: SequencedEntry[] = [];

  constructor(
    private readonly callId: string,
    contextLimit: number | null | undefined,
    carried?: { transcriptTail: SequencedEntry[]; nextSeq: number },
  ) {
    this.contextLimit = contextLimit ?? DEFAULT_CONTEXT_TURNS;
    this.entries = [...(carried?.transcriptTail ?? [])];
    this.nextSeq = carried?.nextSeq ?? 0;
  }

  /** A new entry, numbered next (the caller decides whether it still needs writing). */
  add(entry: Omit<SequencedEntry, 'seq'>): SequencedEntry {
    const sequenced = { ...entry, seq: this.nextSeq++ };
    this.entries.push(sequenced);
    if (this.entries.length > this.contextLimit * 2) this.entries.splice(0, this.entries.length - this.contextLimit);
    return sequenced;
  }

  /** Appends what is unwritten to the call record. */
  async flush(): Promise<void> {
    if (this.unwritten.length === 0) return;
    const batch = this.unwritten.splice(0);
    await records.appendTranscript(this.callId, batch);
  }

  /** The last turns, as the model and the `message` event see them. */
  tail(): SequencedEntry[] {
    return this.entries.slice(-this.contextLimit);
  }

  context(): Array<Omit<SequencedEntry, 'seq'>> {
    return this.tail().map(({ role, text, timestamp }) => ({ role, text, timestamp }));
  }
}
