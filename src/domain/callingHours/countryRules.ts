import { isCountryHoliday } from './holidays';
import type { LocalDay } from './localTime';
import { hours, weekdaysAndWeekend, weekdaysOnly, type DayWindow, type Week } from './week';

export interface CountryRule {
  /** ISO 3166 code of the country (libphonenumber's region of the number). */
  country: string;
  /** The window on each weekday, Sunday first; null: no calls that day. */
  week: Week;
  /** The window on a national holiday (COUNTRY_HOLIDAYS in ./holidays.ts); absent: a holiday is an ordinary day. */
  holiday?: DayWindow | null;
  source: string;
}

/** National rules stricter than the default window, applied on top of it (and of a state's, the stricter wins). */
export const COUNTRY_RULES: readonly CountryRule[] = [
  {
    country: 'AU',
    // Telemarketing calls: weekdays 9 a.m. to 8 p.m., Saturdays 9 a.m. to 5 p.m., not on Sundays (nor on national
    // public holidays, which are not in ./holidays.ts: the Standard's list of them was not read).
    week: [null, hours(9, 20), hours(9, 20), hours(9, 20), hours(9, 20), hours(9, 20), hours(9, 17)],
    source:
      'Telecommunications (Telemarketing and Research Calls) Industry Standard 2017 (ACMA): https://www.donotcall.gov.au/consumers/consumer-overview/industry-standards/',
  },
  {
    country: 'CA',
    // Telemarketing calls: 9:00 a.m. to 9:30 p.m. on weekdays, 10:00 a.m. to 6:00 p.m. on weekends (the default's 21:00 ends weekdays earlier).
    week: weekdaysAndWeekend({ start: 9 * 60, end: 21 * 60 + 30 }, hours(10, 18)),
    source:
      'CRTC Unsolicited Telecommunications Rules, Telemarketing Rules (calling curfews): https://crtc.gc.ca/eng/phone/telemarketing/tobligations/rules-regles.htm',
  },
  {
    country: 'ES',
    // "En ningún caso, las llamadas telefónicas se efectuarán antes de las 9 horas ni más tarde de las 21 horas ni festivos
    // o fines de semana": weekdays 9:00-21:00, not on the national festivos (./holidays.ts; regional and local ones are not there).
    week: weekdaysOnly(hours(9, 21)),
    holiday: null,
    source:
      'Real Decreto Legislativo 1/2007 (TRLGDCU), art. 96.2: https://www.genbeta.com/actualidad/llamadas-comerciales-ilegales-a-partir-hora-asi-puedes-actuar-recibes',
  },
  {
    country: 'FR',
    // Monday to Friday except public holidays, 10:00-13:00 and 14:00-20:00 in the consumer's zone.
    week: weekdaysOnly({ ...hours(10, 20), pause: hours(13, 14) }),
    holiday: null,
    source: 'Code de la consommation, art. D. 223-9 (décret n° 2022-1313): https://www.legifrance.gouv.fr/jorf/id/JORFTEXT000046421823',
  },
];

const RULE_OF_COUNTRY = new Map(COUNTRY_RULES.map((rule) => [rule.country, rule]));

/** The window `rule` allows on `day` (null: no calls that day). */
export function countryWindow(rule: CountryRule, day: LocalDay): DayWindow | null {
  return rule.holiday !== undefined && isCountryHoliday(day, rule.country) ? rule.holiday : rule.week[day.weekday];
}

export function countryRuleOf(country: string | null): CountryRule | undefined {
  return country ? RULE_OF_COUNTRY.get(country) : undefined;
}
