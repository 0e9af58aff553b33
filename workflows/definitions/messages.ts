import { defineSignal } from '@temporalio/workflow';
import type { CarrierMessageStatus, MessageStatus } from '../../src/domain/messages/rules';

/** The SMS workflow's contract with the API and the carrier's receipt route. */

export interface MessageReceipt {
  status: CarrierMessageStatus;
  errorCode?: string;
}

/** A delivery receipt, forwarded by the API from the carrier (the database has it already). */
export const messageReceiptSignal = defineSignal<[MessageReceipt]>('messageReceipt');

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

/** What one dispatch sweep did: send workflows started for stranded queued messages, and starts still unconfirmed. */
export interface DispatchStrandedMessagesResult {
  dispatched: number;
  unconfirmed: number;
}
