/**
 * Turns a model's streamed reply (text deltas) into speakable chunks, so speech can start after
 * the first sentence instead of after the whole reply. Pure and deterministic (the workflow
 * bundle may import it).
 *
 * A chunk ends where a sentence ends: a run of `.`, `!`, `?`, `…` or `؟` (with any closing
 * quotes or brackets after it) followed by whitespace or the end of the reply. The CJK full-width
 * `。`, `！`, `？` end a sentence by themselves, since CJK text puts no space after them. A `.`
 * after a common title or abbreviation (`Mr.`, `Dr.`, `e.g.`) does not end a sentence, nor does
 * one inside a number (`3.5`). A sentence longer than `MAX_CHUNK_CHARS` with no end in sight is
 * cut at the last word boundary within the limit (at the limit itself if there is none).
 *
 * Chunks are trimmed and never empty; joined with single spaces (without, for CJK) they read as
 * the reply.
 */

/** A sentence without punctuation is flushed once it grows past this many characters. */
export const MAX_CHUNK_CHARS = 200;

/** Need whitespace (or the end) after them to end a sentence: `3.5`, `Yahoo!Mail`, `...and`. */
const TERMINATORS = new Set(['.', '!', '?', '…', '؟']);
/** End a sentence wherever they stand. */
const CJK_TERMINATORS = new Set(['。', '！', '？']);
/** May follow a terminator within the same sentence: `He said "yes."`, `(really!)`. */
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '}', '»', '」', '』', '）']);
/** Words that a single `.` follows without ending the sentence (lower case, without the dot). */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'e.g', 'i.e', 'approx']);

const isSpace = (char: string) => /\s/u.test(char);

export interface SpeechChunker {
  /** Adds the next delta of the reply; returns the chunks it completed (often none), in order. */
  push(delta: string): string[];
  /** The reply is complete: returns what is left as a final chunk (or nothing), and starts afresh. */
  end(): string[];
}

export function createSpeechChunker(options: { maxChunkChars?: number } = {}): SpeechChunker {
  const maxChars = options.maxChunkChars ?? MAX_CHUNK_CHARS;
  let buffer = '';
  /** Everything before this index has been looked at and holds no sentence end. */
  let scanned = 0;

  /** Emits `buffer.slice(0, end)` (trimmed, if not blank) and keeps the rest. */
  const cut = (end: number, out: string[]) => {
    const chunk = buffer.slice(0, end).trim();
    if (chunk !== '') out.push(chunk);
    buffer = buffer.slice(end).replace(/^\s+/u, '');
    scanned = 0;
  };

  /** Index just past the sentence end found at or after `scanned`, or -1 (none yet, or undecided). */
  const findSentenceEnd = (final: boolean): number => {
    for (let i = scanned; i < buffer.length; i += 1) {
      const char = buffer[i];
      const cjk = CJK_TERMINATORS.has(char);
      if (!cjk && !TERMINATORS.has(char)) continue;
      let j = i + 1;
      while (j < buffer.length && (TERMINATORS.has(buffer[j]) || CJK_TERMINATORS.has(buffer[j]) || CLOSERS.has(buffer[j]))) j += 1;
      if (j === buffer.length) {
        if (final) return j;
        // Undecided until the next character arrives: more punctuation or a closing quote may
        // belong to this sentence, and a `.` may be a decimal point.
        scanned = i;
        return -1;
      }
      if (cjk || [...buffer.slice(i, j)].some((c) => CJK_TERMINATORS.has(c))) return j;
      if (isSpace(buffer[j]) && !(char === '.' && j === i + 1 && isAbbreviation(buffer, i))) return j;
      i = j - 1;
    }
    scanned = buffer.length;
    return -1;
  };

  /** Cut point of an over-long sentence: after the last whitespace within the limit, else at the limit. */
  const overflowCut = (): number => {
    for (let i = maxChars; i > 0; i -= 1) if (isSpace(buffer[i])) return i;
    // No word boundary at all (a long CJK clause, a URL): cut at the limit, never inside a surrogate pair.
    const code = buffer.charCodeAt(maxChars - 1);
    return code >= 0xd800 && code <= 0xdbff ? maxChars + 1 : maxChars;
  };

  const drain = (final: boolean): string[] => {
    const out: string[] = [];
    for (;;) {
      const end = findSentenceEnd(final);
      if (end !== -1 && end <= maxChars) {
        cut(end, out);
        continue;
      }
      if (buffer.length > maxChars) {
        // Also when the sentence ends past the limit: no chunk is longer than `maxChars`.
        cut(overflowCut(), out);
        continue;
      }
      return out;
    }
  };

  return {
    push(delta: string): string[] {
      if (delta === '') return [];
      buffer += delta;
      return drain(false);
    },
    end(): string[] {
      const out = drain(true);
      cut(buffer.length, out);
      buffer = '';
      scanned = 0;
      return out;
    },
  };
}

/** Whether the `.` at `dot` closes a known abbreviation (`Dr.`, `e.g.`) rather than a sentence. */
function isAbbreviation(text: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && !isSpace(text[start - 1]) && !CLOSERS.has(text[start - 1]) && text[start - 1] !== '(') start -= 1;
  return ABBREVIATIONS.has(text.slice(start, dot).toLowerCase());
}

/** Splits a complete text into speakable chunks at once (the same rules as the streaming chunker). */
export function speechChunks(text: string): string[] {
  const chunker = createSpeechChunker();
  return [...chunker.push(text), ...chunker.end()];
}
