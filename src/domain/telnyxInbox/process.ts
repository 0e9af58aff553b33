import crypto from 'node:crypto';
import { applyTelnyxEvent, type TelnyxInboxDeps } from './apply';
import { givenUp, LEASE_MS, retryDelayMs } from './rules';
import { messageOrderKey } from '../../adapters/carrier/callbacks/telnyx/envelope';
import { dueEvents, makeDue, markProcessed, releaseLease, reschedule, takeLease, type InboxRow } from './store';

/** Events of one key taken per look. */
const BATCH = 50;

/**
 * Processes the due events of one order key (a call session, a message), in order, holding the key's lease so
 * no other instance processes them at the same time: the API right after storing an event, the sweeper for
 * the events nobody processed (the API died, an event waits). A key whose lease another holds is left to it:
 * the holder looks for new events again after giving the lease back, so an event stored meanwhile is not
 * stranded. An event that fails or waits is tried again later and does not hold up the key's next ones (a
 * `call.hangup` is never stuck behind an event that cannot be processed yet). Returns the events processed.
 */
export async function processTelnyxEvents(deps: TelnyxInboxDeps, orderKey: string): Promise<number> {
  const holder = crypto.randomUUID();
  let processed = 0;
  for (;;) {
    if (!(await takeLease(deps.db, orderKey, holder, LEASE_MS))) return processed;
    try {
      for (;;) {
        const due = await dueEvents(deps.db, orderKey, BATCH);
        if (due.length === 0) break;
        for (const row of due) {
          await takeLease(deps.db, orderKey, holder, LEASE_MS);
          processed += (await processRow(deps, row)) ? 1 : 0;
        }
      }
    } finally {
      await releaseLease(deps.db, orderKey, holder);
    }
    // Stored after our last look while we held the lease: its storer left it to us.
    if ((await dueEvents(deps.db, orderKey, 1)).length === 0) return processed;
  }
}

/**
 * The message's Telnyx id is recorded (the send activity): its receipts that arrived first and wait in the inbox are
 * processed now, not at the sweeper's next pass.
 */
export async function processReceiptsOf(deps: TelnyxInboxDeps, carrierMessageId: string): Promise<number> {
  const key = messageOrderKey(carrierMessageId);
  await makeDue(deps.db, key);
  return processTelnyxEvents(deps, key);
}

/** One event: its outcome recorded, or it is tried again later (given up, logged, past its deadline). */
async function processRow(deps: TelnyxInboxDeps, row: InboxRow): Promise<boolean> {
  const about = { event_id: row.event_id, event_type: row.event_type, attempts: row.attempts + 1 };
  let waiting: string | undefined;
  let error: string | undefined;
  try {
    const result = await applyTelnyxEvent(deps, row);
    if (result.processed) {
      await markProcessed(deps.db, row.event_id, result);
      if (result.outcome === 'unhandled')
        deps.log.info({ ...about, reason: result.reason }, 'telnyx event not acted on (kept in the inbox)');
      else deps.log.debug({ ...about, outcome: result.outcome, reason: result.reason }, 'telnyx event processed');
      return true;
    }
    waiting = result.reason;
  } catch (err) {
    error = (err as Error).message ?? String(err);
  }
  if (givenUp(row.received_at, deps.now(), waiting !== undefined)) {
    await markProcessed(deps.db, row.event_id, { outcome: 'gave_up', reason: waiting, error });
    deps.log.error({ ...about, reason: waiting, err: error }, 'telnyx event given up: it could not be processed in time');
    return true;
  }
  await reschedule(deps.db, row.event_id, retryDelayMs(row.attempts + 1), { reason: waiting, error });
  if (error) deps.log.warn({ ...about, err: error }, 'telnyx event failed; it is tried again');
  else deps.log.debug({ ...about, reason: waiting }, 'telnyx event waits; it is tried again');
  return false;
}
