import { zonedFormat } from '../../platform/zonedFormat';

/** Wall-clock readings in an IANA zone, through the runtime's time-zone database (Intl, DST included). */

export interface LocalDay {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
}

export interface LocalReading extends LocalDay {
  /** Minutes since local midnight. */
  minute: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const READING = (): Intl.DateTimeFormatOptions => ({
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  weekday: 'short',
});

/** The local date, weekday and minute of the day at `at` in `zone`. */
export function localReading(at: Date, zone: string): LocalReading {
  const parts: Record<string, string> = {};
  for (const part of zonedFormat(zone, 'calling hours reading', READING).formatToParts(at)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS.indexOf(parts.weekday),
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** How far `zone`'s wall clock is ahead of UTC at `at`, in milliseconds. */
function offsetMs(at: number, zone: string): number {
  const local = localReading(new Date(at), zone);
  const wall = Date.UTC(local.year, local.month - 1, local.day, 0, local.minute);
  return wall - Math.floor(at / 60_000) * 60_000;
}

/** The instant the wall clock of `zone` reads `minute` on `day` (a time skipped by DST reads as the instant after the gap). */
export function instantOfLocal(day: Pick<LocalDay, 'year' | 'month' | 'day'>, minute: number, zone: string): Date {
  const wall = Date.UTC(day.year, day.month - 1, day.day, 0, minute);
  const first = wall - offsetMs(wall, zone);
  const second = wall - offsetMs(first, zone);
  return new Date(Math.max(first, second));
}

/** The calendar day `days` after `day` (proleptic Gregorian, no zone). */
export function addDays(day: Pick<LocalDay, 'year' | 'month' | 'day'>, days: number): LocalDay {
  const date = new Date(Date.UTC(day.year, day.month - 1, day.day + days));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), weekday: date.getUTCDay() };
}
