import { ignoringAlreadyStarted } from '../../platform/temporal/starts';
import { EVENT_POLICIES, type EventType } from './events';
import { markDispatched, settleFirstAttempt, startDelivery, type PublishDeps } from './publish';

/** An event its raiser has had this long to settle without doing so is taken over by the sweeper. */
export const STRANDED_AFTER_MS = 5_000;
/** Events taken over per pass; the next pass (seconds later) takes the rest. */
export const SWEEP_BATCH = 500;

interface StrandedRow {
  id: string;
  event_type: EventType;
  attempt_status: 'pending' | 'success' | 'failed' | null;
  attempt_error: string | null;
  attempt_created_at: Date | null;
}

/**
 * The sweeper's pass: events recorded `awaiting_dispatch` more than STRANDED_AFTER_MS ago, whose
 * raiser (a worker or API process) died before settling their first attempt. By what attempt 1's
 * row says:
 * - none: the attempt never ran; the retry workflow makes every attempt from 1.
 * - success: it was delivered; only the settling was lost.
 * - failed: settled as the raiser would have (the retry workflow from attempt 2, if the type retries).
 * - pending: still in flight until the type's answer budget has passed (then the raiser is dead, and
 *   the retry workflow tries attempt 1 again: the receiver may get it twice, under one event_id).
 * Every start is by the event's workflow id, refused a second time, so passes may overlap.
 */
export async function dispatchStrandedEvents(deps: Pick<PublishDeps, 'db' | 'temporal' | 'taskQueue' | 'now'>): Promise<number> {
  const now = deps.now().getTime();
  const rows: StrandedRow[] = await deps
    .db('webhook_events as e')
    .leftJoin('webhook_deliveries as d', function joinFirstAttempt() {
      this.on('d.event_id', 'e.id').andOn('d.attempt', deps.db.raw('1'));
    })
    .where('e.awaiting_dispatch', true)
    .andWhere('e.created_at', '<', new Date(now - STRANDED_AFTER_MS))
    .orderBy('e.created_at')
    .limit(SWEEP_BATCH)
    .select('e.id', 'e.event_type', 'd.status as attempt_status', 'd.error_message as attempt_error', 'd.created_at as attempt_created_at');
  let dispatched = 0;
  for (const row of rows) {
    const policy = EVENT_POLICIES[row.event_type];
    if (
      row.attempt_status === 'pending' &&
      row.attempt_created_at &&
      row.attempt_created_at.getTime() > now - policy.timeoutMs - STRANDED_AFTER_MS
    )
      continue;
    if (row.attempt_status === 'success') await markDispatched(deps.db, row.id);
    else if (row.attempt_status === 'failed') {
      const retryable = row.attempt_error !== 'line_released';
      await settleFirstAttempt(deps, { id: row.id, eventType: row.event_type }, { delivered: false, retryable });
    } else {
      await ignoringAlreadyStarted(startDelivery(deps.temporal(), deps.taskQueue, row.id, row.event_type, { firstAttempt: 1 }));
      await markDispatched(deps.db, row.id);
    }
    dispatched += 1;
  }
  return dispatched;
}
