import type { AppContext } from '../context';
import { ApiError, errors, type ErrorDetail } from '../errors';
import { isUuid, parseDate, parseDateTime } from '../openapi/formats';
import { MIN_NUMBER_DIGITS, numberMatchOf } from '../../src/domain/search/rules';

/**
 * The filters of the portal's lists (calls, deliveries) as their query strings carry them, read in one
 * place: a value that is not one the list knows is the page's own 422 `validation_error`, naming the
 * field, never a silent "all" (issue 30, item 5). Times are UTC in the URL.
 */

/** How one filter's value is checked: one of a set, a UUID, a time bound, or a phone number (whole or some of its digits). */
export type FilterRule = { oneOf: readonly string[] } | 'uuid' | 'from' | 'to' | 'number';

/** A time bound as typed: a date (`2026-11-28`), a minute or second of a UTC day (`2026-11-28T09:30`), or RFC 3339 with its zone. */
const LOCAL_MINUTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const LOCAL_SECOND = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const UNIT_MS = { day: 86_400_000, minute: 60_000, second: 1_000, instant: 1 } as const;

/**
 * The instant a bound names, how long its unit lasts, and the bound as a date-and-time picker shows it:
 * a bound covers its whole unit, so `to=2026-11-28` keeps every call of that UTC day (shown as 23:59)
 * and `to=…T09:30` the whole minute.
 */
export function readTimeBound(value: string, side: 'from' | 'to'): { at: Date; unitMs: number; picker: string } | undefined {
  const date = parseDate(value);
  if (date) return { at: date, unitMs: UNIT_MS.day, picker: `${value}T${side === 'from' ? '00:00' : '23:59'}` };
  if (LOCAL_MINUTE.test(value)) return at(parseDateTime(`${value}:00Z`), UNIT_MS.minute, value);
  if (LOCAL_SECOND.test(value)) return at(parseDateTime(`${value}Z`), UNIT_MS.second, value);
  const instant = parseDateTime(value);
  return at(instant, UNIT_MS.instant, instant?.toISOString().slice(0, 19));
}

function at(instant: Date | undefined, unitMs: number, picker: string | undefined) {
  return instant && picker ? { at: instant, unitMs, picker } : undefined;
}

/** The created-at range of a list: from the start of `from`'s unit, to before the end of `to`'s. */
export interface TimeRange {
  from?: Date;
  before?: Date;
}

export interface ReadFilters<Name extends string> {
  /** Each filter's value as typed ('' when absent), a time bound as its picker shows it: the form shows them again. */
  values: Record<Name, string>;
  range: TimeRange;
  /** The refusal to show instead of the list, when a value is not one the list knows. */
  error?: ApiError;
}

const FROM_TO_MESSAGE = 'Must be a date (2026-11-28) or a UTC time (2026-11-28T09:30)';

/** Reads `rules`' filters from the query string; a `from` and a `to` make the range (from must not be after to). */
export function readFilters<Name extends string>(query: AppContext['query'], rules: Record<Name, FilterRule>): ReadFilters<Name> {
  const values = {} as Record<Name, string>;
  const problems: ErrorDetail[] = [];
  const range: TimeRange = {};
  for (const name of Object.keys(rules) as Name[]) {
    const raw = query[name];
    const value = typeof raw === 'string' ? raw.trim() : '';
    values[name] = value;
    if (!value) continue;
    const rule = rules[name];
    if (rule === 'uuid') {
      if (!isUuid(value)) problems.push({ field: name, message: `“${value}” is not an id (8-4-4-4-12 hexadecimal)` });
    } else if (rule === 'number') {
      if (!numberMatchOf(value))
        problems.push({ field: name, message: `“${value}” is not a phone number, nor ${MIN_NUMBER_DIGITS} or more of its digits` });
    } else if (rule === 'from' || rule === 'to') {
      const bound = readTimeBound(value, rule);
      if (!bound) problems.push({ field: name, message: `“${value}” is not a time. ${FROM_TO_MESSAGE}` });
      else {
        values[name] = bound.picker;
        if (rule === 'from') range.from = bound.at;
        else range.before = new Date(bound.at.getTime() + bound.unitMs);
      }
    } else if (!rule.oneOf.includes(value)) {
      problems.push({ field: name, message: `“${value}” is not one of ${rule.oneOf.join(', ')}` });
    }
  }
  if (problems.length === 0 && range.from && range.before && range.from >= range.before)
    problems.push({ field: 'to', message: 'Must not be before from' });
  return {
    values,
    range,
    ...(problems.length ? { error: errors.validation(problems, 'A filter has a value this list does not know') } : {}),
  };
}
