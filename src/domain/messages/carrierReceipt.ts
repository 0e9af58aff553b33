import { workflowIds } from '../../../workflows/definitions/ids';
import { messageBatchReceiptSignal, messageReceiptSignal, type MessageReceipt } from '../../../workflows/definitions/messages';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import type { CarrierReach } from '../carriers/reach';
import { isFinalStatus, type CarrierMessageStatus } from './rules';
import { recordReceipt } from './receipt';

/**
 * A delivery receipt from any carrier: the status moves forward (never back) and, when it is final, the send
 * workflow, which bills on it, is told (the message's batch workflow, or its own for a message from before batches).
 * False when there is no such message, or it is of an environment the reporting carrier does not serve (`reach`).
 */
export async function takeCarrierReceipt(
  deps: Pick<LoggedUseCaseDeps, 'db' | 'temporal' | 'now' | 'log'>,
  receipt: { messageId: string; status: CarrierMessageStatus; errorCode: string | null },
  reach: CarrierReach,
): Promise<boolean> {
  const message = await recordReceipt(deps, receipt, reach);
  if (!message) return false;
  // The workflows act on final receipts only; an intermediate one is in the database, which is all it changes.
  if (!isFinalStatus(receipt.status)) return true;
  const told: MessageReceipt = { status: receipt.status, ...(receipt.errorCode ? { errorCode: receipt.errorCode } : {}) };
  try {
    if (message.dispatch_batch_id)
      await deps.temporal.workflow
        .getHandle(workflowIds.sendMessageBatch(message.dispatch_batch_id))
        .signal(messageBatchReceiptSignal, { messageId: message.id, ...told });
    else await deps.temporal.workflow.getHandle(workflowIds.sendMessage(message.id)).signal(messageReceiptSignal, told);
  } catch (err) {
    // The workflow has finished (a late or repeated receipt): the status is stored all the same.
    if ((err as Error).name !== 'WorkflowNotFoundError') throw err;
  }
  return true;
}
