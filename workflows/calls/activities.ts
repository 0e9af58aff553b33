import { ActivityCancellationType, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AudioActivities } from '../../activities/audio/activities';
import type { BillingActivities } from '../../activities/billing';
import type { CallActivities } from '../../activities/calls';
import type { HostedActivities } from '../../activities/hosted';

/** The call workflow's activities, each with the timeouts and retries its kind of work needs. */

/** Carrier commands: retried while the carrier is unreachable, for at most a minute; a refusal is final. */
export const carrier = proxyActivities<CallActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', nonRetryableErrorTypes: ['CarrierRejected'] },
});
/** Postgres writes and event publication: idempotent, retried until they succeed. */
export const records = proxyActivities<CallActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});
/** Taking the call over, in the first workflow task (no round trip through the server). */
export const claims = proxyLocalActivities<CallActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});
/** A whole webhook-mode caller turn, at most once (see `takeMessageTurn`; a late answer would be spoken out of turn). */
export const turns = proxyLocalActivities<CallActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } });
export const billing = proxyActivities<BillingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});
/** Holding the next minute: a refusal, or no answer within 30 s, ends the call (it is not funded). */
export const funding = proxyActivities<BillingActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});
/** A hosted turn: one attempt, heartbeating so a barge-in cancels it within a second (see workflows/calls/legacy.ts). */
export const hosted = proxyActivities<HostedActivities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '1 second',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
});
/** The audio relay of an audio line, for the whole call; it heartbeats every 2 s. */
export const audio = proxyActivities<AudioActivities>({
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3, nonRetryableErrorTypes: ['CarrierRejected'] },
});
/** DTMF can take a while to play (`w` pauses). */
export const keypad = proxyActivities<CallActivities>({ startToCloseTimeout: '1 minute', retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 } });
