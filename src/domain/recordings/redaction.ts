import vm from 'node:vm';
import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js';
import type { BuiltInRedactionKind, RedactionSettings } from './redactionSettings';

/*
 * Finding personal data in a transcript entry's text and replacing it with a marker (issue 32 item 5;
 * docs/decisions/recordings.md "Redaction"): pure. What was there is not kept: a redaction records its kind and the
 * marker's place in the redacted text, never the original or its length.
 */

/** One redaction in a text: its kind (a built-in kind or a custom rule's name) and where its marker is, in code points. */
export interface Redaction {
  kind: string;
  start: number;
  length: number;
  /**
   * Where in the entry, when not its `text`: the path of a string in its tool call (`tool.arguments.card`,
   * `tool.result`), whose code points `start` and `length` count.
   */
  field?: string;
}

/** What replaces a redacted span. */
export const markerOf = (kind: string): string => `[REDACTED:${kind}]`;

/** A span found in the text (UTF-16 offsets, `end` excluded); a lower `rank` wins a tie. */
interface Span {
  kind: string;
  start: number;
  end: number;
  rank: number;
}

const RANK: Record<BuiltInRedactionKind, number> = { card_number: 0, us_ssn: 1, email: 2, phone_number: 3 };

/** The Luhn (mod 10) check of a string of digits (ISO/IEC 7812-1). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Card numbers: 13 to 19 ASCII digits, whole groups of a run of digits separated by single spaces or dashes (as a
 * speech-to-text engine writes a number read out in groups), passing the Luhn check. Of a longer run, every window
 * of whole groups is tried (a card number followed by its expiry date or security code is still found); a digit
 * run failing Luhn is not a card number and stays.
 */
function cardNumbers(text: string): Span[] {
  const spans: Span[] = [];
  for (const run of text.matchAll(/(?<![\d])\d+(?:[ -]\d+)*(?!\d)/g)) {
    const groups = [...run[0].matchAll(/\d+/g)].map((group) => ({
      digits: group[0],
      start: run.index + group.index,
      end: run.index + group.index + group[0].length,
    }));
    for (let first = 0; first < groups.length; first += 1) {
      let digits = '';
      for (let last = first; last < groups.length; last += 1) {
        digits += groups[last].digits;
        if (digits.length > 19) break;
        if (digits.length >= 13 && luhnValid(digits))
          spans.push({ kind: 'card_number', start: groups[first].start, end: groups[last].end, rank: RANK.card_number });
      }
    }
  }
  return spans;
}

/**
 * US Social Security numbers written NNN-NN-NNNN (or with spaces), without the numbers the SSA never issues: area
 * 000, 666 or 900-999, group 00, serial 0000 (SSA, "Social Security Number Randomization",
 * https://www.ssa.gov/employer/randomization.html; POMS RM 10201.035).
 */
function socialSecurityNumbers(text: string): Span[] {
  const pattern = /(?<![\d-])(?!000|666|9)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?!\d|-\d)/g;
  return [...text.matchAll(pattern)].map((match) => ({
    kind: 'us_ssn',
    start: match.index,
    end: match.index + match[0].length,
    rank: RANK.us_ssn,
  }));
}

/** Email addresses as text carries them: a local part, `@`, a domain with a dot and a top-level label of letters. */
function emails(text: string): Span[] {
  const pattern = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
  return [...text.matchAll(pattern)].map((match) => ({
    kind: 'email',
    start: match.index,
    end: match.index + match[0].length,
    rank: RANK.email,
  }));
}

/** Phone numbers, by libphonenumber's finder: international ones, and national ones of `country`. */
function phoneNumbers(text: string, country: CountryCode): Span[] {
  return findPhoneNumbersInText(text, { defaultCountry: country }).map((found) => ({
    kind: 'phone_number',
    start: found.startsAt,
    end: found.endsAt,
    rank: RANK.phone_number,
  }));
}

/**
 * How long one custom rule may take on one text. JavaScript cannot bound a regular expression's time, and the
 * settings' syntactic rule (`customPatternProblem`) does not catch every pattern that backtracks for ever, so custom
 * rules run in a `vm` context with this timeout (V8 interrupts a running regular expression): one workspace's rule
 * cannot stall the worker every workspace's calls share.
 */
export const CUSTOM_RULE_TIMEOUT_MS = 50;
/**
 * The bound of the second run of a rule that ran out of time. Node's bound is wall-clock time (a watchdog thread), so
 * a garbage collection or a busy machine can use up 50 ms of a run that needs microseconds; failing closed then would
 * wipe the entry for nothing. A rule that backtracks runs out of time again, and only then does it fail closed.
 */
export const CUSTOM_RULE_CONFIRM_TIMEOUT_MS = 500;
/** The bounds of a custom rule's runs on one text, in order: the first, then the confirmation. */
export const CUSTOM_RULE_BOUNDS_MS: readonly number[] = [CUSTOM_RULE_TIMEOUT_MS, CUSTOM_RULE_CONFIRM_TIMEOUT_MS];
const customContext = vm.createContext({ text: '', pattern: '' });
const customScript = new vm.Script(
  'Array.from(text.matchAll(new RegExp(pattern, "gu")), (m) => [m.index, m[0].length]).filter((m) => m[1] > 0)',
);

/** What running a custom rule on a text gave: its matches (UTF-16 `[start, length]`) or `timed_out`, after `runs` runs. */
export interface CustomRuleRun {
  matches: Array<[number, number]> | 'timed_out';
  runs: number;
}

/** A custom rule's matches in `text`: run under each bound of `boundsMs` in turn until one run finishes. */
export function runCustomRule(text: string, pattern: string, boundsMs: readonly number[] = CUSTOM_RULE_BOUNDS_MS): CustomRuleRun {
  let runs = 0;
  for (const timeout of boundsMs) {
    runs += 1;
    customContext.text = text;
    customContext.pattern = pattern;
    try {
      return { matches: customScript.runInContext(customContext, { timeout }) as Array<[number, number]>, runs };
    } catch {
      // Out of time: the next bound, if any, tells a slow rule from a stalled process.
    } finally {
      customContext.text = '';
    }
  }
  return { matches: 'timed_out', runs };
}

/** A custom rule's matches as spans, or `timed_out`. */
function customMatches(
  text: string,
  rule: { name: string; pattern: string },
  rank: number,
  boundsMs: readonly number[] | undefined,
): Span[] | 'timed_out' {
  const { matches } = runCustomRule(text, rule.pattern, boundsMs);
  if (matches === 'timed_out') return matches;
  return matches.map(([start, length]) => ({ kind: rule.name, start, end: start + length, rank }));
}

/** Non-overlapping spans: the longest first, a tie to the lower rank (card, SSN, email, phone, custom rules in order). */
function chosen(spans: Span[], kept: Span[]): Span[] {
  const ordered = [...spans].sort((a, b) => b.end - b.start - (a.end - a.start) || a.rank - b.rank || a.start - b.start);
  const taken: Span[] = [...kept];
  const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;
  for (const span of ordered) if (!taken.some((other) => overlaps(span, other))) taken.push(span);
  return taken.sort((a, b) => a.start - b.start);
}

/** The UTF-16 offset of code point `index` of `text`. */
function utf16Offset(text: string, index: number): number {
  let offset = 0;
  for (let i = 0; i < index && offset < text.length; i += 1) offset += (text.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
  return offset;
}

const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

/**
 * `text` with what `settings` redacts replaced by markers, and the redactions made. `earlier` are the redactions the
 * text already carries (it was redacted before): their markers are left as they are (and moved as the text around
 * them changes); what else is found now is added. Phone numbers written nationally are read as `country`'s.
 * `ruleBoundsMs` replaces the custom rules' time bounds (`CUSTOM_RULE_BOUNDS_MS`).
 */
export function redactText(
  text: string,
  settings: Pick<RedactionSettings, 'kinds' | 'custom'>,
  options: { country?: CountryCode; earlier?: readonly Redaction[]; ruleBoundsMs?: readonly number[] } = {},
): { text: string; redactions: Redaction[] } {
  const earlier = options.earlier ?? [];
  if (settings.kinds.length === 0 && settings.custom.length === 0) return { text, redactions: [...earlier] };
  const found: Span[] = [];
  if (settings.kinds.includes('card_number')) found.push(...cardNumbers(text));
  if (settings.kinds.includes('us_ssn')) found.push(...socialSecurityNumbers(text));
  if (settings.kinds.includes('email')) found.push(...emails(text));
  if (settings.kinds.includes('phone_number')) found.push(...phoneNumbers(text, options.country ?? 'US'));
  for (const [index, rule] of settings.custom.entries()) {
    const matches = customMatches(text, rule, 10 + index, options.ruleBoundsMs);
    // Failing closed: a rule that ran out of time twice redacts the whole text, so nothing it might have found is kept.
    if (matches === 'timed_out') {
      const marker = markerOf(rule.name);
      return { text: marker, redactions: [{ kind: rule.name, start: 0, length: codePoints(marker) }] };
    }
    found.push(...matches);
  }
  const kept = earlier.map((redaction): Span & { earlier: true } => {
    const start = utf16Offset(text, redaction.start);
    return { kind: redaction.kind, start, end: utf16Offset(text, redaction.start + redaction.length), rank: -1, earlier: true };
  });
  const spans = chosen(found, kept);
  let redacted = '';
  let at = 0;
  let length = 0;
  const redactions: Redaction[] = [];
  for (const span of spans) {
    const before = text.slice(at, span.start);
    redacted += before;
    length += codePoints(before);
    const replacement = 'earlier' in span ? text.slice(span.start, span.end) : markerOf(span.kind);
    const size = codePoints(replacement);
    redactions.push({ kind: span.kind, start: length, length: size });
    redacted += replacement;
    length += size;
    at = span.end;
  }
  redacted += text.slice(at);
  return { text: redacted, redactions };
}

/** A transcript entry as far as redaction is concerned: its text and the redactions it already carries. */
export interface RedactableEntry {
  text: string;
  redactions?: Redaction[];
}

/**
 * The entry with its text redacted and its redactions recorded (`redactions` absent when there are none). An entry
 * redacted before keeps its markers; only what is found now is added.
 */
export function redactEntry<T extends RedactableEntry>(
  entry: T,
  settings: Pick<RedactionSettings, 'kinds' | 'custom'>,
  country?: CountryCode,
): T & { redactions?: Redaction[] } {
  const earlier = entry.redactions ?? [];
  const options = country ? { country } : {};
  const { text, redactions } = redactText(entry.text, settings, { ...options, earlier: earlier.filter((r) => r.field === undefined) });
  const { redactions: _earlier, ...rest } = entry;
  // A hosted call's tool call (its arguments and what the model was given back) is part of the entry as stored.
  const tool = (entry as { tool?: unknown }).tool;
  const inTool: Redaction[] = [];
  const redactedTool =
    tool && typeof tool === 'object'
      ? redactStrings(tool, 'tool', (value, field) => {
          const found = redactText(value, settings, { ...options, earlier: earlier.filter((r) => r.field === field) });
          inTool.push(...found.redactions.map((redaction) => ({ ...redaction, field })));
          return found.text;
        })
      : tool;
  const all = [...redactions, ...inTool];
  return { ...rest, text, ...(tool !== undefined ? { tool: redactedTool } : {}), ...(all.length > 0 ? { redactions: all } : {}) } as T;
}

/**
 * `value` with every string in it replaced by `redact(string, path)`: object keys and array indexes joined by dots
 * from `path`. The tool call's `id` and `name` are the model's identifiers, never the caller's words: kept.
 */
export function redactStrings(value: unknown, path: string, redact: (text: string, field: string) => string): unknown {
  if (typeof value === 'string') return redact(value, path);
  if (Array.isArray(value)) return value.map((item, index) => redactStrings(item, `${path}.${index}`, redact));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) =>
        path === 'tool' && (key === 'id' || key === 'name') ? [key, item] : [key, redactStrings(item, `${path}.${key}`, redact)],
      ),
    );
  return value;
}
