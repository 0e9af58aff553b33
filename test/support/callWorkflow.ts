import type { Client } from '@temporalio/client';
import { eventually } from './eventually';
import { decryptedHistory } from '../../dev/temporalHistory';

/**
 * Resolves once the call's workflow has accepted a `wait` update that is still open: the wait is
 * then listening, so the caller's next sentence answers it instead of becoming a `message` turn.
 * (A fixed pause before speaking raced the update under CI load.)
 */
export async function untilWaitingForCaller(temporal: Client, callId: string, timeoutMs = 20_000): Promise<void> {
  await eventually(async () => ((await openWaits(temporal, callId)) > 0 ? true : undefined), timeoutMs, `call ${callId} to accept a wait`);
}

/** Resolves once no `wait` update of the call is open (each has answered, or was withdrawn). */
export async function untilNoWaitOpen(temporal: Client, callId: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => ((await openWaits(temporal, callId)) === 0 ? true : undefined),
    timeoutMs,
    `call ${callId} to close its waits`,
  );
}

/** `wait` updates the call's workflow has accepted and not yet answered, from its history. */
async function openWaits(temporal: Client, callId: string): Promise<number> {
  const { events } = await temporal.workflow.getHandle(callId).fetchHistory();
  const open = new Set<string>();
  for (const event of events ?? []) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted?.acceptedRequest?.input?.name === 'wait') open.add(accepted.acceptedRequest.meta?.updateId ?? '');
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    if (completed) open.delete(completed.meta?.updateId ?? '');
  }
  return open.size;
}

/** The carrier events signalled to a call's workflow, as their payloads, in order (its history decrypted). */
export async function signalledCarrierEvents(temporal: Client, callId: string): Promise<Array<Record<string, unknown>>> {
  const history = await decryptedHistory(temporal, callId);
  return (history.events ?? [])
    .flatMap((e) => e.workflowExecutionSignaledEventAttributes?.input?.payloads ?? [])
    .map((p) => JSON.parse(Buffer.from(p.data ?? []).toString('utf8')) as Record<string, unknown>);
}
