import { WorkflowNotFoundError } from '@temporalio/client';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { DeliverEventInput, DeliverEventWorkflow } from '../../../workflows/definitions/webhooks';
import { egressPolicyFor } from '../../platform/net/egress';
import { ignoringAlreadyStarted } from '../../platform/temporal/starts';
import { findLine, type Tenant } from '../lines/store';
import type { UseCaseDeps } from '../useCaseDeps';
import { eventDestination } from './destination';
import { EVENT_POLICIES, type EventType } from './events';
import { findEvent } from './record';
import { deliveriesOfTenant } from './store';

export type RedeliverOutcome =
  | { ok: true; eventId: string; attempt: number }
  | { ok: false; refused: 'not_found' }
  | { ok: false; refused: 'in_progress' | 'line_released' | 'no_destination' | 'egress_refused'; message: string };

/**
 * An operator's "Resend" of a delivery (docs/decisions/portal.md, issue 17): the event of that attempt is
 * delivered again as its next attempt number, by the delivery workflow (one attempt, no retries),
 * with a new delivery id, signed with the line's current secret, to where the event goes now.
 * Refused while the event still has an attempt in flight or a retry scheduled (the two would
 * share attempt numbers), and when its destination is refused by the egress policy (checked here
 * to answer at once; the attempt checks every connection again). `deliveryId` is a UUID (its caller checked).
 */
export async function redeliverEvent(deps: UseCaseDeps, tenant: Tenant, deliveryId: string): Promise<RedeliverOutcome> {
  const delivery = await deliveriesOfTenant(deps.db, tenant).where({ id: deliveryId }).first('event_id');
  const event = delivery && (await findEvent(deps.db, delivery.event_id));
  if (!event) return { ok: false, refused: 'not_found' };
  const eventType = event.event_type as EventType;
  const line = await findLine(deps.db, tenant, event.line_id);
  if (!line || line.status === 'released')
    return { ok: false, refused: 'line_released', message: 'The line of this event is released; its events are no longer delivered' };
  const url = await eventDestination(deps.db, tenant, line, EVENT_POLICIES[eventType].target);
  if (!url) return { ok: false, refused: 'no_destination', message: 'The line has no URL for this event any more' };
  const refusal = await egressPolicyFor(deps.config).refusalOfUrl(url, tenant.environment);
  if (refusal) return { ok: false, refused: 'egress_refused', message: `${url}: ${refusal}` };
  const attempts = await deliveriesOfTenant(deps.db, tenant).where({ event_id: event.id }).select('attempt', 'status');
  if (attempts.some((row) => row.status === 'pending') || (await retriesScheduled(deps, event.id)))
    return {
      ok: false,
      refused: 'in_progress',
      message: 'This event has an attempt in flight or a retry scheduled; redeliver it once that has finished',
    };
  const attempt = Math.max(0, ...attempts.map((row) => Number(row.attempt))) + 1;
  const input: DeliverEventInput = { eventId: event.id, eventType, firstAttempt: attempt, singleAttempt: true };
  // By name, typed by its definition, as startDelivery does; a second click finds it started.
  await ignoringAlreadyStarted(
    deps.temporal.workflow.start<DeliverEventWorkflow>('deliverEventWorkflow', {
      taskQueue: deps.config.taskQueue,
      workflowId: workflowIds.redeliverEvent(event.id, attempt),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
    }),
  );
  return { ok: true, eventId: event.id, attempt };
}

/** Whether the event's retry workflow is still running (waiting out its backoff between attempts). */
async function retriesScheduled(deps: UseCaseDeps, eventId: string): Promise<boolean> {
  try {
    const described = await deps.temporal.workflow.getHandle(workflowIds.deliverEvent(eventId)).describe();
    return described.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
