import type Ajv from 'ajv';

/**
 * The string formats the API accepts, strict enough that whatever passes validation is a value
 * Postgres takes: ajv-formats' `uuid` also admits `urn:uuid:…` and its `date-time` admits leap
 * seconds that `new Date()` cannot read. Handlers parse with the same functions the validator
 * checks with, so the two never disagree.
 */

/** Canonical 8-4-4-4-12 hex (either case, as Postgres reads it); no braces, no `urn:uuid:`. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function utcDate(year: number, month: number, day: number, hours = 0, minutes = 0, seconds = 0, ms = 0): Date {
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hours, minutes, seconds, ms);
  return date;
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** A calendar date (`2026-01-31`), read as midnight UTC that day. Years 0000-9999 (inside Postgres's range). */
export function parseDate(value: string): Date | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return validDate(year, month, day) ? utcDate(year, month, day) : undefined;
}

/**
 * An RFC 3339 date-time with a zone (`Z` or `±hh:mm`). A leap second (`23:59:60` UTC) is read as
 * the first instant of the next minute, as Postgres reads it; fractions past milliseconds are cut.
 */
export function parseDateTime(value: string): Date | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hours, minutes, seconds] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const offsetMinutes = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (!validDate(year, month, day) || hours > 23 || minutes > 59 || seconds > 60) return undefined;
  if (!m[8] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  if (seconds === 60 && (((hours * 60 + minutes - offsetMinutes) % 1440) + 1440) % 1440 !== 1439) return undefined;
  return new Date(utcDate(year, month, day, hours, minutes, seconds, ms).getTime() - offsetMinutes * 60_000);
}

/** A date-time, or a date (midnight UTC): what filters such as the compliance audit's `from`/`to` take. */
export function parseDateOrDateTime(value: string): Date | undefined {
  return parseDateTime(value) ?? parseDate(value);
}

/** Replaces ajv-formats' lenient definitions with the ones above. */
export function registerStrictFormats(ajv: Ajv): void {
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date', { type: 'string', validate: (value: string) => parseDate(value) !== undefined });
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => parseDateTime(value) !== undefined });
}

/**
 * Every integer a schema admits is a safe integer: a bound the schema does not set is filled in
 * with ±(2^53 - 1), so `1e20` or `22827762708099870720` is a 422, never a number that lost its
 * precision (or overflows a Postgres bigint) on the way to a query.
 */
export function boundIntegers<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => boundIntegers(item)) as T;
  if (!value || typeof value !== 'object') return value;
  const schema = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, boundIntegers(v)])) as Record<string, unknown>;
  const type = schema.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = Number.MIN_SAFE_INTEGER;
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = Number.MAX_SAFE_INTEGER;
  }
  return schema as T;
}

/** A string without U+0000, which Postgres text cannot hold (the validator's `refuseNulCharacters` backs it up). */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** Whether a schema's own keywords already exclude U+0000 (a pattern, format, enum, const or reference of its own). */
function excludesNul(schema: Record<string, unknown>): boolean {
  return ['pattern', 'format', 'enum', 'const', '$ref'].some((keyword) => schema[keyword] !== undefined);
}

/**
 * Every string a request schema admits says it excludes U+0000: a string with no `pattern`,
 * `format`, `enum` or `const` of its own, nor `anyOf`/`oneOf` branches that each have one, gets
 * NO_NUL_PATTERN (the others exclude it already), so the document refuses what the validator refuses.
 * A redundant pattern is not harmless: beside a `format` it keeps schemathesis' generators from
 * reaching the branch's length bounds, and its coverage phase then spends seconds searching for them.
 */
export function forbidNul<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => forbidNul(item)) as T;
  if (!value || typeof value !== 'object') return value;
  const schema = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forbidNul(v)])) as Record<string, unknown>;
  const type = schema.type;
  const isString = type === 'string' || (Array.isArray(type) && type.includes('string'));
  const branches = schema.anyOf ?? schema.oneOf;
  const branchesExclude =
    Array.isArray(branches) &&
    branches.length > 0 &&
    branches.every((branch) => !!branch && typeof branch === 'object' && excludesNul(branch as Record<string, unknown>));
  if (isString && !excludesNul(schema) && !branchesExclude) schema.pattern = NO_NUL_PATTERN;
  return schema as T;
}
