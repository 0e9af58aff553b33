import type { UseCaseDeps } from '../useCaseDeps';
import { findLine, type Tenant } from '../lines/store';
import { waitForResult } from '../../platform/temporal/waitForResult';
import { EVENT_POLICIES } from './events';
import { createEvent, startDelivery } from './publish';

/** What is known of the test event's attempt: `finished` once it has run (else it is still pending). */
export interface TestAttempt {
  eventId: string;
  finished: boolean;
  /** The attempt's delivery row; undefined when the attempt has not started. */
  delivery: Record<string, unknown> | undefined;
}

export type SendTestOutcome = { ok: true; attempt: TestAttempt } | { ok: false; refused: 'not_found' | 'released' };

/**
 * Sends a signed `test` event to a line's webhook_url: one attempt, no retries, recorded in the
 * delivery log like any other. L11: the wait is bounded. The attempt itself is (a 5 s answer), but
 * a busy or stopped worker is not: past `webhookTestWaitMs` the long poll is cancelled and what
 * is known is returned; the attempt finishes on its own.
 */
export async function sendTestEvent(deps: UseCaseDeps, sender: Tenant & { keyId: string }, lineId: string): Promise<SendTestOutcome> {
  const line = await findLine(deps.db, sender, lineId);
  if (!line) return { ok: false, refused: 'not_found' };
  if (line.status === 'released') return { ok: false, refused: 'released' };
  const now = deps.now();
  const eventId = await createEvent(deps.db, {
    workspaceId: sender.workspaceId,
    environment: sender.environment,
    lineId,
    type: 'test',
    target: EVENT_POLICIES.test.target,
    payload: { message: 'Test event from Switchboard', timestamp: now.getTime() },
    actorKeyId: sender.keyId,
    now,
  });
  const handle = await startDelivery(deps.temporal, deps.config.taskQueue, eventId, 'test');
  const waited = await waitForResult(deps.temporal, handle, deps.config.webhookTestWaitMs);
  const delivery = waited.finished
    ? await deps.db('webhook_deliveries').where({ id: waited.result.lastDeliveryId }).first()
    : await deps.db('webhook_deliveries').where({ event_id: eventId }).orderBy('attempt', 'desc').first();
  return { ok: true, attempt: { eventId, finished: waited.finished, delivery } };
}
