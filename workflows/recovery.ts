import { ActivityFailure, log, proxyActivities } from '@temporalio/workflow';
import type { RecoveryActivities } from '../activities/recovery';
import * as options from './activityOptions';
import type { RecoverOrphansInput, RecoverOrphansResult } from './definitions/recovery';

const recovery = proxyActivities<RecoveryActivities>(options.recovery);

/**
 * The durable sweeper (a Temporal Schedule runs it every few minutes; see
 * src/main/schedules.ts): ends calls still active past any possible length (their workflow
 * missing, closed or stuck, which is then terminated) or never taken over by a workflow (their
 * workflow missing or closed), and fails queued messages that never got a workflow, settling or
 * releasing their holds so no line stays locked and no hold stays open.
 * Started for one call (`callId`) when a hang-up finds its workflow gone: then a running
 * workflow is left to finish the call itself.
 */
export async function recoverOrphansWorkflow(input: RecoverOrphansInput = {}): Promise<RecoverOrphansResult> {
  const result: RecoverOrphansResult = { calls: [], messages: [] };
  const attempt = async <T>(run: () => Promise<T>): Promise<T | { outcome: 'error' }> => {
    try {
      return await run();
    } catch (err) {
      // One item that keeps failing must not hold up the others; the next sweep tries it again.
      if (!(err instanceof ActivityFailure)) throw err;
      return { outcome: 'error' };
    }
  };
  if (input.callId) {
    const callId = input.callId;
    result.calls.push({ callId, ...(await attempt(() => recovery.recoverCall({ callId, endRunningWorkflow: false }))) });
    return result;
  }
  const stale = await recovery.findStaleWork();
  for (const callId of stale.callIds)
    result.calls.push({ callId, ...(await attempt(() => recovery.recoverCall({ callId, endRunningWorkflow: true }))) });
  // `?? []`: sweep results recorded before this list existed (test/histories) have none.
  for (const callId of stale.unclaimedCallIds ?? [])
    result.calls.push({ callId, ...(await attempt(() => recovery.recoverCall({ callId, endRunningWorkflow: false }))) });
  for (const messageId of stale.messageIds)
    result.messages.push({ messageId, ...(await attempt(() => recovery.recoverMessage(messageId))) });
  if (result.calls.length > 0 || result.messages.length > 0)
    log.warn('recovery sweep', { calls: result.calls.length, messages: result.messages.length });
  return result;
}
