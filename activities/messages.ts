import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../src/platform/db/knex';
import { advanceMessageStatus, findMessage, setCarrierMessageId, setMessageCharge } from '../src/domain/messages/store';
import type { MessageStatus } from '../src/domain/messages/rules';
import { CarrierRejectedError, type CarrierAdapter } from '../src/adapters/carrier/port';

export interface MessageActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  /** Where the carrier posts delivery receipts and inbound SMS (`<public base>/carrier/messages`). */
  carrierMessagesUrl: string;
  /** What waits for a message's carrier id once it is recorded (Telnyx receipts that arrived first); its failure is only logged. */
  onCarrierMessageId?: (carrierMessageId: string) => Promise<unknown>;
  now: () => Date;
}

/** Thin adapters between the send-message workflow and the carrier and Postgres. */
export function createMessageActivities({ db, carrier, carrierMessagesUrl, onCarrierMessageId, now }: MessageActivityDeps) {
  return {
    /** Hands the message to the carrier (idempotent on the message id) and notes the carrier's id for it. */
    async sendThroughCarrier(message: {
      messageId: string;
      from: string;
      to: string;
      text: string;
    }): Promise<{ carrierMessageId: string }> {
      let carrierMessageId: string;
      try {
        ({ carrierMessageId } = await carrier.sendSms({ ...message, statusUrl: carrierMessagesUrl }));
      } catch (err) {
        if (err instanceof CarrierRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'CarrierRejected');
        throw err;
      }
      await setCarrierMessageId(db, message.messageId, carrierMessageId);
      // The message is sent: what waited for its id is the sweeper's if this fails.
      await onCarrierMessageId?.(carrierMessageId).catch((err: Error) =>
        Context.current().log.warn('receipts waiting for the message could not be processed now', { err: err.message }),
      );
      return { carrierMessageId };
    },

    async markMessageFailed(messageId: string, errorCode: string): Promise<void> {
      await advanceMessageStatus(db, messageId, 'failed', { errorCode, at: now() });
    },

    async messageStatus(messageId: string): Promise<MessageStatus> {
      const row = await findMessage(db, messageId);
      if (!row) throw ApplicationFailure.nonRetryable(`message ${messageId} does not exist`, 'MessageMissing');
      return row.status;
    },

    async recordMessageCharge(messageId: string, chargeCents: number): Promise<void> {
      await setMessageCharge(db, messageId, chargeCents);
    },
  };
}

export type MessageActivities = ReturnType<typeof createMessageActivities>;
