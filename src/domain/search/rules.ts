import type { NumberMatch } from '../../platform/db/numberMatch';
import { toE164 } from '../../platform/phone';

/**
 * What an operator typed into the portal's search box, read as one of: an id (a call, a delivery, an
 * event, a line or a message), a phone number (whole, or a run of its digits), or words (a line's name).
 */
export type SearchTerm = { kind: 'id'; id: string } | { kind: 'number'; number: NumberMatch } | { kind: 'words'; text: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What people put around a number's digits: spaces, dashes, dots, brackets. */
const NUMBER_PUNCTUATION = /[\s\-.()]/g;
/** Fewer digits than this match too many numbers to be a search for one. */
export const MIN_NUMBER_DIGITS = 4;
/** Longer input is not a search anyone types: refused before it reaches a query. */
export const MAX_SEARCH_LENGTH = 200;

/** A typed number: a whole E.164 number (`+1 (415) 555-0123`), or digits a number contains (`0123`, `415 555`). */
export function numberMatchOf(input: string): NumberMatch | undefined {
  const compact = input.trim().replace(NUMBER_PUNCTUATION, '');
  if (!/^\+?\d+$/.test(compact)) return undefined;
  const digits = compact.replace('+', '');
  if (digits.length < MIN_NUMBER_DIGITS) return undefined;
  // Only with its `+` is a number whole: `4155550123` could be any country's, so it is searched as digits.
  const e164 = compact.startsWith('+') ? toE164(compact) : undefined;
  return e164 ? { e164 } : { digits };
}

/** The search term `input` is; undefined for an empty search. */
export function searchTermOf(input: string): SearchTerm | undefined {
  const text = input.trim();
  if (!text) return undefined;
  if (UUID.test(text)) return { kind: 'id', id: text.toLowerCase() };
  const number = numberMatchOf(text);
  if (number) return { kind: 'number', number };
  return { kind: 'words', text };
}
