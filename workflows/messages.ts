import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BillingActivities } from '../activities/billing';
import type { MessageActivities } from '../activities/messages';
import { isFinalStatus } from '../src/domain/messages/rules';
import * as options from './activityOptions';
import { activityFailedWith, FailureTypes } from './definitions/failures';
import {
  messageBatchReceiptSignal,
  messageReceiptSignal,
  type MessageReceipt,
  type SendMessageBatchInput,
  type SendMessageBatchResult,
  type SendMessageInput,
  type SendMessageResult,
} from './definitions/messages';

/** Handing the message to the carrier: retried with backoff for about five minutes; a refusal is final. */
const carrier = proxyActivities<MessageActivities>(options.messageCarrier);
const store = proxyActivities<MessageActivities>(options.store);
const billing = proxyActivities<BillingActivities>(options.store);

/** How long we wait for the final delivery receipt before billing on what we know. */
const FINAL_RECEIPT_WAIT = '10 minutes';

/**
 * One outbound SMS: hand it to the carrier, wait for the final delivery receipt, then bill it once. A message the
 * carrier refused, could not be reached for, or reports `failed` (it never left the carrier) is free: its hold is
 * released. `delivered`, `undelivered` and a message with no final receipt are charged. `finalReceipt` reads what the
 * workflow's signal handler has received for this message.
 */
async function deliverMessage(input: SendMessageInput, finalReceipt: () => MessageReceipt | undefined): Promise<SendMessageResult> {
  const tenant = { workspaceId: input.workspaceId, environment: input.environment };
  const reference = `sms:${input.messageId}`;
  const billed = input.chargeCents > 0;

  try {
    await carrier.sendThroughCarrier({ messageId: input.messageId, from: input.from, to: input.to, text: input.text });
  } catch (err) {
    const refused = activityFailedWith(err, FailureTypes.carrierRejected);
    await store.markMessageFailed(input.messageId, refused ? 'carrier_rejected' : 'carrier_unavailable');
    if (billed) await billing.releaseReservation({ tenant, reference });
    return { status: 'failed', chargeCents: 0 };
  }

  await condition(() => finalReceipt() !== undefined, FINAL_RECEIPT_WAIT);
  // A receipt the API stored but could not signal (the status is in the database either way).
  const status = finalReceipt()?.status ?? (await store.messageStatus(input.messageId));
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

/**
 * A batch of outbound SMS (workflow id `message-batch:<batch id>`), claimed together by the process that accepted
 * them or by the dispatch sweep: each message is delivered and billed on its own, all at once. One message's failure
 * does not stop the others; the batch fails after every message has finished if any could not.
 */
export async function sendMessageBatchWorkflow(input: SendMessageBatchInput): Promise<SendMessageBatchResult> {
  const finalReceipts = new Map<string, MessageReceipt>();
  setHandler(messageBatchReceiptSignal, ({ messageId, ...receipt }) => {
    if (isFinalStatus(receipt.status) && !finalReceipts.has(messageId)) finalReceipts.set(messageId, receipt);
  });
  const outcomes = await Promise.allSettled(
    input.messages.map((message) => deliverMessage(message, () => finalReceipts.get(message.messageId))),
  );
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return {
    messages: outcomes.map((outcome, i) => ({
      messageId: input.messages[i]!.messageId,
      ...(outcome as PromiseFulfilledResult<SendMessageResult>).value,
    })),
  };
}

/**
 * One outbound SMS in a workflow of its own (id `message-send:<id>`): how messages were sent before batches
 * (migration 0060). Kept so the executions started then run to their end and their histories replay.
 */
export async function sendMessageWorkflow(input: SendMessageInput): Promise<SendMessageResult> {
  let finalReceipt: MessageReceipt | undefined;
  setHandler(messageReceiptSignal, (receipt) => {
    if (isFinalStatus(receipt.status)) finalReceipt ??= receipt;
  });
  return deliverMessage(input, () => finalReceipt);
}
