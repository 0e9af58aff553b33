import type { Db } from '../../../../platform/db/knex';

/**
 * A transfer is a Calls update, recorded before it is sent like a create (`carrier_create_attempts`,
 * kind `transfer`, keyed by the transfer id; ../createAttempts.ts). Twilio keeps no trace of an update,
 * so when the update's answer is lost the record alone cannot say whether it went through. Twilio's
 * own callbacks about the transfer can: the `<Number>`'s status callback and the `<Dial>`'s action
 * name the transfer in their URL, and either proves Twilio ran the `<Dial>`. The record is completed
 * with the transfer's carrier id (`<CallSid>:<transfer id>`, as the adapter writes it), so a retry of
 * the transfer anywhere sends nothing (`TwilioCarrier.transferCall`).
 */
export function transferCarrierId(callSid: string, transferId: string): string {
  return `${callSid}:${transferId}`;
}

export async function recordTransferReached(db: Db, transferId: string, callSid: string): Promise<void> {
  await db('carrier_create_attempts')
    .where({ kind: 'transfer', key: transferId })
    .whereNull('carrier_id')
    .update({ carrier_id: transferCarrierId(callSid, transferId) });
}
