/**
 * Speech text on Telnyx, pure. Telnyx's `speak` takes at most 3,000 characters ("The text or SSML to be
 * converted into speech. There is a 3,000 character limit.", telnyx 7.24.0 `ActionSpeakParams.payload`,
 * node_modules/telnyx/resources/calls/actions.d.ts), while the API accepts 5,000: a longer speech is cut into
 * commands played in order, at sentence boundaries, then word boundaries, then (a single "word" longer than
 * the limit) at the limit.
 */
export const TELNYX_SPEAK_MAX_CHARS = 3_000;

/** Characters: what Telnyx counts (UTF-16 code units, as `String.length`; a surrogate pair is never cut). */
const length = (text: string) => text.length;

/** Splits `text` into chunks of at most `max` characters, in order, each trimmed; joined with a space they read as the text. */
export function splitSpeech(text: string, max = TELNYX_SPEAK_MAX_CHARS): string[] {
  const trimmed = text.trim();
  if (length(trimmed) <= max) return trimmed === '' ? [] : [trimmed];
  const sentences = [...new Intl.Segmenter(undefined, { granularity: 'sentence' }).segment(trimmed)].map((s) => s.segment);
  return pack(
    sentences.flatMap((sentence) => (length(sentence.trim()) <= max ? [sentence] : splitLong(sentence, max))),
    max,
  );
}

/** A sentence longer than the limit: its words, and a word longer than the limit cut at it. */
function splitLong(sentence: string, max: number): string[] {
  const words = [...new Intl.Segmenter(undefined, { granularity: 'word' }).segment(sentence)].map((s) => s.segment);
  const pieces = words.flatMap((word) => {
    const out: string[] = [];
    let rest = word;
    while (length(rest) > max) {
      let cut = max;
      // Never between the halves of a surrogate pair.
      if (/[\uD800-\uDBFF]/.test(rest[cut - 1])) cut -= 1;
      out.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    return [...out, rest];
  });
  return pack(pieces, max);
}

/** Greedy: consecutive pieces joined while the chunk stays within `max` once trimmed. */
function pack(pieces: string[], max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current !== '' && length((current + piece).trim()) > max) {
      chunks.push(current.trim());
      current = '';
    }
    current += piece;
  }
  if (current.trim() !== '') chunks.push(current.trim());
  return chunks.filter((chunk) => chunk !== '');
}

/**
 * How fast Telnyx's voices are assumed to speak when estimating what a caller heard of a speech that was
 * cut short: Telnyx reports no played position for `speak` (`call.speak.ended` has only `status`). About
 * 12 characters a second (~135 words a minute) is at the slow end of neural voices at their default rate,
 * so the estimate errs on the side the spec allows: `partial_response_text` "may slightly under-report".
 */
export const ASSUMED_CHARS_PER_SECOND = 12;

/**
 * The words of `text` a caller heard in `playedMs` of playback: those whose last character falls within
 * the characters spoken at ASSUMED_CHARS_PER_SECOND, joined with single spaces (the wire's `played_text`).
 */
export function estimatePlayed(text: string, playedMs: number): string {
  const budget = Math.max(0, Math.floor((playedMs * ASSUMED_CHARS_PER_SECOND) / 1000));
  const heard: string[] = [];
  let spoken = 0;
  for (const word of words(text)) {
    spoken += (heard.length > 0 ? 1 : 0) + length(word);
    if (spoken > budget) break;
    heard.push(word);
  }
  return heard.join(' ');
}

/** The words of a text, as the wire counts them (split on white space). */
export const words = (text: string): string[] =>
  text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');

/** Texts joined as played text: the words of each, with single spaces. */
export const joinPlayed = (texts: string[]): string => texts.flatMap(words).join(' ');
