import { defineSignal } from '@temporalio/workflow';
import type { CarrierMessageStatus, MessageStatus } from '../../src/domain/messages/rules';

/** The SMS workflow's contract with the API and the carrier's receipt route. */

export interface MessageReceipt {
  status: CarrierMessageStatus;
  errorCode?: string;
}

/** A delivery receipt, forwarded by the API from the carrier (the database has it already). */
export const messageReceiptSignal = defineSignal<[MessageReceipt]>('messageReceipt');

/** A final delivery receipt for one message of a batch, forwarded to the batch's workflow. */
export interface BatchMessageReceipt extends MessageReceipt {
  messageId: string;
}

export const messageBatchReceiptSignal = defineSignal<[BatchMessageReceipt]>('messageBatchReceipt');

export interface SendMessageInput {
  messageId: string;
  workspaceId: string;
  environment: 'test' | 'live';
  lineId: string;
  from: string;
  to: string;
  text: string;
  segments: number;
  /**
   * The price, already held under `sms:<messageId>` by the API. Zero with no hold for the
   * automatic keyword replies, which are free.
   */
  chargeCents: number;
}

export interface SendMessageResult {
  status: MessageStatus;
  chargeCents: number;
}

/**
 * The messages one API process (or the dispatch sweep) claimed together (`messages.dispatch_batch_id`), each sent,
 * awaited and billed as `sendMessageWorkflow` does one (src/domain/messages/dispatch.ts).
 */
export interface SendMessageBatchInput {
  batchId: string;
  messages: SendMessageInput[];
}

export interface SendMessageBatchResult {
  messages: Array<SendMessageResult & { messageId: string }>;
}

/** What one dispatch sweep did: send workflows started for stranded queued messages, and starts still unconfirmed. */
export interface DispatchStrandedMessagesResult {
  dispatched: number;
  unconfirmed: number;
}
