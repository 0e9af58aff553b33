import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { DeliverEventInput, DeliverEventWorkflow } from '../../../workflows/definitions/webhooks';
import type { Config } from '../../platform/config';
import type { SecretsKeyRing } from '../../platform/crypto/secretBox';
import type { Db } from '../../platform/db/knex';
import { egressPolicyFor, type EgressPolicy } from '../../platform/net/egress';
import { ignoringAlreadyStarted } from '../../platform/temporal/starts';
import { sealingKeyOf } from '../lines/secrets';
import { attemptDelivery, type AttemptOutcome } from './attempt';
import { EVENT_POLICIES, retryDelayMs, type EventType } from './events';
import { findEvent, recordEventRow, type EventRow, type NewEvent } from './record';

/** What publishing an event reaches: the database, Temporal (for retries only), the egress policy and the signing keys. */
export interface PublishDeps {
  db: Db;
  temporal: () => Client;
  taskQueue: string;
  egress: EgressPolicy;
  secretsKey: () => SecretsKeyRing;
  now: () => Date;
}

const apiPublishDeps = new WeakMap<Config, { egress: EgressPolicy; secretsKey: () => SecretsKeyRing }>();

/** The API process's publish deps, from its configuration (the egress policy and key ring built once per config). */
export function publishDepsOf(deps: { config: Config; db: Db; temporal: Client; now: () => Date }): PublishDeps {
  let built = apiPublishDeps.get(deps.config);
  if (!built) {
    let key: SecretsKeyRing | undefined;
    built = { egress: egressPolicyFor(deps.config), secretsKey: () => (key ??= sealingKeyOf(deps.config)) };
    apiPublishDeps.set(deps.config, built);
  }
  return { db: deps.db, temporal: () => deps.temporal, taskQueue: deps.config.taskQueue, now: deps.now, ...built };
}

/**
 * Starts the durable delivery of a recorded event: the retry workflow, one per event (its id is
 * the event's; a second start of it is refused, also once it has finished, so the raiser and the
 * sweeper never start two retry series). Without `from`, it makes every attempt from 1.
 */
export function startDelivery(
  temporal: Client,
  taskQueue: string,
  eventId: string,
  eventType: EventType,
  from: Pick<DeliverEventInput, 'firstAttempt' | 'delayMs'> = {},
) {
  // By name, typed by its definition (workflows/definitions/webhooks.ts): the workflow module imports the activities that use this.
  const input: DeliverEventInput = { eventId, eventType, ...from };
  return temporal.workflow.start<DeliverEventWorkflow>('deliverEventWorkflow', {
    taskQueue,
    workflowId: workflowIds.deliverEvent(eventId),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
  });
}

/**
 * Records an event its raiser will attempt itself (`makeFirstAttempt`, which takes the answered row
 * without reading it again); the sweeper finds it if that attempt never settles.
 */
export function recordPublishedEvent(db: Db | Knex.Transaction, event: NewEvent): Promise<EventRow> {
  return recordEventRow(db, { ...event, awaitingDispatch: true });
}

/** The event's first attempt is settled: delivered, failed for good, or handed to its retry workflow. */
export async function markDispatched(db: Db, eventId: string): Promise<void> {
  await db('webhook_events').where({ id: eventId, awaiting_dispatch: true }).update({ awaiting_dispatch: false });
}

/**
 * After a first attempt: a retryable failure of an event type that retries starts its retry
 * workflow at attempt 2, after the schedule's first delay; then the event stops awaiting dispatch.
 */
export async function settleFirstAttempt(
  deps: Pick<PublishDeps, 'db' | 'temporal' | 'taskQueue'>,
  event: { id: string; eventType: EventType },
  outcome: Pick<AttemptOutcome, 'delivered' | 'retryable' | 'retryAfterMs'>,
): Promise<void> {
  if (!outcome.delivered && outcome.retryable && EVENT_POLICIES[event.eventType].retry) {
    const delayMs = retryDelayMs(1, Math.random(), outcome.retryAfterMs);
    if (delayMs !== undefined)
      await ignoringAlreadyStarted(startDelivery(deps.temporal(), deps.taskQueue, event.id, event.eventType, { firstAttempt: 2, delayMs }));
  }
  await markDispatched(deps.db, event.id);
}

export type FirstAttemptResult = { made: true; outcome: AttemptOutcome } | { made: false };

/**
 * The first attempt of a recorded event, made by its raiser (issue 14: no workflow per event).
 * Claims attempt 1 (its delivery row) first, so it is POSTed once whoever else tries; a claim
 * already taken (a re-run after a crash) makes nothing and leaves the event to the sweeper.
 */
export async function makeFirstAttempt(deps: PublishDeps, event: EventRow | string): Promise<FirstAttemptResult> {
  const row = typeof event === 'string' ? await findEvent(deps.db, event) : event;
  if (!row) return { made: false };
  const outcome = await attemptDelivery(deps, row, 1, { claim: true });
  if (outcome.error === 'attempt_claimed') return { made: false };
  await settleFirstAttempt(deps, { id: row.id, eventType: row.event_type as EventType }, outcome);
  return { made: true, outcome };
}

/** Publishes an event: records it, then makes its first attempt right after that commit. */
export async function publishEvent(deps: PublishDeps, event: NewEvent): Promise<{ eventId: string; attempt: FirstAttemptResult }> {
  // A stable id may have been recorded before (a retried activity): the row answered is what was recorded.
  const recorded = await recordPublishedEvent(deps.db, event);
  return { eventId: recorded.id, attempt: await makeFirstAttempt(deps, recorded) };
}
