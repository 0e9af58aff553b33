import type { EventType } from '../../src/domain/webhooks/events';

/** The webhook delivery workflow's contract with the publisher. */

export interface DeliverEventInput {
  eventId: string;
  eventType: EventType;
  /**
   * The attempt to start at (default 1). The raiser makes attempt 1 itself right after recording
   * the event and starts this workflow only when that attempt failed: then at 2, after `delayMs`.
   */
  firstAttempt?: number;
  /** The backoff to wait before `firstAttempt` (the schedule's delay after the raiser's failed attempt). */
  delayMs?: number;
  /** One attempt and no retries: an operator's redelivery (src/domain/webhooks/redeliver.ts). */
  singleAttempt?: boolean;
}

export interface DeliverEventResult {
  status: 'success' | 'failed';
  attempts: number;
  lastDeliveryId: string;
  httpStatus: number | null;
}

/**
 * `deliverEventWorkflow`'s signature (workflows/webhooks.ts), which its starts are typed by: the use cases that
 * start it are imported by the workflow's activities, so they cannot name the workflow module (an import cycle).
 * test/unit/typedStarts.test.ts holds the workflow to it.
 */
export type DeliverEventWorkflow = (input: DeliverEventInput) => Promise<DeliverEventResult>;

/** The sweeper's result: how many stranded events it handed to their retry workflow or found settled. */
export interface SweepStrandedEventsResult {
  dispatched: number;
}
