import type { CallStatus } from 'twilio/lib/rest/api/v2010/account/call';
import type { MessageStatus } from 'twilio/lib/rest/api/v2010/account/message';
import type { CarrierCallEventType, CarrierMessageStatus } from '../../callbacks/wire';

/**
 * Every `CallStatus` and `MessageStatus` Twilio documents (the `twilio` package's types; status callbacks
 * also report `initiated`): a callback with any other is one Switchboard does not understand, and is logged.
 */
const CALL_STATUSES: Readonly<Record<CallStatus | 'initiated', true>> = {
  queued: true,
  initiated: true,
  ringing: true,
  'in-progress': true,
  completed: true,
  busy: true,
  failed: true,
  'no-answer': true,
  canceled: true,
};
const MESSAGE_STATUSES: Readonly<Record<MessageStatus, true>> = {
  queued: true,
  sending: true,
  sent: true,
  failed: true,
  delivered: true,
  undelivered: true,
  receiving: true,
  received: true,
  accepted: true,
  scheduled: true,
  read: true,
  partially_delivered: true,
  canceled: true,
};

export const isTwilioCallStatus = (status: string): boolean => Object.hasOwn(CALL_STATUSES, status);
export const isTwilioMessageStatus = (status: string): boolean => Object.hasOwn(MESSAGE_STATUSES, status);

/**
 * Twilio's final and progress call statuses (`CallStatus`) → the carrier call event Switchboard
 * knows; null for the statuses that report nothing new (`queued`, `initiated`, `in-progress`:
 * `call.answered` comes when the call runs our `connect` TwiML). `canceled` is a ringing call we
 * hung up: `call.completed`, never answered.
 */
export function twilioCallEventType(callStatus: string): Exclude<CarrierCallEventType, 'call.incoming'> | null {
  switch (callStatus) {
    case 'ringing':
      return 'call.ringing';
    case 'completed':
    case 'canceled':
      return 'call.completed';
    case 'busy':
      return 'call.busy';
    case 'no-answer':
      return 'call.no_answer';
    case 'failed':
      return 'call.failed';
    default:
      return null;
  }
}

/** Twilio's `MessageStatus` → a receipt status; null for the in-between ones (`accepted`, `queued`, `sending`, …). */
export function twilioMessageStatus(messageStatus: string): CarrierMessageStatus | null {
  return messageStatus === 'sent' || messageStatus === 'delivered' || messageStatus === 'undelivered' || messageStatus === 'failed'
    ? messageStatus
    : null;
}

/** A BCP 47 tag such as `en-US` → the language Switchboard reports (`en`; `pt-BR` and `zh-*` keep their region). */
export function utteranceLanguage(tag: string): string {
  const [language, region] = tag.split('-');
  return language === 'pt' || language === 'zh' ? `${language}${region ? `-${region.toUpperCase()}` : ''}` : language.toLowerCase();
}
