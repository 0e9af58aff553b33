import type { CarrierMessageStatus } from './rules';
import { advanceMessageStatus, findMessage } from './store';
import type { Db } from '../../platform/db/knex';

/**
 * A delivery receipt moves its message's status forward (never back: receipts repeat and arrive
 * out of order). False when there is no such message. The send workflow, which bills on the
 * final receipt, is told next (by the caller).
 */
export async function recordReceipt(
  db: Db,
  receipt: { messageId: string; status: CarrierMessageStatus; errorCode: string | null },
  at: Date,
): Promise<boolean> {
  const message = await findMessage(db, receipt.messageId);
  if (!message) return false;
  await advanceMessageStatus(db, message.id, receipt.status, { errorCode: receipt.errorCode, at });
  return true;
}
