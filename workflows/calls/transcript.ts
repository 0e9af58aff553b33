import type { ConversationTurn } from '../../src/adapters/model/port';
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

  /** An entry written to the call record but kept out of the conversation's context (the agent's key presses). */
  note(entry: Omit<SequencedEntry, 'seq'>): SequencedEntry {
    const sequenced = { ...entry, seq: this.nextSeq++ };
    this.unwritten.push(sequenced);
    return sequenced;
  }

  /**
   * The caller talked over the agent and heard `heard` of it: the agent's entries since the caller
   * last spoke (or just `only`) are cut to that, in order: an entry heard to its end stays, the one
   * cut off keeps its heard part, any after it keeps nothing; each cut entry is marked `interrupted`
   * and rewritten on the next flush (an append of the same `seq` replaces it). When `heard` is not
   * what those entries begin with (they are not the speech that was cut), nothing changes.
   */
  cutToHeard(heard: string, only?: SequencedEntry): void {
    let since = this.entries.length;
    while (since > 0 && this.entries[since - 1].role !== 'user') since -= 1;
    const spoken = only ? [only] : this.entries.slice(since).filter((entry) => entry.role === 'assistant' && entry.kind === undefined);
    const said = spoken.map((entry) => entry.text).join(' ');
    if (spoken.length === 0 || !said.startsWith(heard) || said === heard) return;
    let rest = heard;
    for (const entry of spoken) {
      if (rest.startsWith(entry.text) && (rest.length === entry.text.length || rest[entry.text.length] === ' ')) {
        rest = rest.slice(entry.text.length + 1);
        continue;
      }
      entry.text = rest.trim();
      entry.interrupted = true;
      rest = '';
      this.unwritten.push(entry);
    }
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

  context(): Array<Pick<SequencedEntry, 'role' | 'text' | 'timestamp'>> {
    return this.tail()
      .filter((entry) => entry.kind === undefined)
      .map(({ role, text, timestamp }) => ({ role, text, timestamp }));
  }

  /** The last turns as the model reads them: what was said, and each tool it called with what it was given back. */
  modelTurns(): ConversationTurn[] {
    return this.tail().map((entry): ConversationTurn => {
      if (entry.kind !== 'tool' || !entry.tool) return { role: entry.role, text: entry.text };
      const { id, name, arguments: args, result } = entry.tool;
      return { role: 'tool', call: { id, name, arguments: JSON.stringify(args) }, result };
    });
  }
}
