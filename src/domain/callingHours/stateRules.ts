import { addDays, type LocalDay } from './localTime';

/** Minutes since local midnight, start included and end excluded. */
export interface DayWindow {
  start: number;
  end: number;
}

/** The federal rule: no telephone solicitation before 8 a.m. or after 9 p.m. at the called party's location. */
export const FEDERAL_WINDOW: DayWindow = { start: 8 * 60, end: 21 * 60 };
export const FEDERAL_RULE = {
  name: 'us_federal',
  source: '47 CFR 64.1200(c)(1): https://www.ecfr.gov/current/title-47/chapter-I/subchapter-B/part-64/subpart-L/section-64.1200',
} as const;

export interface StateRule {
  /** USPS code of the state. */
  state: string;
  /** The window on a given local day, or null: no calls that day. */
  window(day: LocalDay, holiday: boolean): DayWindow | null;
  /** The statute or regulator text it follows. */
  source: string;
}

const hours = (start: number, end: number): DayWindow => ({ start: start * 60, end: end * 60 });

/**
 * State rules stricter than the federal one, applied on top of it (the stricter reading wins). Only
 * rows read from the statute named in `source`; a state missing here has no stricter rule in this
 * table (docs/decisions/campaigns.md, Calling hours, says how rows are added).
 */
export const STATE_RULES: readonly StateRule[] = [
  {
    state: 'FL',
    window: () => hours(8, 20),
    source: 'Fla. Stat. § 501.616(6)(a): https://www.flsenate.gov/Laws/Statutes/2024/501.616',
  },
  {
    state: 'MD',
    window: () => hours(8, 20),
    source:
      'Md. Code, Com. Law § 14-4502 (Stop the Spam Calls Act of 2023): https://mgaleg.maryland.gov/mgawebsite/Laws/StatuteText?article=gcl&section=14-4502',
  },
  {
    state: 'WA',
    window: () => hours(8, 20),
    source: 'RCW 19.158.040(2): https://app.leg.wa.gov/RCW/default.aspx?cite=19.158.040',
  },
  {
    state: 'TX',
    // 9 a.m. to 9 p.m. on a weekday or Saturday; noon to 9 p.m. on a Sunday.
    window: (day) => (day.weekday === 0 ? hours(12, 21) : hours(9, 21)),
    source: 'Tex. Bus. & Com. Code § 301.051: https://statutes.capitol.texas.gov/Docs/BC/htm/BC.301.htm#301.051',
  },
  {
    state: 'RI',
    // "Hours of operation": Monday to Friday, except a state or federal holiday, 9 a.m. to 6 p.m.; Saturday 10 a.m. to 5 p.m.
    window: (day, holiday) => (day.weekday === 6 ? hours(10, 17) : day.weekday === 0 || holiday ? null : hours(9, 18)),
    source:
      'R.I. Gen. Laws § 5-61-2(2) and § 5-61-3.6: http://webserver.rilin.state.ri.us/Statutes/TITLE5/5-61/5-61-3.6.HTM; ' +
      'holidays: 5 U.S.C. § 6103(a) and R.I. Gen. Laws § 25-1-1 (Victory Day)',
  },
];

export interface CountryRule {
  /** ISO 3166 code of the country (libphonenumber's region of the number). */
  country: string;
  window(day: LocalDay): DayWindow | null;
  source: string;
}

/** National rules stricter than the default window, applied on top of it (and of a state's, the stricter wins). */
export const COUNTRY_RULES: readonly CountryRule[] = [
  {
    country: 'CA',
    // Telemarketing calls: 9:00 a.m. to 9:30 p.m. on weekdays, 10:00 a.m. to 6:00 p.m. on weekends (the default's 21:00 ends weekdays earlier).
    window: (day) => (day.weekday === 0 || day.weekday === 6 ? hours(10, 18) : { start: 9 * 60, end: 21 * 60 + 30 }),
    source:
      'CRTC Unsolicited Telecommunications Rules, Telemarketing Rules (calling curfews): https://crtc.gc.ca/eng/phone/telemarketing/tobligations/rules-regles.htm',
  },
];

const RULE_OF_COUNTRY = new Map(COUNTRY_RULES.map((rule) => [rule.country, rule]));

export function countryRuleOf(country: string | null): CountryRule | undefined {
  return country ? RULE_OF_COUNTRY.get(country) : undefined;
}

const RULE_OF_STATE = new Map(STATE_RULES.map((rule) => [rule.state, rule]));

export function stateRuleOf(state: string | null): StateRule | undefined {
  return state ? RULE_OF_STATE.get(state) : undefined;
}

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

/** The legal public holidays of 5 U.S.C. § 6103(a) in `year`, as [month, day]. */
function federalHolidays(year: number): Array<[number, number]> {
  return [
    [1, 1], // New Year's Day
    [1, nthWeekday(year, 1, 1, 3)], // Birthday of Martin Luther King, Jr.
    [2, nthWeekday(year, 2, 1, 3)], // Washington's Birthday
    [5, nthWeekday(year, 5, 1, -1)], // Memorial Day
    [6, 19], // Juneteenth National Independence Day
    [7, 4], // Independence Day
    [9, nthWeekday(year, 9, 1, 1)], // Labor Day
    [10, nthWeekday(year, 10, 1, 2)], // Columbus Day
    [11, 11], // Veterans Day
    [11, nthWeekday(year, 11, 4, 4)], // Thanksgiving Day
    [12, 25], // Christmas Day
  ];
}

/** State holidays beyond the federal ones, for the states whose rule names holidays. */
const STATE_HOLIDAYS: Record<string, (year: number) => Array<[number, number]>> = {
  RI: (year) => [[8, nthWeekday(year, 8, 1, 2)]], // Victory Day, second Monday in August
};

/**
 * Whether `day` is a holiday where `state` is: the holiday itself, or the weekday it is observed on
 * when it falls on a weekend (Friday before a Saturday, Monday after a Sunday); both count.
 */
export function isHoliday(day: DayOfYear, state: string): boolean {
  const same = (a: DayOfYear, b: DayOfYear) => a.year === b.year && a.month === b.month && a.day === b.day;
  for (const year of [day.year - 1, day.year, day.year + 1]) {
    for (const [month, date] of [...federalHolidays(year), ...(STATE_HOLIDAYS[state]?.(year) ?? [])]) {
      const holiday = addDays({ year, month, day: date }, 0);
      const observed = holiday.weekday === 6 ? addDays(holiday, -1) : holiday.weekday === 0 ? addDays(holiday, 1) : holiday;
      if (same(holiday, day) || same(observed, day)) return true;
    }
  }
  return false;
}
