import type { CarrierMessageEvent, CarrierMessageStatusEvent } from '../../port';

/** What a messaging webhook becomes (a part of ./webhook.ts's `TelnyxTranslation`). */
export type MessageTranslation =
  | { kind: 'message'; event: CarrierMessageEvent }
  | { kind: 'ignored'; reason: string; unhandled?: true }
  /** A receipt of a message whose carrier id is not recorded yet: tried again later. */
  | { kind: 'unknown'; reason: string };

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Telnyx's per-recipient delivery status (`to[].status` of `message.sent`/`message.finalized`, telnyx 7.24.0
 * `OutboundMessagePayload.To.status`: queued, sending, sent, expired, sending_failed, delivery_unconfirmed, delivered,
 * delivery_failed, read) → the port's receipt status. `queued` and `sending` come before the message left Telnyx:
 * no receipt. The final ones the carrier could not confirm as delivered (`expired`: the carrier gave up within the
 * message's validity; `delivery_unconfirmed`: no delivery report came back) are `undelivered`, charged as Telnyx
 * charges them, with Telnyx's status as the error code when it gives none (docs/decisions/telnyx.md "Telnyx receipts").
 */
const MESSAGE_STATUSES: Record<string, CarrierMessageStatusEvent['status']> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'delivered',
  delivery_failed: 'undelivered',
  expired: 'undelivered',
  delivery_unconfirmed: 'undelivered',
  sending_failed: 'failed',
};

/** Statuses before the message left Telnyx: not receipts. */
const PRE_SEND_STATUSES = ['queued', 'sending'];

/** A messaging webhook (`message.received`, `message.sent`, `message.finalized`) → an inbound SMS or a receipt. */
export async function translateMessage(
  type: string,
  payload: Record<string, unknown>,
  at: number,
  messageByCarrierId: (carrierMessageId: string) => Promise<string | undefined>,
): Promise<MessageTranslation> {
  const id = str(payload.id);
  if (!id) return { kind: 'ignored', reason: 'message without id' };
  // Recipients; an inbound message's `to` may also be the number alone (`MessagingInboundMessagePayload.to`: `Array<…> | string`).
  const to =
    typeof payload.to === 'string'
      ? [{ phone_number: payload.to }]
      : Array.isArray(payload.to)
        ? (payload.to as Array<{ phone_number?: unknown; status?: unknown }>)
        : [];
  if (type === 'message.received') {
    const from = (payload.from ?? {}) as { phone_number?: unknown };
    return {
      kind: 'message',
      event: {
        type: 'sms.received',
        carrier_message_id: id,
        from: str(from.phone_number) ?? '',
        to: str(to[0]?.phone_number) ?? '',
        text: typeof payload.text === 'string' ? payload.text : '',
        at,
      },
    };
  }
  if (type !== 'message.sent' && type !== 'message.finalized')
    return { kind: 'ignored', reason: `event ${type}`, ...(type === 'message.read' ? {} : { unhandled: true as const }) };
  const telnyxStatus = str(to[0]?.status) ?? '';
  const status = MESSAGE_STATUSES[telnyxStatus];
  if (!status)
    return {
      kind: 'ignored',
      reason: `message status ${String(to[0]?.status)}`,
      ...(PRE_SEND_STATUSES.includes(telnyxStatus) ? {} : { unhandled: true as const }),
    };
  const messageId = await messageByCarrierId(id);
  if (!messageId) return { kind: 'unknown', reason: `no message for ${id}` };
  const errors = Array.isArray(payload.errors) ? (payload.errors as Array<{ code?: unknown }>) : [];
  const telnyxCode = errors[0]?.code === undefined ? undefined : String(errors[0].code);
  // A final status that is not Telnyx's own word for it keeps that word as the reason.
  const errorCode = telnyxCode ?? (status === 'undelivered' && telnyxStatus !== 'delivery_failed' ? telnyxStatus : undefined);
  return {
    kind: 'message',
    event: {
      type: 'sms.status',
      message_id: messageId,
      carrier_message_id: id,
      status,
      ...(errorCode ? { error_code: errorCode } : {}),
      at,
    },
  };
}
