import type { CarrierMessageStatus } from './rules';
import { advanceMessageStatus, findMessage, type MessageRow } from './store';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { withinCarrierReach, type CarrierReach } from '../carriers/reach';

/**
 * A delivery receipt moves its message's status forward (never back: receipts repeat and arrive
 * out of order). Returns the message, or nothing when there is no such message, or none in the carrier's `reach`.
 * The send workflow, which bills on the final receipt, is told next (by the caller).
 */
export async function recordReceipt(
  deps: Pick<LoggedUseCaseDeps, 'db' | 'now' | 'log'>,
  receipt: { messageId: string; status: CarrierMessageStatus; errorCode: string | null },
  reach: CarrierReach,
): Promise<MessageRow | undefined> {
  const message = await findMessage(deps.db, receipt.messageId);
  if (!message || !withinCarrierReach(deps.log, reach, message, { message_id: message.id, status: receipt.status })) return undefined;
  await advanceMessageStatus(deps.db, message.id, receipt.status, { errorCode: receipt.errorCode, at: deps.now() });
  return message;
}
