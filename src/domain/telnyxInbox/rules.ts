/**
 * The rules of the Telnyx inbox (./store.ts): when an event that could not be processed yet is tried again, and
 * for how long. Pure.
 */

/** One processor per order key at a time; one that died is taken over after this long. */
export const LEASE_MS = 30_000;

/** The first retry after 1 s, doubling to at most 5 minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 5 * 60_000);
}

/**
 * How long an event waits for what it is about to exist (a receipt ahead of its message's carrier id, a recording
 * Telnyx's Recordings API does not list yet): far longer than either takes. Then it is given up, logged.
 */
export const WAIT_DEADLINE_MS = 60 * 60_000;

/** How long an event whose processing fails (the database, Temporal or Telnyx unreachable) is retried. */
export const ERROR_DEADLINE_MS = 24 * 60 * 60_000;

/** Processed events are kept this long, for operators (and as the duplicate check's memory): Telnyx duplicates within seconds. */
export const INBOX_RETENTION_MS = 7 * 24 * 60 * 60_000;

/** Whether an event received at `receivedAt` and still not processed is given up at `now`. */
export function givenUp(receivedAt: Date, now: Date, waiting: boolean): boolean {
  return now.getTime() - receivedAt.getTime() >= (waiting ? WAIT_DEADLINE_MS : ERROR_DEADLINE_MS);
}
