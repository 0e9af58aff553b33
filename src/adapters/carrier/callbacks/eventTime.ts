/**
 * Bounds on the carrier's `at` (epoch ms) against this machine's clock: a carrier event may be
 * retried for a while but not describe the distant past, and clocks may differ a little but not
 * describe the future. Values outside are refused (422) rather than billed (security review C1, L7).
 */
export const CARRIER_EVENT_MAX_AGE_MS = 60 * 60_000;
export const CARRIER_EVENT_MAX_AHEAD_MS = 5 * 60_000;

/** Why `at` is out of bounds at `nowMs`, or null. */
export function carrierEventTimeProblem(at: number, nowMs: number): string | null {
  if (at < nowMs - CARRIER_EVENT_MAX_AGE_MS) return `more than ${CARRIER_EVENT_MAX_AGE_MS / 60_000} minutes in the past`;
  if (at > nowMs + CARRIER_EVENT_MAX_AHEAD_MS) return `more than ${CARRIER_EVENT_MAX_AHEAD_MS / 60_000} minutes in the future`;
  return null;
}
