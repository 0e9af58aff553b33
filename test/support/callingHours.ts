import { callingWindow } from '../../src/domain/callingHours/rules';

/** Callees around the world (Los Angeles, New York, Honolulu, London, Tokyo): at any instant one of them may be called. */
const AROUND_THE_WORLD = ['+14155552671', '+12125552671', '+18085552671', '+442079460123', '+81312345678'];

/**
 * A callee whose calling window is open at `at`, for the few tests that place calls through an API
 * process of their own (which judges calling hours on its real clock, not the suite's fixed instant);
 * `index` picks another number of the same exchange, for tests that call several people at once.
 */
export function calleeOpenAt(at: Date, index = 0): string {
  const open = AROUND_THE_WORLD.find((number) => callingWindow(number, at, null).open);
  if (!open) throw new Error(`no callee of ${AROUND_THE_WORLD.join(', ')} is within calling hours at ${at.toISOString()}`);
  // The `index`th number of the same exchange: tests that call several people at once.
  return `${open.slice(0, -3)}${String((Number(open.slice(-3)) + index) % 1000).padStart(3, '0')}`;
}

/** Exchanges around the world, each a prefix before three free digits (NANP ones outside the simulator's never-connecting 555-01xx). */
const EXCHANGES = ['+14155552', '+12125552', '+18085552', '+442079460', '+81312342'];

/**
 * `count` (at most 1,000) distinct callees of one exchange whose calling window is open from `at`
 * for `minutes` (a window is one stretch a day, so open at both ends is open throughout): for
 * campaigns dialled by a worker process of their own, which judges calling hours on its real clock.
 */
export function calleesOpenFor(at: Date, minutes: number, count: number): string[] {
  const later = new Date(at.getTime() + minutes * 60_000);
  const exchange = EXCHANGES.find((prefix) => [at, later].every((instant) => callingWindow(`${prefix}000`, instant, null).open));
  if (!exchange)
    throw new Error(`no exchange of ${EXCHANGES.join(', ')} is within calling hours from ${at.toISOString()} for ${minutes} minutes`);
  return Array.from({ length: count }, (_, i) => `${exchange}${String(i).padStart(3, '0')}`);
}
