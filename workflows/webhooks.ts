import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import { EVENT_POLICIES, retryDelayMs } from '../src/domain/webhooks/events';
import * as options from './activityOptions';
import type { DeliverEventInput, DeliverEventResult, SweepStrandedEventsResult } from './definitions/webhooks';

/** The HTTP attempt itself is one activity; receiver failures are answers, handled by the schedule below. */
const { attemptDelivery } = proxyActivities<WebhookActivities>(options.webhookAttempt);
const { dispatchStrandedEvents } = proxyActivities<WebhookActivities>(options.webhookSweep);

/**
 * Delivers one event to its receiver: attempt, and while it fails and the event type allows,
 * wait out the backoff schedule (durable timers: a worker restart loses nothing) and try
 * again with a new delivery id and the same event_id. Started only for events whose first
 * attempt (made by their raiser) failed or never ran; `firstAttempt` and `delayMs` say where it
 * takes over (histories from before issue 14 have neither: attempt 1 at once). With `singleAttempt`
 * (an operator's redelivery) it makes the one attempt and stops.
 */
export async function deliverEventWorkflow({
  eventId,
  eventType,
  firstAttempt,
  delayMs,
  singleAttempt,
}: DeliverEventInput): Promise<DeliverEventResult> {
  const policy = EVENT_POLICIES[eventType];
  if (delayMs !== undefined && delayMs > 0) await sleep(delayMs);
  for (let attempt = firstAttempt ?? 1; ; attempt += 1) {
    const outcome = await attemptDelivery(eventId, attempt);
    const result = { attempts: attempt, lastDeliveryId: outcome.deliveryId, httpStatus: outcome.httpStatus };
    if (outcome.delivered) return { status: 'success', ...result };
    // An input-only branch (no patch needed): histories started without `singleAttempt` replay unchanged.
    const delay =
      !singleAttempt && policy.retry && outcome.retryable ? retryDelayMs(attempt, Math.random(), outcome.retryAfterMs) : undefined;
    if (delay === undefined) return { status: 'failed', ...result };
    await sleep(delay);
  }
}

/**
 * The webhook sweeper (a Temporal schedule, every few seconds): events whose raiser died before
 * their first attempt was settled get their retry workflow (see `dispatchStrandedEvents`).
 */
export async function sweepStrandedEventsWorkflow(): Promise<SweepStrandedEventsResult> {
  return dispatchStrandedEvents();
}
