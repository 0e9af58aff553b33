import { addDays, type LocalDay } from './localTime';

/**
 * Holiday calendars as data: the federal legal public holidays, and each state's own for the states
 * whose calling-hours rule names holidays (./stateRules.ts). A rule is one of
 * - a fixed date (`month`, `day`);
 * - the `nth` `weekday` of a month (n = -1: the last), `plusDays` after it, in every year or only `evenYears`;
 * - a day `easter` days from Easter Sunday (Mardi Gras −47, Good Friday −2);
 * - a date observed on the Monday of its week (`mondayOf`: Utah's Juneteenth).
 */
export type HolidayRule = { name: string } & (
  | { month: number; day: number }
  | { month: number; weekday: number; nth: number; plusDays?: number; evenYears?: true }
  | { easter: number }
  | { mondayOf: { month: number; day: number } }
);

export interface HolidayCalendar {
  holidays: readonly HolidayRule[];
  /**
   * Which weekday a fixed-date holiday on a weekend is also observed on: absent, the nearest (Friday for a Saturday,
   * Monday for a Sunday, US practice); `mondayAfterSunday` (Spain); `none` (France).
   */
  observed?: 'mondayAfterSunday' | 'none';
  source: string;
}

const MON = 1;
const THU = 4;

/** 5 U.S.C. § 6103(a): the legal public holidays. */
export const FEDERAL_HOLIDAYS: HolidayCalendar = {
  holidays: [
    { name: "New Year's Day", month: 1, day: 1 },
    { name: 'Birthday of Martin Luther King, Jr.', month: 1, weekday: MON, nth: 3 },
    { name: "Washington's Birthday", month: 2, weekday: MON, nth: 3 },
    { name: 'Memorial Day', month: 5, weekday: MON, nth: -1 },
    { name: 'Juneteenth National Independence Day', month: 6, day: 19 },
    { name: 'Independence Day', month: 7, day: 4 },
    { name: 'Labor Day', month: 9, weekday: MON, nth: 1 },
    { name: 'Columbus Day', month: 10, weekday: MON, nth: 2 },
    { name: 'Veterans Day', month: 11, day: 11 },
    { name: 'Thanksgiving Day', month: 11, weekday: THU, nth: 4 },
    { name: 'Christmas Day', month: 12, day: 25 },
  ],
  source: '5 U.S.C. § 6103(a): https://www.law.cornell.edu/uscode/text/5/6103',
};

/**
 * A state's holidays beyond the federal ones (the federal ones count in every state whose rule names
 * holidays: each of these states' lists holds them, and where one lacks one, counting it is the stricter reading).
 */
export const STATE_HOLIDAYS: Readonly<Record<string, HolidayCalendar>> = {
  AL: {
    holidays: [
      { name: 'Confederate Memorial Day', month: 4, weekday: MON, nth: 4 },
      { name: "Jefferson Davis' Birthday", month: 6, weekday: MON, nth: 1 },
      // A holiday in Baldwin and Mobile counties only; an area code does not say the county, so statewide (the stricter reading).
      { name: 'Mardi Gras', easter: -47 },
    ],
    source:
      'Ala. Code § 1-3-8 (as listed by the Alabama Department of Archives and History): http://www.archives.alabama.gov/intro/holidays.html',
  },
  LA: {
    holidays: [
      { name: 'Battle of New Orleans', month: 1, day: 8 },
      { name: 'Mardi Gras', easter: -47 },
      { name: 'Good Friday', easter: -2 },
      { name: 'Huey P. Long Day', month: 8, day: 30 },
      { name: "All Saints' Day", month: 11, day: 1 },
    ],
    source: 'La. R.S. 1:55(A)(1): https://legis.la.gov/legis/Law.aspx?d=74097',
  },
  RI: {
    holidays: [
      { name: 'Rhode Island Independence Day', month: 5, day: 4 },
      { name: 'Victory Day', month: 8, weekday: MON, nth: 2 },
      // "The Tuesday next after the first Monday in November in each year in which a general election of state officers is held."
      { name: 'Election day', month: 11, weekday: MON, nth: 1, plusDays: 1, evenYears: true },
    ],
    source: 'R.I. Gen. Laws § 25-1-1: http://statutes.laws-info.com/rhode-island/title-25/chapter-25-1/25-1-1',
  },
  UT: {
    holidays: [
      { name: 'Pioneer Day', month: 7, day: 24 },
      { name: 'Good Friday', easter: -2 },
      // Utah observes June 19 on the Monday of its week (the following Monday when it falls on a weekend).
      { name: 'Juneteenth National Freedom Day (observed)', mondayOf: { month: 6, day: 19 } },
    ],
    source: 'Utah Code § 63G-1-301(1)-(2) (effective 6 May 2026): https://self-law.org/code/ut/title-63g/chapter-1/1',
  },
};

/** National holidays of the countries whose rule names holidays (./stateRules.ts `COUNTRY_RULES`). */
export const COUNTRY_HOLIDAYS: Readonly<Record<string, HolidayCalendar>> = {
  FR: {
    holidays: [
      { name: 'Le 1er janvier', month: 1, day: 1 },
      { name: 'Le lundi de Pâques', easter: 1 },
      { name: 'Le 1er mai', month: 5, day: 1 },
      { name: 'Le 8 mai', month: 5, day: 8 },
      { name: "L'Ascension", easter: 39 },
      { name: 'Le lundi de Pentecôte', easter: 50 },
      { name: 'Le 14 juillet', month: 7, day: 14 },
      { name: "L'Assomption", month: 8, day: 15 },
      { name: 'La Toussaint', month: 11, day: 1 },
      { name: 'Le 11 novembre', month: 11, day: 11 },
      { name: 'Le jour de Noël', month: 12, day: 25 },
    ],
    observed: 'none',
    source: 'Code du travail, art. L. 3133-1: https://www.legifrance.gouv.fr/codes/id/LEGISCTA000033008129/',
  },
  ES: {
    // The national holidays no region may replace; each region's and town's own are set yearly and are not here.
    holidays: [
      { name: 'Año Nuevo', month: 1, day: 1 },
      { name: 'Viernes Santo', easter: -2 },
      { name: 'Fiesta del Trabajo', month: 5, day: 1 },
      { name: 'Asunción de la Virgen', month: 8, day: 15 },
      { name: 'Fiesta Nacional de España', month: 10, day: 12 },
      { name: 'Todos los Santos', month: 11, day: 1 },
      { name: 'Día de la Constitución Española', month: 12, day: 6 },
      { name: 'Inmaculada Concepción', month: 12, day: 8 },
      { name: 'Natividad del Señor', month: 12, day: 25 },
    ],
    // "Objeto de traslado al lunes inmediatamente posterior el descanso laboral correspondiente a las fiestas que coincidan con domingo".
    observed: 'mondayAfterSunday',
    source:
      'Estatuto de los Trabajadores, art. 37.2 (https://cadenadial.com/2024/descansar-puente-cuatro-dias-374648.html/amp) and the national ' +
      'holidays of the yearly BOE calendar: https://www.diariodesevilla.es/economia/calendario-laboral-incluye-fiestas-nacionales_0_524347661.html',
  },
};

type DayOfYear = Pick<LocalDay, 'year' | 'month' | 'day'>;

/** The `n`th `weekday` of a month (n = -1: the last). */
function nthWeekday(year: number, month: number, weekday: number, n: number): number {
  if (n > 0) {
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
    return 1 + ((weekday - first + 7) % 7) + (n - 1) * 7;
  }
  const lastDay = new Date(Date.UTC(year, month, 0));
  return lastDay.getUTCDate() - ((lastDay.getUTCDay() - weekday + 7) % 7);
}

/** Easter Sunday of the Gregorian calendar (the anonymous Gregorian computus of Meeus, Astronomical Algorithms, ch. 8). */
export function easterSunday(year: number): DayOfYear {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return { year, month, day: ((h + l - 7 * m + 114) % 31) + 1 };
}

/** The days a rule makes a holiday in `year`: the day itself and, for a weekend date, the weekday it is observed on. */
function daysOf(rule: HolidayRule, year: number, observed: HolidayCalendar['observed']): LocalDay[] {
  if ('easter' in rule) return [addDays(easterSunday(year), rule.easter)];
  if ('nth' in rule && (rule.plusDays !== undefined || rule.evenYears)) {
    if (rule.evenYears && year % 2 !== 0) return [];
    return [addDays({ year, month: rule.month, day: nthWeekday(year, rule.month, rule.weekday, rule.nth) }, rule.plusDays ?? 0)];
  }
  if ('mondayOf' in rule) {
    const date = addDays({ year, ...rule.mondayOf }, 0);
    return [addDays(date, date.weekday === 0 ? 1 : date.weekday === 6 ? 2 : 1 - date.weekday)];
  }
  const date = addDays(
    { year, month: rule.month, day: 'day' in rule ? rule.day : nthWeekday(year, rule.month, rule.weekday, rule.nth) },
    0,
  );
  // Observed on the Friday before a Saturday and the Monday after a Sunday; both days count (the stricter reading).
  if (observed === undefined && date.weekday === 6) return [date, addDays(date, -1)];
  if (observed !== 'none' && date.weekday === 0) return [date, addDays(date, 1)];
  return [date];
}

function inCalendars(day: DayOfYear, calendars: readonly HolidayCalendar[]): boolean {
  // A year's holidays may be observed on a neighbouring year's day (New Year's Day on a Saturday: Friday 31 December).
  for (const year of [day.year, day.year + 1]) {
    for (const calendar of calendars) {
      for (const rule of calendar.holidays) {
        const days = daysOf(rule, year, calendar.observed);
        if (days.some((d) => d.year === day.year && d.month === day.month && d.day === day.day)) return true;
      }
    }
  }
  return false;
}

/** Whether `day` is a holiday where `state` is: a federal or state holiday, or the weekday one is observed on. */
export function isHoliday(day: DayOfYear, state: string): boolean {
  return inCalendars(day, [FEDERAL_HOLIDAYS, ...(STATE_HOLIDAYS[state] ? [STATE_HOLIDAYS[state]] : [])]);
}

/** Whether `day` is a national holiday of `country` (COUNTRY_HOLIDAYS; none when the country has no calendar here). */
export function isCountryHoliday(day: DayOfYear, country: string): boolean {
  const calendar = COUNTRY_HOLIDAYS[country];
  return calendar ? inCalendars(day, [calendar]) : false;
}
