import {
  CallingWindowNeverOpensError,
  callingWindow,
  callingWindowProblems,
  type WorkspaceCallingWindow,
} from '../../src/domain/callingHours/rules';
import {
  COUNTRY_HOLIDAYS,
  easterSunday,
  FEDERAL_HOLIDAYS,
  isCountryHoliday,
  isHoliday,
  STATE_HOLIDAYS,
} from '../../src/domain/callingHours/holidays';
import { COUNTRY_RULES } from '../../src/domain/callingHours/countryRules';
import { STATE_RULES, stateWindow } from '../../src/domain/callingHours/stateRules';
import type { DayWindow } from '../../src/domain/callingHours/week';
import { placeOfNumber } from '../../src/domain/callingHours/zones';

const at = (iso: string) => new Date(iso);
const closed = (nextOpenAt: string, zone: string, rule: string) => ({ open: false, nextOpenAt: new Date(nextOpenAt), zone, rule });
const OPEN = { open: true };

const HONOLULU = '+18085552671';
const NEW_YORK = '+12125552671';
const ALASKA = '+19075552671'; // 907: Anchorage and the Aleutians (Adak), an hour apart
const DALLAS = '+12145552671';
const PROVIDENCE = '+14015552671';
const LOS_ANGELES = '+14155552671';
const WESTERN_AUSTRALIA = '+61892345678'; // 08 9…: Perth and Adelaide in libphonenumber's map

describe('callingWindow: the callee-local window (src/domain/callingHours/rules.ts)', () => {
  it('Hawaii: 8:00 to 21:00 Honolulu time (UTC−10, no DST), the next opening when closed', () => {
    expect(callingWindow(HONOLULU, at('2026-06-03T17:59:00Z'), null)).toEqual(
      closed('2026-06-03T18:00:00Z', 'Pacific/Honolulu', 'us_federal'),
    );
    expect(callingWindow(HONOLULU, at('2026-06-03T18:00:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(HONOLULU, at('2026-06-04T06:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(HONOLULU, at('2026-06-04T07:00:00Z'), null)).toEqual(
      closed('2026-06-04T18:00:00Z', 'Pacific/Honolulu', 'us_federal'),
    );
  });

  it('Eastern: 21:00 New York time is closed (end excluded) until 8:00 the next morning', () => {
    expect(callingWindow(NEW_YORK, at('2026-01-15T01:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(NEW_YORK, at('2026-01-15T02:00:00Z'), null)).toEqual(
      closed('2026-01-15T13:00:00Z', 'America/New_York', 'us_federal'),
    );
  });

  it('an area code spanning two zones is judged by the strictest reading: open only when both are', () => {
    expect(placeOfNumber(ALASKA).zones).toEqual(['America/Adak', 'America/Anchorage']);
    // 08:30 in Anchorage, 07:30 on Adak.
    expect(callingWindow(ALASKA, at('2026-01-15T17:30:00Z'), null)).toEqual(closed('2026-01-15T18:00:00Z', 'America/Adak', 'us_federal'));
    expect(callingWindow(ALASKA, at('2026-01-16T05:30:00Z'), null)).toEqual(OPEN);
    // 21:00 in Anchorage (20:00 on Adak): closed until both are open, 08:00 on Adak.
    expect(callingWindow(ALASKA, at('2026-01-16T06:00:00Z'), null)).toEqual(
      closed('2026-01-16T18:00:00Z', 'America/Anchorage', 'us_federal'),
    );
  });

  it('a country with several zones (Australia: Perth and Adelaide, 1.5 hours apart in winter, 2.5 in summer)', () => {
    expect(placeOfNumber(WESTERN_AUSTRALIA).zones).toEqual(['Australia/Adelaide', 'Australia/Perth']);
    // 07:45 in Perth: closed by the default window; 08:00 by the ACMA's 9:00 start; open when Perth reaches 9:00.
    expect(callingWindow(WESTERN_AUSTRALIA, at('2026-06-02T23:45:00Z'), null)).toEqual(
      closed('2026-06-03T01:00:00Z', 'Australia/Perth', 'us_federal'),
    );
    expect(callingWindow(WESTERN_AUSTRALIA, at('2026-06-03T00:00:00Z'), null)).toEqual(
      closed('2026-06-03T01:00:00Z', 'Australia/Perth', 'au_national'),
    );
    expect(callingWindow(WESTERN_AUSTRALIA, at('2026-06-03T01:00:00Z'), null)).toEqual(OPEN);
    // 20:00 in Adelaide (ACST, UTC+9:30), 18:30 in Perth: closed until Perth's 9:00 the next day.
    expect(callingWindow(WESTERN_AUSTRALIA, at('2026-06-03T10:30:00Z'), null)).toEqual(
      closed('2026-06-04T01:00:00Z', 'Australia/Adelaide', 'au_national'),
    );
    // January: Adelaide on daylight time (UTC+10:30), so its 20:00 comes an hour earlier in UTC.
    expect(callingWindow(WESTERN_AUSTRALIA, at('2026-01-15T09:29:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(WESTERN_AUSTRALIA, at('2026-01-15T09:30:00Z'), null)).toEqual(
      closed('2026-01-16T01:00:00Z', 'Australia/Adelaide', 'au_national'),
    );
  });

  it('Texas: 9:00 on weekdays and Saturdays, noon on Sundays (Tex. Bus. & Com. Code § 301.051)', () => {
    expect(placeOfNumber(DALLAS).usState).toBe('TX');
    // Sunday 11:30 in Dallas (CDT): the federal window is open, the state's is not until noon.
    expect(callingWindow(DALLAS, at('2026-06-07T16:30:00Z'), null)).toEqual(
      closed('2026-06-07T17:00:00Z', 'America/Chicago', 'us_state_tx'),
    );
    // Monday 08:30: closed until 9:00.
    expect(callingWindow(DALLAS, at('2026-06-08T13:30:00Z'), null)).toEqual(
      closed('2026-06-08T14:00:00Z', 'America/Chicago', 'us_state_tx'),
    );
    expect(callingWindow(DALLAS, at('2026-06-08T14:00:00Z'), null)).toEqual(OPEN);
  });

  it('Washington: until 20:00 (RCW 19.158.040)', () => {
    const SEATTLE = '+12065552671';
    expect(placeOfNumber(SEATTLE).usState).toBe('WA');
    expect(callingWindow(SEATTLE, at('2026-06-04T02:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(SEATTLE, at('2026-06-04T03:00:00Z'), null)).toEqual(
      closed('2026-06-04T15:00:00Z', 'America/Los_Angeles', 'us_state_wa'),
    );
  });

  it('Rhode Island: no calls on Sundays or holidays, 9:00–18:00 on weekdays, 10:00–17:00 on Saturdays', () => {
    expect(placeOfNumber(PROVIDENCE).usState).toBe('RI');
    // Sunday 11:30 → Monday 9:00.
    expect(callingWindow(PROVIDENCE, at('2026-06-07T15:30:00Z'), null)).toEqual(
      closed('2026-06-08T13:00:00Z', 'America/New_York', 'us_state_ri'),
    );
    // Friday 3 July 2026: Independence Day (a Saturday) is observed that day → Saturday's 10:00.
    expect(callingWindow(PROVIDENCE, at('2026-07-03T15:30:00Z'), null)).toEqual(
      closed('2026-07-04T14:00:00Z', 'America/New_York', 'us_state_ri'),
    );
    // Victory Day (second Monday of August, a Rhode Island holiday) → Tuesday 9:00.
    expect(callingWindow(PROVIDENCE, at('2026-08-10T15:30:00Z'), null)).toEqual(
      closed('2026-08-11T13:00:00Z', 'America/New_York', 'us_state_ri'),
    );
    // Rhode Island Independence Day (4 May) and the general-election Tuesday of an even year are holidays too (§ 25-1-1).
    expect(callingWindow(PROVIDENCE, at('2026-05-04T15:30:00Z'), null)).toEqual(
      closed('2026-05-05T13:00:00Z', 'America/New_York', 'us_state_ri'),
    );
    expect(callingWindow(PROVIDENCE, at('2026-11-03T15:30:00Z'), null)).toEqual(
      closed('2026-11-04T14:00:00Z', 'America/New_York', 'us_state_ri'),
    );
    // An odd year has no general election of state officers: Tuesday 2 November 2027 is an ordinary day.
    expect(callingWindow(PROVIDENCE, at('2027-11-02T15:30:00Z'), null)).toEqual(OPEN);
    // Thursday 17:59 open; 18:00 closed until Friday 9:00.
    expect(callingWindow(PROVIDENCE, at('2026-06-04T21:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(PROVIDENCE, at('2026-06-04T22:00:00Z'), null)).toEqual(
      closed('2026-06-05T13:00:00Z', 'America/New_York', 'us_state_ri'),
    );
  });

  it('Canada: 9:00 to 21:00 on weekdays (the default ends before the CRTC’s 21:30), 10:00 to 18:00 on weekends', () => {
    const TORONTO = '+14165552671';
    expect(placeOfNumber(TORONTO)).toMatchObject({ country: 'CA', usState: null });
    // Wednesday 08:30 in Toronto (EDT): legal in the US, not in Canada.
    expect(callingWindow(TORONTO, at('2026-06-03T12:30:00Z'), null)).toEqual(
      closed('2026-06-03T13:00:00Z', 'America/Toronto', 'ca_national'),
    );
    expect(callingWindow(TORONTO, at('2026-06-04T00:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(TORONTO, at('2026-06-04T01:00:00Z'), null)).toEqual(
      closed('2026-06-04T13:00:00Z', 'America/Toronto', 'us_federal'),
    );
    // Saturday 18:00 → Sunday 10:00.
    expect(callingWindow(TORONTO, at('2026-06-06T22:00:00Z'), null)).toEqual(
      closed('2026-06-07T14:00:00Z', 'America/Toronto', 'ca_national'),
    );
  });

  it('DST: the next opening after a transition is 8:00 on the new offset', () => {
    // Saturday 7 March 2026, 21:00 EST; clocks spring forward that night: Sunday 8:00 is EDT (12:00 UTC, not 13:00).
    expect(callingWindow(NEW_YORK, at('2026-03-08T02:00:00Z'), null)).toEqual(
      closed('2026-03-08T12:00:00Z', 'America/New_York', 'us_federal'),
    );
    // Saturday 31 October 2026, 21:00 EDT; clocks fall back: Sunday 8:00 is EST (13:00 UTC).
    expect(callingWindow(NEW_YORK, at('2026-11-01T01:00:00Z'), null)).toEqual(
      closed('2026-11-01T13:00:00Z', 'America/New_York', 'us_federal'),
    );
    // London springs forward on 29 March 2026: 07:30 UTC is 08:30 BST, open; a week earlier it was 07:30 GMT, closed.
    expect(callingWindow('+442079460123', at('2026-03-29T07:30:00Z'), null)).toEqual(OPEN);
    expect(callingWindow('+442079460123', at('2026-03-22T07:30:00Z'), null)).toEqual(
      closed('2026-03-22T08:00:00Z', 'Europe/London', 'us_federal'),
    );
  });

  it("a workspace's window narrows the legal one, days included", () => {
    const weekdaysTenToFour: WorkspaceCallingWindow = { start: '10:00', end: '16:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] };
    // Wednesday 09:30 in Los Angeles: legal, but not the workspace's.
    expect(callingWindow(LOS_ANGELES, at('2026-06-03T16:30:00Z'), weekdaysTenToFour)).toEqual(
      closed('2026-06-03T17:00:00Z', 'America/Los_Angeles', 'workspace'),
    );
    expect(callingWindow(LOS_ANGELES, at('2026-06-03T17:00:00Z'), weekdaysTenToFour)).toEqual(OPEN);
    // Saturday noon → Monday 10:00.
    expect(callingWindow(LOS_ANGELES, at('2026-06-06T19:00:00Z'), weekdaysTenToFour)).toEqual(
      closed('2026-06-08T17:00:00Z', 'America/Los_Angeles', 'workspace'),
    );
    // The state rule still applies under a wider-looking narrowing: Texas on Sunday morning.
    const everyDay: WorkspaceCallingWindow = { start: '08:00', end: '21:00', days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] };
    expect(callingWindow(DALLAS, at('2026-06-07T16:30:00Z'), everyDay)).toEqual(
      closed('2026-06-07T17:00:00Z', 'America/Chicago', 'us_state_tx'),
    );
  });

  it('a window that never opens for the number is said so, not waited for: the workspace ends at 21:00, Florida at 20:00', () => {
    const evenings: WorkspaceCallingWindow = { start: '20:00', end: '21:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] };
    expect(() => callingWindow('+13055552671', at('2026-06-03T16:00:00Z'), evenings)).toThrow(CallingWindowNeverOpensError);
    // The same window opens for a New York number.
    expect(callingWindow(NEW_YORK, at('2026-06-03T16:00:00Z'), evenings)).toEqual(
      closed('2026-06-04T00:00:00Z', 'America/New_York', 'workspace'),
    );
  });

  it('a number with no geography (international freephone, a US toll-free number) has no local time to judge: open', () => {
    expect(placeOfNumber('+80012345678').zones).toEqual([]);
    expect(callingWindow('+80012345678', at('2026-06-03T03:00:00Z'), null)).toEqual(OPEN);
    // An 800 number may ring anywhere in North America (Guam to the Atlantic): judged in all, it could be called 2.5 hours a day.
    expect(placeOfNumber('+18005550123').zones).toEqual([]);
    expect(callingWindow('+18005550123', at('2026-06-03T09:00:00Z'), null)).toEqual(OPEN);
    // A North American number the map knows only by its country code is judged in every zone of it.
    expect(placeOfNumber('+15555552671').zones.length).toBeGreaterThan(30);
    expect(callingWindow('+15555552671', at('2026-06-03T09:00:00Z'), null)).toMatchObject({
      open: false,
      nextOpenAt: new Date('2026-06-03T22:00:00Z'),
    });
  });

  it('every state and national rule names its source, and every window of it lies inside the federal one', () => {
    const inFederal = (window: DayWindow | null) =>
      window === null ||
      (window.start < window.end &&
        window.start >= 8 * 60 &&
        window.end <= 21 * 60 + 30 &&
        (!window.pause || (window.start < window.pause.start && window.pause.start < window.pause.end && window.pause.end < window.end)));
    for (const rule of COUNTRY_RULES) {
      expect(rule.source).toMatch(/https?:\/\//);
      expect(rule.week.every(inFederal)).toBe(true);
    }
    for (const rule of STATE_RULES) {
      expect(rule.source).toMatch(/https?:\/\//);
      expect(rule.week).toHaveLength(7);
      expect([...rule.week, rule.holiday ?? null].every((w) => w === null || (inFederal(w) && w.end <= 21 * 60))).toBe(true);
      if (rule.statedIn) expect(() => new Intl.DateTimeFormat('en-US', { timeZone: rule.statedIn })).not.toThrow();
    }
    expect(new Set(STATE_RULES.map((rule) => rule.state)).size).toBe(STATE_RULES.length);
    // Every holiday calendar has a source and belongs to a state whose rule names holidays.
    expect(FEDERAL_HOLIDAYS.source).toMatch(/https?:\/\//);
    for (const [state, calendar] of Object.entries(STATE_HOLIDAYS)) {
      expect(calendar.source).toMatch(/https?:\/\//);
      expect(STATE_RULES.find((rule) => rule.state === state)?.holiday).toBeNull();
    }
    for (const [country, calendar] of Object.entries(COUNTRY_HOLIDAYS)) {
      expect(calendar.source).toMatch(/https?:\/\//);
      expect(COUNTRY_RULES.find((rule) => rule.country === country)?.holiday).toBeNull();
    }
  });
});

describe('state rules of other shapes (src/domain/callingHours/stateRules.ts)', () => {
  const BIRMINGHAM = '+12055552671';
  const NEW_ORLEANS = '+15045552671';
  const SALT_LAKE_CITY = '+18015552671';
  const JACKSON_MS = '+16015552671';
  const SIOUX_FALLS = '+16055552671'; // 605: Mountain and Central time
  const PORTLAND_ME = '+12075552671';

  it('Alabama: 8:00–20:00, never on a Sunday or a holiday, its own holidays included (Confederate Memorial Day, Mardi Gras)', () => {
    expect(placeOfNumber(BIRMINGHAM).usState).toBe('AL');
    // Sunday 10:00 CDT → Monday 8:00.
    expect(callingWindow(BIRMINGHAM, at('2026-06-07T15:00:00Z'), null)).toEqual(
      closed('2026-06-08T13:00:00Z', 'America/Chicago', 'us_state_al'),
    );
    // Wednesday 19:59 open; 20:00 closed until Thursday 8:00.
    expect(callingWindow(BIRMINGHAM, at('2026-06-04T00:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(BIRMINGHAM, at('2026-06-04T01:00:00Z'), null)).toEqual(
      closed('2026-06-04T13:00:00Z', 'America/Chicago', 'us_state_al'),
    );
    // Confederate Memorial Day, the fourth Monday of April (27 April 2026).
    expect(callingWindow(BIRMINGHAM, at('2026-04-27T15:00:00Z'), null)).toEqual(
      closed('2026-04-28T13:00:00Z', 'America/Chicago', 'us_state_al'),
    );
    // Mardi Gras, 47 days before Easter (5 April 2026): Tuesday 17 February.
    expect(callingWindow(BIRMINGHAM, at('2026-02-17T16:00:00Z'), null)).toEqual(
      closed('2026-02-18T14:00:00Z', 'America/Chicago', 'us_state_al'),
    );
  });

  it('Louisiana: Monday to Saturday 8:00–20:00, not on its holidays (Good Friday, the Battle of New Orleans)', () => {
    expect(placeOfNumber(NEW_ORLEANS).usState).toBe('LA');
    // Good Friday, 3 April 2026 → Saturday 8:00 (Saturdays are allowed).
    expect(callingWindow(NEW_ORLEANS, at('2026-04-03T15:00:00Z'), null)).toEqual(
      closed('2026-04-04T13:00:00Z', 'America/Chicago', 'us_state_la'),
    );
    // 8 January, Battle of New Orleans (a Thursday in 2026) → Friday 8:00 CST.
    expect(callingWindow(NEW_ORLEANS, at('2026-01-08T16:00:00Z'), null)).toEqual(
      closed('2026-01-09T14:00:00Z', 'America/Chicago', 'us_state_la'),
    );
    expect(callingWindow(NEW_ORLEANS, at('2026-01-07T16:00:00Z'), null)).toEqual(OPEN);
  });

  it('Utah: no Sundays or legal holidays; Pioneer Day observed on the Friday, Juneteenth on the Monday of its week', () => {
    expect(placeOfNumber(SALT_LAKE_CITY).usState).toBe('UT');
    // 24 July 2027 is a Saturday: Friday 23 is the holiday, Saturday the day itself, then Sunday → Monday 8:00 MDT.
    expect(callingWindow(SALT_LAKE_CITY, at('2027-07-23T16:00:00Z'), null)).toEqual(
      closed('2027-07-26T14:00:00Z', 'America/Denver', 'us_state_ut'),
    );
    // 19 June 2026 is a Friday: Utah's holiday is Monday 15 June.
    expect(callingWindow(SALT_LAKE_CITY, at('2026-06-15T16:00:00Z'), null)).toEqual(
      closed('2026-06-16T14:00:00Z', 'America/Denver', 'us_state_ut'),
    );
    expect(callingWindow(SALT_LAKE_CITY, at('2026-06-16T16:00:00Z'), null)).toEqual(OPEN);
  });

  it('Mississippi: 8:00–20:00 Central Standard Time read on both clocks: 9:00–20:00 in summer; no Sundays', () => {
    expect(placeOfNumber(JACKSON_MS).usState).toBe('MS');
    // Wednesday 8:30 CDT is 7:30 CST: closed until 9:00 CDT.
    expect(callingWindow(JACKSON_MS, at('2026-06-03T13:30:00Z'), null)).toEqual(
      closed('2026-06-03T14:00:00Z', 'America/Chicago', 'us_state_ms'),
    );
    expect(callingWindow(JACKSON_MS, at('2026-06-04T00:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(JACKSON_MS, at('2026-06-04T01:00:00Z'), null)).toEqual(
      closed('2026-06-04T14:00:00Z', 'America/Chicago', 'us_state_ms'),
    );
    // In winter both clocks agree: 8:00 CST is open.
    expect(callingWindow(JACKSON_MS, at('2026-01-14T14:00:00Z'), null)).toEqual(OPEN);
    // Sunday → Monday 9:00 CDT.
    expect(callingWindow(JACKSON_MS, at('2026-06-07T16:00:00Z'), null)).toEqual(
      closed('2026-06-08T14:00:00Z', 'America/Chicago', 'us_state_ms'),
    );
  });

  it('weekdays only: South Dakota 9:00–21:00 in both its zones, Maine 9:00–17:00', () => {
    expect(placeOfNumber(SIOUX_FALLS)).toMatchObject({ usState: 'SD', zones: ['America/Denver', 'America/North_Dakota/Center'] });
    // Saturday noon → Monday, when 9:00 has come in both zones (Mountain, the later).
    expect(callingWindow(SIOUX_FALLS, at('2026-06-06T18:00:00Z'), null)).toEqual(
      closed('2026-06-08T15:00:00Z', 'America/Denver', 'us_state_sd'),
    );
    expect(placeOfNumber(PORTLAND_ME).usState).toBe('ME');
    expect(callingWindow(PORTLAND_ME, at('2026-06-03T20:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(PORTLAND_ME, at('2026-06-03T21:00:00Z'), null)).toEqual(
      closed('2026-06-04T13:00:00Z', 'America/New_York', 'us_state_me'),
    );
  });

  it('Massachusetts until 20:00, Oklahoma from 9:00', () => {
    expect(callingWindow('+16175552671', at('2026-06-04T00:00:00Z'), null)).toEqual(
      closed('2026-06-04T12:00:00Z', 'America/New_York', 'us_state_ma'),
    );
    expect(callingWindow('+14055552671', at('2026-06-03T13:30:00Z'), null)).toEqual(
      closed('2026-06-03T14:00:00Z', 'America/Chicago', 'us_state_ok'),
    );
  });

  it('a later start or an earlier end, read from each statute (the refusal names the state)', () => {
    const cases: Array<[string, string, string, string, string]> = [
      // [number, closed at, opens at, zone, rule]: Wednesday 3 June 2026, and its evening.
      ['+14155552671', '2026-06-03T15:30:00Z', '2026-06-03T16:00:00Z', 'America/Los_Angeles', 'us_state_ca'], // 8:30 PDT
      ['+12035552671', '2026-06-03T12:30:00Z', '2026-06-03T13:00:00Z', 'America/New_York', 'us_state_ct'], // 8:30 EDT
      ['+12035552671', '2026-06-04T00:00:00Z', '2026-06-04T13:00:00Z', 'America/New_York', 'us_state_ct'], // 20:00 EDT
      ['+15025552671', '2026-06-03T13:30:00Z', '2026-06-03T14:00:00Z', 'America/New_York', 'us_state_ky'], // 9:30 EDT
      ['+13135552671', '2026-06-03T12:30:00Z', '2026-06-03T13:00:00Z', 'America/New_York', 'us_state_mi'], // 8:30 EDT
      ['+16125552671', '2026-06-03T13:30:00Z', '2026-06-03T14:00:00Z', 'America/Chicago', 'us_state_mn'], // 8:30 CDT
      ['+15055552671', '2026-06-03T14:30:00Z', '2026-06-03T15:00:00Z', 'America/Denver', 'us_state_nm'], // 8:30 MDT
      ['+17025552671', '2026-06-03T15:30:00Z', '2026-06-03T16:00:00Z', 'America/Los_Angeles', 'us_state_nv'], // 8:30 PDT
      ['+14055552671', '2026-06-04T01:00:00Z', '2026-06-04T14:00:00Z', 'America/Chicago', 'us_state_ok'], // 20:00 CDT
      ['+13075552671', '2026-06-04T02:00:00Z', '2026-06-04T14:00:00Z', 'America/Denver', 'us_state_wy'], // 20:00 MDT
    ];
    for (const [number, closedAt, opensAt, zone, rule] of cases) {
      expect({ number, verdict: callingWindow(number, at(closedAt), null) }).toEqual({ number, verdict: closed(opensAt, zone, rule) });
      expect({ number, verdict: callingWindow(number, at(opensAt), null) }).toEqual({ number, verdict: OPEN });
    }
  });

  it('Pennsylvania (Act 47 of 2026): 9:00–19:00, never on a Sunday or a legal holiday', () => {
    const PHILADELPHIA = '+12155552671';
    expect(callingWindow(PHILADELPHIA, at('2026-06-03T22:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(PHILADELPHIA, at('2026-06-03T23:00:00Z'), null)).toEqual(
      closed('2026-06-04T13:00:00Z', 'America/New_York', 'us_state_pa'),
    );
    // Friday 3 July 2026 (Independence Day observed), Saturday 4 July, Sunday → Monday 9:00.
    expect(callingWindow(PHILADELPHIA, at('2026-07-03T15:00:00Z'), null)).toEqual(
      closed('2026-07-06T13:00:00Z', 'America/New_York', 'us_state_pa'),
    );
  });

  it('national rules: Australia not on Sundays, Spain on weekdays 9:00–21:00 except its national festivos, France on weekdays 10:00–20:00 with a lunch break, except its holidays', () => {
    // Sunday 10:00 in Sydney (AEST) → Monday 9:00.
    expect(callingWindow('+61291234567', at('2026-06-07T00:00:00Z'), null)).toEqual(
      closed('2026-06-07T23:00:00Z', 'Australia/Sydney', 'au_national'),
    );
    // Saturday 17:00 in Sydney: closed (Saturdays end at 17:00).
    expect(callingWindow('+61291234567', at('2026-06-06T06:59:00Z'), null)).toEqual(OPEN);
    expect(callingWindow('+61291234567', at('2026-06-06T07:00:00Z'), null)).toEqual(
      closed('2026-06-07T23:00:00Z', 'Australia/Sydney', 'au_national'),
    );
    // Saturday noon in Madrid → Monday 9:00 CEST.
    expect(callingWindow('+34912345678', at('2026-06-06T10:00:00Z'), null)).toEqual(
      closed('2026-06-08T07:00:00Z', 'Europe/Madrid', 'es_national'),
    );
    expect(callingWindow('+34912345678', at('2026-06-03T18:59:00Z'), null)).toEqual(OPEN);
    // 12 October 2026 (a Monday), Fiesta Nacional de España → Tuesday 9:00; 6 December 2026 is a Sunday: Monday 7 too.
    expect(callingWindow('+34912345678', at('2026-10-12T10:00:00Z'), null)).toEqual(
      closed('2026-10-13T07:00:00Z', 'Europe/Madrid', 'es_national'),
    );
    expect(isCountryHoliday({ year: 2026, month: 12, day: 7 }, 'ES')).toBe(true);
    expect(isCountryHoliday({ year: 2026, month: 12, day: 4 }, 'ES')).toBe(false);
    const PARIS = '+33142345678';
    // Wednesday in Paris (CEST): 9:59 closed until 10:00; 11:00 open; 13:00 closed for lunch until 14:00; 19:59 open.
    expect(callingWindow(PARIS, at('2026-06-03T07:59:00Z'), null)).toEqual(closed('2026-06-03T08:00:00Z', 'Europe/Paris', 'fr_national'));
    expect(callingWindow(PARIS, at('2026-06-03T09:00:00Z'), null)).toEqual(OPEN);
    expect(callingWindow(PARIS, at('2026-06-03T11:00:00Z'), null)).toEqual(closed('2026-06-03T12:00:00Z', 'Europe/Paris', 'fr_national'));
    expect(callingWindow(PARIS, at('2026-06-03T17:59:00Z'), null)).toEqual(OPEN);
    // Ascension (Thursday 14 May 2026, 39 days after Easter) → Friday 10:00.
    expect(callingWindow(PARIS, at('2026-05-14T13:00:00Z'), null)).toEqual(closed('2026-05-15T08:00:00Z', 'Europe/Paris', 'fr_national'));
    // A French holiday on a Saturday moves nowhere: Friday 14 August 2026 is an ordinary day (15 August is a Saturday).
    expect(isCountryHoliday({ year: 2026, month: 8, day: 14 }, 'FR')).toBe(false);
    expect(isCountryHoliday({ year: 2026, month: 8, day: 15 }, 'FR')).toBe(true);
    // The US federal holidays are not France's.
    expect(isCountryHoliday({ year: 2026, month: 7, day: 4 }, 'FR')).toBe(false);
  });

  it('a rule read on a named clock keeps its pause on both readings (the longer pause)', () => {
    const rule = {
      state: 'XX',
      week: [null, null, null, { start: 600, end: 1200, pause: { start: 780, end: 840 } }, null, null, null] as const,
      statedIn: 'Etc/GMT+6',
      source: 'https://example.test',
    };
    // Wednesday 3 June 2026 in Chicago (CDT, an hour ahead of CST): 10:00-20:00 CST is 11:00-21:00 CDT.
    expect(stateWindow(rule, { year: 2026, month: 6, day: 3, weekday: 3 }, 'America/Chicago')).toEqual({
      start: 660,
      end: 1200,
      pause: { start: 780, end: 900 },
    });
  });

  it('holidays: Easter by the Gregorian computus, and a weekend holiday counts on its date and the weekday observed', () => {
    expect([2024, 2025, 2026, 2027, 2038, 2285].map((year) => easterSunday(year))).toEqual([
      { year: 2024, month: 3, day: 31 },
      { year: 2025, month: 4, day: 20 },
      { year: 2026, month: 4, day: 5 },
      { year: 2027, month: 3, day: 28 },
      { year: 2038, month: 4, day: 25 },
      { year: 2285, month: 3, day: 22 },
    ]);
    // New Year's Day 2028 is a Saturday: Friday 31 December 2027 is observed.
    expect(isHoliday({ year: 2027, month: 12, day: 31 }, 'AL')).toBe(true);
    expect(isHoliday({ year: 2028, month: 1, day: 1 }, 'AL')).toBe(true);
    expect(isHoliday({ year: 2027, month: 12, day: 30 }, 'AL')).toBe(false);
    // A state's own holiday is not another's.
    expect(isHoliday({ year: 2026, month: 7, day: 24 }, 'UT')).toBe(true);
    expect(isHoliday({ year: 2026, month: 7, day: 24 }, 'AL')).toBe(false);
  });
});

describe('callingWindowProblems: a workspace may narrow the window, never widen it', () => {
  const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri'];
  it('accepts a narrowing and null', () => {
    expect(callingWindowProblems({ start: '09:00', end: '20:00', days: weekdays })).toEqual([]);
    expect(callingWindowProblems({ start: '08:00', end: '21:00', days: ['sun'] })).toEqual([]);
    expect(callingWindowProblems(null)).toEqual([]);
  });

  it('refuses a widening, naming the field', () => {
    expect(callingWindowProblems({ start: '07:30', end: '20:00', days: weekdays }).map((p) => p.field)).toEqual(['calling_window.start']);
    expect(callingWindowProblems({ start: '09:00', end: '21:30', days: weekdays }).map((p) => p.field)).toEqual(['calling_window.end']);
  });

  it('refuses malformed windows field by field', () => {
    expect(callingWindowProblems({ start: '9:00', end: '20:00', days: weekdays }).map((p) => p.field)).toEqual(['calling_window.start']);
    expect(callingWindowProblems({ start: '15:00', end: '10:00', days: weekdays }).map((p) => p.field)).toEqual(['calling_window.end']);
    expect(callingWindowProblems({ start: '09:00', end: '20:00', days: [] }).map((p) => p.field)).toEqual(['calling_window.days']);
    expect(callingWindowProblems({ start: '09:00', end: '20:00', days: ['mon', 'mon'] }).map((p) => p.field)).toEqual([
      'calling_window.days',
    ]);
    expect(callingWindowProblems('always').map((p) => p.field)).toEqual(['calling_window']);
  });
});
