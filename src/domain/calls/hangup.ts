import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { workflowIds } from '../../../workflows/definitions/ids';
import { hangupSignal } from '../../../workflows/definitions/calls';
import type { recoverOrphansWorkflow } from '../../../workflows/recovery';

/**
 * Asks an active call to end (the API's hang-up, a line release). Its workflow gets the hang-up
 * signal; when there is no running workflow any more (it finished in the meantime, or was lost:
 * a failed start, a terminated run), the recovery workflow ends the call from what is known, so
 * the request never fails after the caller's decision and the line is freed at once. Returns the
 * handle whose result means the call has ended.
 */
export async function endActiveCall(temporal: Client, taskQueue: string, callId: string): Promise<WorkflowHandle> {
  const handle = temporal.workflow.getHandle(callId);
  try {
    await handle.signal(hangupSignal);
    return handle;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  const workflowId = workflowIds.callRecovery(callId);
  try {
    await temporal.workflow.start<typeof recoverOrphansWorkflow>('recoverOrphansWorkflow', { taskQueue, workflowId, args: [{ callId }] });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return temporal.workflow.getHandle(workflowId);
}
