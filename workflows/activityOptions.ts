import { ActivityCancellationType, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { FailureTypes } from './definitions/failures';

/**
 * The timeout and retry policies of every workflow's activities, declared once and named by the
 * kind of work. Each workflow module proxies its activities with one of these. The values are
 * part of the workflows' behaviour (how long a carrier outage is waited out, what is retried):
 * change one only on purpose, for every workflow that uses it.
 */

/** Postgres reads and writes, event publication: idempotent, so retried until they succeed. */
export const store = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
} satisfies ActivityOptions;

/** The same, as a local activity: it runs in the workflow task itself (no round trip through the server). */
export const localStore = store satisfies LocalActivityOptions;

/**
 * The billing workflows' ledger and settings work: idempotent, retried until it succeeds; bulk
 * work (a month's close, a page of fees) gets 30 s an attempt.
 */
export const ledger = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} satisfies ActivityOptions;

/**
 * One attempt, never retried: a webhook-mode caller turn (a late answer would be spoken out of
 * turn; see `takeMessageTurn`) and, in histories before it, the `message` delivery.
 */
export const oneShot = {
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
} satisfies ActivityOptions & LocalActivityOptions;

// Carrier commands: retried while the carrier is unreachable, for a budget that fits the
// work; a refusal (CarrierRejected) is final.

/** A live call cannot wait long for its carrier: at most a minute, then the call counts as lost. */
export const callCarrier = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: [FailureTypes.carrierRejected],
  },
} satisfies ActivityOptions;

/** Calls recorded before `call-workflow-v2` (workflows/calls/legacy.ts) retried carrier commands with no budget. */
export const legacyCallCarrier = {
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: [FailureTypes.carrierRejected],
  },
} satisfies ActivityOptions;

/** Backoff for carrier work nobody is waiting on live (numbers, SMS). */
const patientCarrierRetry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  nonRetryableErrorTypes: [FailureTypes.carrierRejected],
} satisfies ActivityOptions['retry'];

/** Handing an SMS to the carrier: about five minutes, then the message fails (and is free). */
export const messageCarrier = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '5 minutes',
  retry: patientCarrierRetry,
} satisfies ActivityOptions;

/** The SMS dispatch sweep: a batch of workflow starts, a few tries (the next sweep, 5 s on, takes what is left). */
export const messageSweep = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 3 },
} satisfies ActivityOptions;

/** Acquiring (or giving back) a line's number: ten minutes, then the line is released with the reason. */
export const lineCarrier = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: patientCarrierRetry,
} satisfies ActivityOptions;

/** Releasing a number: waits (briefly) for the release to commit, then retries the carrier for a day until it confirms. */
export const numberRelease = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} satisfies ActivityOptions;

// A call's own activities.

/** Holding a call's next minute: a refusal, or no answer within 30 s, ends the call (it is not funded). */
export const holdNextMinute = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
} satisfies ActivityOptions;

/**
 * A hosted turn: one attempt (a late answer would be spoken out of turn). It heartbeats, so a
 * barge-in can cancel it within about a second; the workflow waits until it has stopped, so
 * nothing it hands the carrier afterwards escapes the next turn's stop.
 */
export const hostedTurn = {
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '1 second',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
} satisfies ActivityOptions;

/** The audio relay of an audio line, for the whole call (at most 15 minutes); it heartbeats every 2 s. */
export const audioRelay = {
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3, nonRetryableErrorTypes: [FailureTypes.carrierRejected] },
} satisfies ActivityOptions;

/** DTMF can take a while to play (`w` pauses); a few tries, then the press answers `pressed: false`. */
/**
 * A tool a hosted call's model called: one attempt (a tool may not be idempotent, and the caller
 * waits); the endpoint's own budget is at most 20 s (TOOL_LIMITS.maxTimeoutMs), so 30 s covers it.
 */
export const toolCall = {
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
} satisfies ActivityOptions;

export const keypad = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
} satisfies ActivityOptions;

// Billing.

/**
 * The card processor: transient failures retried with backoff for up to an hour, declines final.
 * The adapter gives up on the processor after 10 s; a lost worker is noticed within 15.
 */
export const cardProcessor = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [FailureTypes.cardDeclined, FailureTypes.paymentRejected],
  },
} satisfies ActivityOptions;

/** Asking the processor what became of a charge: retried with backoff for as long as it takes. */
export const chargeLookup = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
} satisfies ActivityOptions;

// Background work.

/**
 * One webhook delivery attempt. Temporal retries it only for our own faults (database, worker
 * crash); receiver failures are answers, handled by the event's backoff schedule. The timeout
 * covers the receiver's budget plus our bookkeeping.
 */
export const webhookAttempt = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
} satisfies ActivityOptions;

/** The webhook sweeper's pass (one bounded query and a few workflow starts): the next pass, seconds later, retries it. */
export const webhookSweep = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 3 },
} satisfies ActivityOptions;

/**
 * One batch of the recordings retention (src/domain/recordings/retention.ts: up to 100 calls per environment, a
 * store delete per object): idempotent, so retried whole; a store that stays down fails the run, and tomorrow's
 * run takes the rest (nothing is lost by waiting).
 */
export const recordingRetention = {
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
} satisfies ActivityOptions;

/** The Telnyx inbox sweeper's pass (a bounded batch of stored webhooks): the next pass, seconds later, retries it. */
export const inboxSweep = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 2 },
} satisfies ActivityOptions;

/**
 * Publishing a call event inside the call workflow (issue 14): record it and make its first
 * attempt, as a local activity. The receiver's 5 s budget plus bookkeeping; retried like the
 * store (the attempt row is claimed, so a re-run never POSTs attempt 1 twice).
 */
export const localEventPublish = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
} satisfies LocalActivityOptions;

/**
 * Copying one object of a call into the recordings store (workflows/recordings.ts): retried for as long as it
 * takes, so a store that is down or refuses the credentials delays the copy and never loses it (each failure is a
 * log line and `switchboard_recording_copy_failures_total`). An attempt heartbeats every 2 s, so one whose worker
 * died is retried within 10 s; 10 minutes covers an hour-long recording on a slow store. Final: the carrier
 * refused (it has no such recording), or the store refused the request itself (a bug, not the store's state).
 * Deleting a stored recording at the carrier (`recordings.delete_at_carrier`) is retried the same way: a carrier that
 * is down or refuses the credentials delays it; any other refusal is final.
 */
export const recordingCopy = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [FailureTypes.carrierRejected, FailureTypes.storeRefused],
  },
} satisfies ActivityOptions;

/** Recovering one orphaned call or message: a few tries, then the item is reported and the next sweep tries again. */
export const recovery = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
} satisfies ActivityOptions;

/** The hourly purge of expired records: a bulk delete, given time and a bounded number of tries (the next hour runs it again). */
export const purge = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
} satisfies ActivityOptions;
