import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { CarrierAdapter } from '../src/adapters/carrier/port';
import { NDJSON_LINE_TIMEOUT_MS, NDJSON_TOTAL_TIMEOUT_MS, speakingReply, type NdjsonBudget } from '../src/domain/calls/messageTurn';
import { attemptDelivery, type AttemptOutcome, type DeliveryAttemptDeps } from '../src/domain/webhooks/attempt';
import { findEvent } from '../src/domain/webhooks/record';
import { dispatchStrandedEvents } from '../src/domain/webhooks/sweep';
import { businessMetrics } from './metrics';

export type WebhookActivityDeps = DeliveryAttemptDeps & {
  /** Speaks a streamed reply of a `message` delivery made with a stream (calls from before call turns). */
  carrier: Pick<CarrierAdapter, 'speak'>;
  ndjsonBudget?: NdjsonBudget;
  /** The worker's Temporal client and task queue: the sweeper starts retry workflows. */
  temporal: () => Client;
  taskQueue: string;
};

/** The delivery engine's activity: one attempt of one recorded event. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const budget = deps.ndjsonBudget ?? { lineMs: NDJSON_LINE_TIMEOUT_MS, totalMs: NDJSON_TOTAL_TIMEOUT_MS };
  return {
    async attemptDelivery(
      eventId: string,
      attemptNumber: number,
      stream?: { carrierCallId: string; speakIdPrefix: string },
    ): Promise<AttemptOutcome> {
      const event = await findEvent(deps.db, eventId);
      if (!event) throw ApplicationFailure.nonRetryable(`event ${eventId} does not exist`, 'EventMissing');
      const reply =
        stream && speakingReply(deps.carrier, { carrierCallId: stream.carrierCallId, speakIdPrefix: stream.speakIdPrefix }, budget);
      const outcome = await attemptDelivery(deps, event, attemptNumber, reply ? { reply } : {});
      businessMetrics.delivery(event.event_type, outcome);
      return outcome;
    },

    /** The webhook sweeper's pass (src/domain/webhooks/sweep.ts): stranded events get their retry workflow. */
    async dispatchStrandedEvents(): Promise<{ dispatched: number }> {
      return { dispatched: await dispatchStrandedEvents(deps) };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
