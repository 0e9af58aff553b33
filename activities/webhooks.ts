import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { dispatchStrandedEvents } from '../src/domain/webhooks/sweep';
import { findEvent, type EventRow } from '../src/domain/webhooks/record';
import { createDeliveryAttempt, type AttemptOutcome, type DeliveryAttemptDeps } from '../src/domain/webhooks/attempt';
import { businessMetrics } from './metrics';

export {
  createDeliveryAttempt,
  NDJSON_LINE_TIMEOUT_MS,
  NDJSON_TOTAL_TIMEOUT_MS,
  replyTextOf,
  type AttemptOutcome,
  type DeliveryAttemptDeps,
  type ReplyStream,
} from '../src/domain/webhooks/attempt';
export type { EventRow };

export type WebhookActivityDeps = DeliveryAttemptDeps & {
  /** The worker's Temporal client and task queue: the sweeper starts retry workflows. */
  temporal?: () => Client;
  taskQueue?: string;
};

/** The delivery engine's activity: one attempt of one recorded event. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { attempt } = createDeliveryAttempt(deps);
  return {
    async attemptDelivery(
      eventId: string,
      attemptNumber: number,
      stream?: { carrierCallId: string; speakIdPrefix: string },
    ): Promise<AttemptOutcome> {
      const event = await findEvent(deps.db, eventId);
      if (!event) throw ApplicationFailure.nonRetryable(`event ${eventId} does not exist`, 'EventMissing');
      const outcome = await attempt(
        event,
        attemptNumber,
        stream && { carrierCallId: stream.carrierCallId, speakIdPrefix: stream.speakIdPrefix },
      );
      businessMetrics.delivery(event.event_type, outcome);
      return outcome;
    },

    /** The webhook sweeper's pass (src/domain/webhooks/sweep.ts): stranded events get their retry workflow. */
    async dispatchStrandedEvents(): Promise<{ dispatched: number }> {
      const { temporal, taskQueue } = deps;
      if (!temporal || !taskQueue) throw new Error('this worker cannot start retry workflows (no Temporal client)');
      return { dispatched: await dispatchStrandedEvents({ db: deps.db, temporal, taskQueue, now: deps.now }) };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
