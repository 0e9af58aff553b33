import type { Client } from '@temporalio/client';
import { eventually } from './eventually';

/**
 * Resolves once the call's workflow has accepted a `wait` update that is still open: the wait is
 * then listening, so the caller's next sentence answers it instead of becoming a `message` turn.
 * (A fixed pause before speaking raced the update under CI load.)
 */
export async function untilWaitingForCaller(temporal: Client, callId: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => {
      const { events } = await temporal.workflow.getHandle(callId).fetchHistory();
      const open = new Set<string>();
      for (const event of events ?? []) {
        const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
        if (accepted?.acceptedRequest?.input?.name === 'wait') open.add(accepted.acceptedRequest.meta?.updateId ?? '');
        const completed = event.workflowExecutionUpdateCompletedEventAttributes;
        if (completed) open.delete(completed.meta?.updateId ?? '');
      }
      return open.size > 0 ? true : undefined;
    },
    timeoutMs,
    `call ${callId} to accept a wait`,
  );
}
