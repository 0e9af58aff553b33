import type { Client } from '@temporalio/client';
import { workflowIds } from '../../../workflows/definitions/ids';
import { callCopyWantedSignal, type CallCopyWorkflow } from '../../../workflows/definitions/recordings';
import type { LoggedUseCaseDeps } from '../useCaseDeps';

/**
 * Asks for the call's durable copy (workflows/recordings.ts): starts its workflow, or, when one is already running,
 * tells it there is more to store, so a late recording arriving while a run is past its check is still copied by
 * that run (docs/decisions/recordings.md, "The race"). Safe to repeat.
 */
export async function wantCallCopy(temporal: Client, taskQueue: string, callId: string): Promise<void> {
  await temporal.workflow.signalWithStart<CallCopyWorkflow>('callCopyWorkflow', {
    workflowId: workflowIds.callCopy(callId),
    taskQueue,
    args: [{ callId }],
    signal: callCopyWantedSignal,
  });
}

/**
 * A recording the carrier reported after the call ended was kept on the call: its copy is asked for. A failure is
 * logged and left to the sweeper (`sweepCallCopiesWorkflow`): the carrier's callback has been taken either way.
 */
export async function wantCopyOfLateRecording(deps: LoggedUseCaseDeps, callId: string): Promise<void> {
  try {
    await wantCallCopy(deps.temporal, deps.config.taskQueue, callId);
  } catch (err) {
    deps.log.warn({ call_id: callId, err: (err as Error).message }, 'copy of a late recording not started; the sweeper will start it');
  }
}
