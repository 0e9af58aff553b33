/**
 * The rules of SMS (spec "SMS and conversations", "Limits"): when an outbound message may be
 * sent, what an inbound keyword means, and how a message's status moves. Pure: routes,
 * activities, workflows and tests all import these.
 */

/** Outbound SMS needs an inbound SMS from the recipient to the line within this long. */
export const SMS_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Whether the conversation window is open at `now` after the last inbound message at
 * `lastInboundAt`: open while less than 24 hours have passed, closed from exactly 24 hours on.
 * A message "from the future" (clock skew between API instances) counts as just received.
 */
export function isWindowOpen(lastInboundAt: Date | null | undefined, now: Date): boolean {
  if (!lastInboundAt) return false;
  return now.getTime() - lastInboundAt.getTime() < SMS_WINDOW_MS;
}

/** Longest text accepted for one outbound message (ten GSM-7 segments' worth, as Twilio allows 1600). */
export const MAX_SMS_TEXT_LENGTH = 1600;

/**
 * Keywords an inbound SMS can consist of (the whole message, any case, surrounding whitespace
 * ignored), as the CTIA guidelines and US carriers define them.
 */
export const OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;
export const OPT_IN_KEYWORDS = ['START', 'UNSTOP'] as const;
export const HELP_KEYWORDS = ['HELP'] as const;

export type Keyword = 'opt_out' | 'opt_in' | 'help';

export function keywordOf(text: string): Keyword | null {
  const word = text.trim().toUpperCase();
  if ((OPT_OUT_KEYWORDS as readonly string[]).includes(word)) return 'opt_out';
  if ((OPT_IN_KEYWORDS as readonly string[]).includes(word)) return 'opt_in';
  if ((HELP_KEYWORDS as readonly string[]).includes(word)) return 'help';
  return null;
}

/** The automatic replies to keywords (sent from the line, free of charge, outside the window rule). */
export const KEYWORD_REPLIES: Record<Keyword, string> = {
  opt_out: 'You have been unsubscribed and will receive no more messages from this number. Reply START to resubscribe.',
  opt_in: 'You have been resubscribed and may receive messages from this number again. Reply STOP to unsubscribe.',
  help: 'Automated messages from this number. Reply STOP to unsubscribe or START to resubscribe. Msg & data rates may apply.',
};

export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'undelivered', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** What the carrier reports about an outbound message, in delivery receipts (the carrier's wire contract). */
export { CARRIER_MESSAGE_STATUSES, type CarrierMessageStatus } from '../../adapters/carrier/callbacks/wire';

/**
 * Outbound statuses only move forward: queued → sent → delivered | failed | undelivered, and a
 * message can fail straight from queued. Receipts may arrive out of order (or twice); a step
 * back is ignored, so the stored status is always the furthest one reported.
 */
const STATUS_RANK: Record<MessageStatus, number> = { queued: 0, sent: 1, delivered: 2, failed: 2, undelivered: 2, received: 2 };

export function advancesStatus(current: MessageStatus, next: MessageStatus): boolean {
  return STATUS_RANK[next] > STATUS_RANK[current];
}

/** Statuses a message never leaves. */
export function isFinalStatus(status: MessageStatus): boolean {
  return STATUS_RANK[status] === 2;
}
