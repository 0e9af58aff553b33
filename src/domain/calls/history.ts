import { WorkflowNotFoundError } from '@temporalio/client';
import type { UseCaseDeps } from '../useCaseDeps';
import type { BillingTenant } from '../billing/ledger';
import { exportHistory, type ExportedHistory } from '../../platform/temporal/histories';
import { callsOfTenant } from './store';

export type CallHistoryOutcome = { ok: true; history: ExportedHistory } | { ok: false; refused: 'not_found' | 'no_workflow' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A call's Temporal history as JSON (the call's id is its workflow's id), for the tenant's own
 * calls only; the same export as the CLI's `history export`.
 */
export async function callHistory(deps: UseCaseDeps, tenant: BillingTenant, callId: string): Promise<CallHistoryOutcome> {
  if (!UUID.test(callId) || !(await callsOfTenant(deps.db, tenant).where({ id: callId }).first('id')))
    return { ok: false, refused: 'not_found' };
  try {
    return { ok: true, history: await exportHistory(deps.temporal, callId) };
  } catch (err) {
    // A call refused before its workflow started, or whose history Temporal's retention has dropped.
    if (err instanceof WorkflowNotFoundError) return { ok: false, refused: 'no_workflow' };
    throw err;
  }
}
