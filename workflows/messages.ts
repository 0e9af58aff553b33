import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BillingActivities } from '../activities/billing';
import type { MessageActivities } from '../activities/messages';
import { isFinalStatus } from '../src/domain/messages/rules';
import * as options from './activityOptions';
import { activityFailedWith, FailureTypes } from './definitions/failures';
import { messageReceiptSignal, type MessageReceipt, type SendMessageInput, type SendMessageResult } from './definitions/messages';

/** Handing the message to the carrier: retried with backoff for about five minutes; a refusal is final. */
const carrier = proxyActivities<MessageActivities>(options.messageCarrier);
const store = proxyActivities<MessageActivities>(options.store);
const billing = proxyActivities<BillingActivities>(options.store);

/** How long we wait for the final delivery receipt before billing on what we know. */
const FINAL_RECEIPT_WAIT = '10 minutes';

/**
 * One outbound SMS (workflow id `message-send:<id>`): hand it to the carrier, wait for the
 * final delivery receipt, then bill it once. A message the carrier refused, could not be
 * reached for, or reports `failed` (it never left the carrier) is free: its hold is released.
 * `delivered`, `undelivered` and a message with no final receipt are charged.
 */
export async function sendMessageWorkflow(input: SendMessageInput): Promise<SendMessageResult> {
  const tenant = { workspaceId: input.workspaceId, environment: input.environment };
  const reference = `sms:${input.messageId}`;
  let finalReceipt: MessageReceipt | undefined;
  setHandler(messageReceiptSignal, (receipt) => {
    if (isFinalStatus(receipt.status)) finalReceipt ??= receipt;
  });
  const billed = input.chargeCents > 0;

  try {
    await carrier.sendThroughCarrier({ messageId: input.messageId, from: input.from, to: input.to, text: input.text });
  } catch (err) {
    const refused = activityFailedWith(err, FailureTypes.carrierRejected);
    await store.markMessageFailed(input.messageId, refused ? 'carrier_rejected' : 'carrier_unavailable');
    if (billed) await billing.releaseReservation({ tenant, reference });
    return { status: 'failed', chargeCents: 0 };
  }

  await condition(() => finalReceipt !== undefined, FINAL_RECEIPT_WAIT);
  // A receipt the API stored but could not signal (the status is in the database either way).
  const status = finalReceipt?.status ?? (await store.messageStatus(input.messageId));
  if (!billed) return { status, chargeCents: 0 };
  if (status === 'failed') {
    await billing.releaseReservation({ tenant, reference });
    return { status, chargeCents: 0 };
  }
  await billing.settleReservation({
    tenant,
    reference,
    chargeCents: input.chargeCents,
    type: 'sms_charge',
    description: `SMS to ${input.to} (${input.segments} segment${input.segments === 1 ? '' : 's'})`,
    lineId: input.lineId,
    usage: { kind: 'sms_outbound' },
  });
  await store.recordMessageCharge(input.messageId, input.chargeCents);
  return { status, chargeCents: input.chargeCents };
}
