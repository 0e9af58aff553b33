import { addDays, instantOfLocal, localReading, type LocalDay } from './localTime';
import { countryRuleOf, countryWindow } from './countryRules';
import { FEDERAL_RULE, FEDERAL_WINDOW, stateRuleOf, stateWindow } from './stateRules';
import type { DayWindow } from './week';
import { placeOfNumber, type NumberPlace } from './zones';

export const CALLING_DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type CallingDay = (typeof CALLING_DAYS)[number];

/**
 * A workspace's own calling window in one environment (settings `calling_window`): callee-local
 * `HH:MM` times, start included and end excluded, on the days listed. It narrows the legal window,
 * never widens it (`callingWindowProblems` refuses a widening).
 */
export interface WorkspaceCallingWindow {
  start: string;
  end: string;
  days: readonly CallingDay[];
}

/**
 * The window never opens for this number: the workspace's narrowing and the rules of the callee's place (or of
 * the zones it spans) never overlap, on any day. Every rule repeats weekly, so a fortnight without an opening is never.
 */
export class CallingWindowNeverOpensError extends Error {
  constructor(
    readonly zone: string,
    readonly rule: string,
  ) {
    super(`the calling window never opens (${rule} in ${zone})`);
    this.name = 'CallingWindowNeverOpensError';
  }
}

export type CallingWindowVerdict = { open: true } | { open: false; nextOpenAt: Date; zone: string; rule: string };

const minuteOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
/** How far ahead the next opening is looked for: every weekly rule repeats within it, holidays included. */
const HORIZON_DAYS = 16;

interface Closure {
  zone: string;
  rule: string;
}

function intersect(a: DayWindow | null, b: DayWindow | null): DayWindow | null {
  if (!a || !b) return null;
  const window = { start: Math.max(a.start, b.start), end: Math.min(a.end, b.end) };
  return window.start < window.end ? window : null;
}

/** Each rule that applies on a local day in `zone`, in the order a refusal names the first that closes it. */
function layersOf(day: LocalDay, zone: string, place: NumberPlace, narrowing: WorkspaceCallingWindow | null) {
  const layers: Array<{ rule: string; window: DayWindow | null }> = [{ rule: FEDERAL_RULE.name, window: FEDERAL_WINDOW }];
  const country = countryRuleOf(place.country);
  if (country) layers.push({ rule: `${country.country.toLowerCase()}_national`, window: countryWindow(country, day) });
  const state = stateRuleOf(place.usState);
  if (state) layers.push({ rule: `us_state_${state.state.toLowerCase()}`, window: stateWindow(state, day, zone) });
  if (narrowing) {
    const open = narrowing.days.includes(CALLING_DAYS[day.weekday]);
    layers.push({ rule: 'workspace', window: open ? { start: minuteOf(narrowing.start), end: minuteOf(narrowing.end) } : null });
  }
  return layers;
}

function windowOf(day: LocalDay, zone: string, place: NumberPlace, narrowing: WorkspaceCallingWindow | null): DayWindow | null {
  return layersOf(day, zone, place, narrowing).reduce<DayWindow | null>((window, layer) => intersect(window, layer.window), {
    start: 0,
    end: 24 * 60,
  });
}

/** The first zone (and the rule there) that is closed at `at`, or null when every zone is open. */
function closureAt(at: Date, place: NumberPlace, narrowing: WorkspaceCallingWindow | null): Closure | null {
  for (const zone of place.zones) {
    const local = localReading(at, zone);
    for (const layer of layersOf(local, zone, place, narrowing)) {
      const window = layer.window;
      const paused = window?.pause && local.minute >= window.pause.start && local.minute < window.pause.end;
      if (!window || local.minute < window.start || local.minute >= window.end || paused) return { zone, rule: layer.rule };
    }
  }
  return null;
}

/**
 * Whether a call to `toNumber` may be placed at `at`: the federal window (8:00–21:00 callee-local),
 * the stricter rules of the number's country (./countryRules.ts) and US state (./stateRules.ts) and the workspace's narrowing, in
 * every zone the number may be in (a number spanning zones is judged by the strictest reading).
 * Closed, it says when all of them are next open, and which zone and rule closed it now; when they
 * never are, it throws `CallingWindowNeverOpensError`. A number with no known zone (non-geographic
 * services) has no local time to judge: open.
 */
export function callingWindow(toNumber: string, at: Date, narrowing: WorkspaceCallingWindow | null): CallingWindowVerdict {
  const place = placeOfNumber(toNumber);
  const closure = closureAt(at, place, narrowing);
  if (!closure) return { open: true };
  const openings: Date[] = [];
  for (const zone of place.zones) {
    const today = localReading(at, zone);
    for (let offset = 0; offset <= HORIZON_DAYS; offset += 1) {
      const day = addDays(today, offset);
      const window = windowOf(day, zone, place, narrowing);
      // The day opens at the start of all its windows, or when a rule's pause ends (whichever comes with all open).
      const pauseEnds = layersOf(day, zone, place, narrowing).flatMap((layer) => (layer.window?.pause ? [layer.window.pause.end] : []));
      for (const minute of window ? [window.start, ...pauseEnds] : []) {
        const opening = instantOfLocal(day, minute, zone);
        if (opening > at) openings.push(opening);
      }
    }
  }
  const nextOpenAt = openings.sort((a, b) => a.getTime() - b.getTime()).find((t) => !closureAt(t, place, narrowing));
  if (!nextOpenAt) throw new CallingWindowNeverOpensError(closure.zone, closure.rule);
  return { open: false, nextOpenAt, ...closure };
}

/**
 * What is wrong with a workspace calling window as given (settings `calling_window`), field by
 * field: `HH:MM` times, start before end, days a non-empty set of `sun`…`sat`, and within the
 * federal window, which it may narrow but never widen.
 */
export function callingWindowProblems(value: unknown): Array<{ field: string; message: string }> {
  if (value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value))
    return [{ field: 'calling_window', message: 'Must be an object {start, end, days} or null' }];
  const window = value as Record<string, unknown>;
  const problems: Array<{ field: string; message: string }> = [];
  const federal = `${clock(FEDERAL_WINDOW.start)}–${clock(FEDERAL_WINDOW.end)}`;
  for (const field of ['start', 'end'] as const) {
    const time = window[field];
    if (typeof time !== 'string' || !TIME.test(time))
      problems.push({ field: `calling_window.${field}`, message: 'Must be a time HH:MM (24-hour)' });
  }
  if (problems.length === 0) {
    const [start, end] = [minuteOf(window.start as string), minuteOf(window.end as string)];
    if (start < FEDERAL_WINDOW.start)
      problems.push({
        field: 'calling_window.start',
        message: `Can only narrow the legal window ${federal} callee-local: start at ${clock(FEDERAL_WINDOW.start)} or later`,
      });
    if (end > FEDERAL_WINDOW.end)
      problems.push({
        field: 'calling_window.end',
        message: `Can only narrow the legal window ${federal} callee-local: end at ${clock(FEDERAL_WINDOW.end)} or earlier`,
      });
    if (start >= end) problems.push({ field: 'calling_window.end', message: 'Must be after start' });
  }
  const days = window.days;
  if (
    !Array.isArray(days) ||
    days.length === 0 ||
    new Set(days).size !== days.length ||
    !days.every((day) => (CALLING_DAYS as readonly unknown[]).includes(day))
  )
    problems.push({ field: 'calling_window.days', message: `Must list each allowed day once, of ${CALLING_DAYS.join(', ')}` });
  const unknown = Object.keys(window).filter((key) => !['start', 'end', 'days'].includes(key));
  for (const key of unknown) problems.push({ field: `calling_window.${key}`, message: 'Unknown field' });
  return problems;
}

function clock(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

/** The days of a valid window in calendar order, so that a stored window reads the same however it was given. */
export function normalizedCallingWindow(window: WorkspaceCallingWindow): WorkspaceCallingWindow {
  return { start: window.start, end: window.end, days: CALLING_DAYS.filter((day) => window.days.includes(day)) };
}
