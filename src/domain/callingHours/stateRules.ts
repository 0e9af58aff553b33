import { isHoliday } from './holidays';
import { instantOfLocal, localReading, type LocalDay } from './localTime';
import { everyDay, hours, noSunday, weekdaysOnly, type DayWindow, type Week } from './week';

/** The federal rule: no telephone solicitation before 8 a.m. or after 9 p.m. at the called party's location. */
export const FEDERAL_WINDOW: DayWindow = { start: 8 * 60, end: 21 * 60 };
export const FEDERAL_RULE = {
  name: 'us_federal',
  source: '47 CFR 64.1200(c)(1): https://www.ecfr.gov/current/title-47/chapter-I/subchapter-B/part-64/subpart-L/section-64.1200',
} as const;

/**
 * A state's rule as data: its hours on each day of the week, on its holidays (./holidays.ts), and
 * the clock the statute states them in when it names one.
 */
export interface StateRule {
  /** USPS code of the state. */
  state: string;
  /** The window on each weekday, Sunday first; null: no calls that day. */
  week: Week;
  /** The window on a holiday of the state (federal and its own, ./holidays.ts); absent: a holiday is an ordinary day. */
  holiday?: DayWindow | null;
  /** The weekdays (0 = Sunday) on which a holiday takes the `holiday` window; absent: every day. */
  holidayWeekdays?: readonly number[];
  /**
   * The zone of a clock the statute names ("Central Standard Time"): the hours are read on that clock and on the
   * callee's, and the stricter reading holds (in summer, 8:00 CST is 9:00 CDT).
   */
  statedIn?: string;
  /** The statute or regulator text it follows, with the address it was read at. */
  source: string;
}

/** A compilation that quotes each statute verbatim and names where it was read (meydayapp/fieldquo, lib/sales/callingRules.js). */
const QUOTED_IN = 'quoted in https://github.com/meydayapp/fieldquo/blob/d1c5045b2f19581adde532d088308d46f35780fe/lib/sales/callingRules.js';

/**
 * State rules stricter than the federal one, applied on top of it (the stricter reading wins). Only
 * rows read from the statute or regulation named in `source`; a state missing here has no stricter rule in this
 * table (docs/decisions/campaigns.md, "Calling hours" and "State and national calling-hour statutes" say how rows are added
 * and which states could not be sourced). Rules on automated or artificial-voice calls apply: every call here is
 * dialled by software and voiced by a synthesized voice.
 */
export const STATE_RULES: readonly StateRule[] = [
  {
    state: 'AL',
    // Automated solicitation calls: none on Sundays or holidays; otherwise 8 a.m. to 8 p.m.
    week: noSunday(hours(8, 20)),
    holiday: null,
    source:
      'Ala. Admin. Code r. 770-X-5-.17(1)(b): https://d1tvxue8o4w0fl.cloudfront.net/regulation/alabama-administrative-code/title-770-alabama-public-service-commission/chapter-770-x-5-telephone-rules/section-770-x-5-17-live-and-automated-solicitations-and-announcements',
  },
  {
    state: 'CA',
    // An automatic dialing-announcing device shall not be operated between the hours of 9 p.m. and 9 a.m.
    week: everyDay(hours(9, 21)),
    source: `Cal. Pub. Util. Code § 2872, ${QUOTED_IN}`,
  },
  {
    state: 'CT',
    // A telephonic sales call only between the hours of nine o'clock a.m. and eight o'clock p.m. local time.
    week: everyDay(hours(9, 20)),
    source: `Conn. Gen. Stat. § 42-288a(c) (https://www.cga.ct.gov/current/pub/chap_743m.htm), ${QUOTED_IN}`,
  },
  {
    state: 'FL',
    week: everyDay(hours(8, 20)),
    source: 'Fla. Stat. § 501.616(6)(a): https://www.flsenate.gov/Laws/Statutes/2024/501.616',
  },
  {
    state: 'KY',
    // No solicitation to a person's residence at any time other than between 10 a.m. and 9 p.m. local time.
    week: everyDay(hours(10, 21)),
    source: `KRS 367.46955(16) (https://lawserver.com/law/state/kentucky/ks-statutes/kentucky_statutes_367-46955), ${QUOTED_IN}`,
  },
  {
    state: 'LA',
    // ADAD or live-operator calls: 8 a.m. to 8 p.m., Monday through Saturday; none on state holidays or Sundays.
    week: noSunday(hours(8, 20)),
    holiday: null,
    source: 'La. R.S. 45:811(2)-(3): https://lawserver.com/?p=30183792',
  },
  {
    state: 'MA',
    // No unsolicited telephonic sales call between 8:00 P.M. and 8:00 A.M. at the consumer's location.
    week: everyDay(hours(8, 20)),
    source: '201 CMR 12.02(2): https://regulations.justia.com/states/massachusetts/201-cmr/title-201-cmr-12-00/section-12-02',
  },
  {
    state: 'MD',
    week: everyDay(hours(8, 20)),
    source:
      'Md. Code, Com. Law § 14-4502 (Stop the Spam Calls Act of 2023): https://mgaleg.maryland.gov/mgawebsite/Laws/StatuteText?article=gcl&section=14-4502',
  },
  {
    state: 'ME',
    // Solicitation calls by an automated telephone calling device: weekdays between 9 a.m. and 5 p.m.
    week: weekdaysOnly(hours(9, 17)),
    source: '10 M.R.S. § 1498(3): https://legislature.maine.gov/legis/bills/bills_121st/billtexts/LD039201-1.asp',
  },
  {
    state: 'MI',
    // No unsolicited commercial telephone call received between the hours of 9 p.m. and 9 a.m.
    week: everyDay(hours(9, 21)),
    source: `MCL 750.540e(1)(f), ${QUOTED_IN}`,
  },
  {
    state: 'MN',
    // "Time of day limit": no commercial telephone solicitation before 9:00 a.m. or after 9:00 p.m.
    week: everyDay(hours(9, 21)),
    source: `Minn. Stat. § 325E.30, ${QUOTED_IN}`,
  },
  {
    state: 'MS',
    // Between 8:00 a.m. and 8:00 p.m. Central Standard Time; no telephone solicitation on a Sunday.
    week: noSunday(hours(8, 20)),
    statedIn: 'Etc/GMT+6',
    source:
      'Miss. Code Ann. § 77-3-723(1): https://getpocketlaw.com/law/state_mississippi/section-77-3-723-rules-for-authorized-calls_57b73fa7ff73',
  },
  {
    state: 'NM',
    // Unlawful to make telephone solicitations that are received before 9:00 a.m. or after 9:00 p.m.
    week: everyDay(hours(9, 21)),
    source: `NMSA 1978 § 57-12-22(B)(5), ${QUOTED_IN}`,
  },
  {
    state: 'NV',
    // A device for automatic dialing and announcing may not place a call received between 9 p.m. and 9 a.m.
    week: everyDay(hours(9, 21)),
    source: 'NRS 597.814(2)(a): http://www.contactcentercompliance.com/legal/statutes/NV/NRS/597.814.adpx',
  },
  {
    state: 'OK',
    // An automatic dial announcing device is not used before 9 a.m. or after 9 p.m.; a telephonic sales call not
    // before 8 a.m. or after 8 p.m. (the Telephone Solicitation Act of 2022).
    week: everyDay(hours(9, 20)),
    source:
      '15 Okl. St. § 755.1(C)(2)(a): https://lexace.ai/us/statute/oklahoma/15-755.1; ' +
      `15 Okl. St. § 775C.4, ${QUOTED_IN} and https://24kyc.com/oklahoma-passes-new-telephone-solicitation-act-similar-to-the-federal-tcpa-lerman-senter-pllc/`,
  },
  {
    state: 'PA',
    // Act 47 of 2026 (in force from October 2026): not on a Sunday, after 7 p.m. or before 9 a.m.; since
    // Act 73 of 2019 not on a legal holiday (the federal ones here: Pennsylvania's own list is not in ./holidays.ts).
    week: noSunday(hours(9, 19)),
    holiday: null,
    source:
      `73 P.S. § 2245(a)(1) as amended by Act 47 of 2026, ${QUOTED_IN}; ` +
      'holidays: 73 P.S. § 2245(a)(10) (Act 73 of 2019): https://www.jenkinslaw.org/blog/2019/12/03/amendments-pennsylvanias-telemarketer-registration-act-effective-today',
  },
  {
    state: 'RI',
    // "Hours of operation": Monday to Friday, except a state or federal holiday, 9 a.m. to 6 p.m.; Saturday 10 a.m. to 5 p.m.
    week: [null, hours(9, 18), hours(9, 18), hours(9, 18), hours(9, 18), hours(9, 18), hours(10, 17)],
    holiday: null,
    holidayWeekdays: [1, 2, 3, 4, 5],
    source: 'R.I. Gen. Laws § 5-61-2(2) and § 5-61-3.6: http://webserver.rilin.state.ri.us/Statutes/TITLE5/5-61/5-61-3.6.HTM',
  },
  {
    state: 'SD',
    // An automated telephone dialing system: weekdays between 9 a.m. and 9 p.m.
    week: weekdaysOnly(hours(9, 21)),
    source: 'SDCL § 37-30-28: http://legis.state.sd.us/statutes/DisplayStatute.aspx?Type=Statute&Statute=37-30-28',
  },
  {
    state: 'TX',
    // 9 a.m. to 9 p.m. on a weekday or Saturday; noon to 9 p.m. on a Sunday.
    week: [hours(12, 21), hours(9, 21), hours(9, 21), hours(9, 21), hours(9, 21), hours(9, 21), hours(9, 21)],
    source: 'Tex. Bus. & Com. Code § 301.051: https://statutes.capitol.texas.gov/Docs/BC/htm/BC.301.htm#301.051',
  },
  {
    state: 'UT',
    // Not between 9 p.m. and 8 a.m., on a Sunday, or on a legal holiday.
    week: noSunday(hours(8, 21)),
    holiday: null,
    source: 'Utah Code § 13-25a-103(3): https://codes.findlaw.com/ut/title-13-commerce-and-trade/ut-code-sect-13-25a-103/',
  },
  {
    state: 'WA',
    week: everyDay(hours(8, 20)),
    source: 'RCW 19.158.040(2): https://app.leg.wa.gov/RCW/default.aspx?cite=19.158.040',
  },
  {
    state: 'WY',
    // No unsolicited telephonic sales call to a consumer before 8 a.m. or after 8 p.m. local time.
    week: everyDay(hours(8, 20)),
    source: `Wyo. Stat. § 40-12-302(d), ${QUOTED_IN}`,
  },
];

const RULE_OF_STATE = new Map(STATE_RULES.map((rule) => [rule.state, rule]));

export function stateRuleOf(state: string | null): StateRule | undefined {
  return state ? RULE_OF_STATE.get(state) : undefined;
}

/** How many minutes the clock of `statedIn` is behind the callee's at noon of `day` in `zone`. */
function clockShift(day: LocalDay, zone: string, statedIn: string): number {
  const noon = instantOfLocal(day, 12 * 60, zone);
  const there = localReading(noon, statedIn);
  const dayDiff = Date.UTC(day.year, day.month - 1, day.day) - Date.UTC(there.year, there.month - 1, there.day);
  return 12 * 60 - there.minute + dayDiff / 60_000;
}

/** The window `rule` allows on `day` in `zone` (null: no calls that day). */
export function stateWindow(rule: StateRule, day: LocalDay, zone: string): DayWindow | null {
  const holidayRules = rule.holiday !== undefined && (rule.holidayWeekdays?.includes(day.weekday) ?? true);
  const window = holidayRules && isHoliday(day, rule.state) ? rule.holiday! : rule.week[day.weekday];
  if (!window || !rule.statedIn) return window;
  const shift = clockShift(day, zone, rule.statedIn);
  // The window on both clocks: the later start, the earlier end, and a pause as long as both readings of it.
  const shifted: DayWindow = { start: Math.max(window.start, window.start + shift), end: Math.min(window.end, window.end + shift) };
  if (window.pause)
    shifted.pause = {
      start: Math.min(window.pause.start, window.pause.start + shift),
      end: Math.max(window.pause.end, window.pause.end + shift),
    };
  return shifted.start < shifted.end ? shifted : null;
}
