import type { Client } from '@temporalio/client';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { deliverEventWorkflow } from '../../../workflows/webhooks';
import type { EventType } from './events';
import { recordEvent } from './record';

/** The earlier name of `recordEvent` (./record.ts), kept for the tests and benches that record events directly. */
export const createEvent = recordEvent;

/** Starts the durable delivery of a recorded event (one workflow per event). */
export function startDelivery(temporal: Client, taskQueue: string, eventId: string, eventType: EventType) {
  return temporal.workflow.start<typeof deliverEventWorkflow>('deliverEventWorkflow', {
    taskQueue,
    workflowId: workflowIds.deliverEvent(eventId),
    args: [{ eventId, eventType }],
  });
}
