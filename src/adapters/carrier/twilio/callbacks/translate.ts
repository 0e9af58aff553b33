import type { CarrierCallEventType, CarrierMessageStatus } from '../../callbacks/wire';

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
