import { endActiveCall } from '../calls/hangup';
import { activeCallIdsOfLine } from '../calls/store';
import type { UseCaseDeps } from '../useCaseDeps';
import type { Logger } from '../../platform/logger';
import { StartCompensatedError, startOrCompensate } from '../../platform/temporal/starts';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { releaseLineWorkflow } from '../../../workflows/lines';
import { findLine, markLineReleased, type LineRow, type Tenant } from './store';

export type ReleaseOutcome = { ok: true; line: LineRow } | { ok: false; refused: 'not_found' | 'not_started' };

/**
 * Releases a line: status `released`, its number given back to the carrier by the release
 * workflow, and its active call hung up. Idempotent: a released line is returned as it is.
 */
export async function releaseLine(deps: UseCaseDeps, log: Logger, tenant: Tenant, lineId: string): Promise<ReleaseOutcome> {
  const row = await findLine(deps.db, tenant, lineId);
  if (!row) return { ok: false, refused: 'not_found' };
  if (row.status === 'released') return { ok: true, line: row };
  const now = deps.now();
  let released: LineRow;
  try {
    released = await deps.db.transaction(async (trx) => {
      const updated = await markLineReleased(trx, row.id, now);
      // Started inside the transaction: if Temporal is down the release rolls back; the workflow
      // itself waits until it sees the committed release before touching the carrier.
      await startOrCompensate<typeof releaseLineWorkflow>(
        deps.temporal,
        'releaseLineWorkflow',
        { taskQueue: deps.config.taskQueue, workflowId: workflowIds.releaseLine(row.id), args: [{ lineId: row.id }] },
        async (outcome) => {
          log.error({ outcome, line_id: row.id }, 'could not start line release');
          return true; // the transaction rolls back: the line stays as it was
        },
      );
      return updated;
    });
  } catch (err) {
    if (err instanceof StartCompensatedError) return { ok: false, refused: 'not_started' };
    throw err;
  }
  const hungUp = await hangUpActiveCalls(deps, log, row.id);
  log.info({ line_id: row.id, hung_up_calls: hungUp }, 'line released');
  return { ok: true, line: released };
}

/** A released line keeps no call: its active one is asked to end (its workflow settles it as usual). */
async function hangUpActiveCalls(deps: UseCaseDeps, log: Logger, lineId: string): Promise<number> {
  const active = await activeCallIdsOfLine(deps.db, lineId);
  for (const callId of active) {
    try {
      // A call whose workflow is gone is ended by the recovery workflow (L11).
      await endActiveCall(deps.temporal, deps.config.taskQueue, callId);
    } catch (err) {
      // The release has committed; the recovery sweeper ends a call this could not reach.
      log.error({ err, call_id: callId, line_id: lineId }, 'could not hang up the released line’s call');
    }
  }
  return active.length;
}
