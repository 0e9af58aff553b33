import { workflowIds } from '../../../workflows/definitions/ids';
import { messageReceiptSignal } from '../../../workflows/definitions/messages';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import type { CarrierReach } from '../carriers/reach';
import type { CarrierMessageStatus } from './rules';
import { recordReceipt } from './receipt';

/**
 * A delivery receipt from any carrier: the status moves forward (never back) and the send
 * workflow, which bills on the final one, is told. False when there is no such message, or it is of
 * an environment the reporting carrier does not serve (`reach`).
 */
export async function takeCarrierReceipt(
  deps: Pick<LoggedUseCaseDeps, 'db' | 'temporal' | 'now' | 'log'>,
  receipt: { messageId: string; status: CarrierMessageStatus; errorCode: string | null },
  reach: CarrierReach,
): Promise<boolean> {
  if (!(await recordReceipt(deps, receipt, reach))) return false;
  try {
    await deps.temporal.workflow
      .getHandle(workflowIds.sendMessage(receipt.messageId))
      .signal(messageReceiptSignal, { status: receipt.status, ...(receipt.errorCode ? { errorCode: receipt.errorCode } : {}) });
  } catch (err) {
    // The workflow has finished (a late or repeated receipt): the status is stored all the same.
    if ((err as Error).name !== 'WorkflowNotFoundError') throw err;
  }
  return true;
}
