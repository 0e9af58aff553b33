import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { deliverEventWorkflow } from '../../../workflows/webhooks';
import type { EventType } from './events';

/** Records an outbound event; its id is the `event_id` receivers dedupe on. */
export async function createEvent(
  db: Knex | Knex.Transaction,
  event: { workspaceId: string; environment: 'test' | 'live'; lineId: string; callId?: string | null; type: EventType; target: 'webhook' | 'status_callback'; payload: Record<string, unknown>; actorKeyId?: string | null; now: Date },
): Promise<string> {
  const id = crypto.randomUUID();
  await db('webhook_events').insert({
    id,
    workspace_id: event.workspaceId,
    environment: event.environment,
    line_id: event.lineId,
    call_id: event.callId ?? null,
    event_type: event.type,
    target: event.target,
    payload: event.payload,
    actor_key_id: event.actorKeyId ?? null,
    created_at: event.now,
  });
  return id;
}

/** Starts the durable delivery of a recorded event (one workflow per event). */
export function startDelivery(temporal: Client, taskQueue: string, eventId: string, eventType: EventType) {
  return temporal.workflow.start<typeof deliverEventWorkflow>('deliverEventWorkflow', {
    taskQueue,
    workflowId: workflowIds.deliverEvent(eventId),
    args: [{ eventId, eventType }],
  });
}
