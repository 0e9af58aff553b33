// A rule's windows through the week, as data: the shapes ./stateRules.ts and ./countryRules.ts write their rows in.

/** Minutes since local midnight, start included and end excluded; calls also wait out a `pause` inside it (France's lunch). */
export interface DayWindow {
  start: number;
  end: number;
  pause?: { start: number; end: number };
}

/** The hours of one day, or null: no calls that day. Sunday first, as `LocalDay.weekday`. */
export type Week = readonly [
  DayWindow | null,
  DayWindow | null,
  DayWindow | null,
  DayWindow | null,
  DayWindow | null,
  DayWindow | null,
  DayWindow | null,
];

export const hours = (start: number, end: number): DayWindow => ({ start: start * 60, end: end * 60 });
export const everyDay = (window: DayWindow): Week => [window, window, window, window, window, window, window];
export const noSunday = (window: DayWindow): Week => [null, window, window, window, window, window, window];
export const weekdaysAndWeekend = (weekday: DayWindow | null, weekend: DayWindow | null): Week => [
  weekend,
  weekday,
  weekday,
  weekday,
  weekday,
  weekday,
  weekend,
];
export const weekdaysOnly = (window: DayWindow): Week => weekdaysAndWeekend(window, null);
