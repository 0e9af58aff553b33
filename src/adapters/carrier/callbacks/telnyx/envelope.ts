import crypto from 'node:crypto';

/**
 * Telnyx's webhook envelope, `{data: {record_type: 'event', id, event_type, occurred_at, payload}, meta}` (telnyx
 * 7.24.0 `resources/webhooks.d.ts`, e.g. `CallHangupWebhookEvent`), read for the inbox (src/domain/telnyxInbox/):
 * the event's id, which a duplicate delivery repeats, and the ids Telnyx correlates a call's events with.
 */
export interface TelnyxWebhookBody {
  data?: { event_type?: string; id?: string; occurred_at?: string; payload?: Record<string, unknown> };
}

export interface TelnyxEnvelope {
  /** `data.id`; a body without one (never seen) is known by its SHA-256, so its redelivery is still one event. */
  eventId: string;
  eventType: string;
  occurredAt: Date | null;
  /**
   * The events processed in order, one after the other: a call session's (`call_session_id`: "a group of related
   * call legs that logically belong to the same phone call, e.g. an inbound and outbound leg of a transferred
   * call"), a message's (its id), or the event alone.
   */
  orderKey: string;
  callControlId: string | null;
  callLegId: string | null;
  callSessionId: string | null;
}

/** The order key of a message's events (its Telnyx id). */
export const messageOrderKey = (carrierMessageId: string): string => `message:${carrierMessageId}`;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export function telnyxEnvelope(body: TelnyxWebhookBody, rawBody: Buffer): TelnyxEnvelope {
  const data = body.data ?? {};
  const payload = data.payload ?? {};
  const eventId = text(data.id) ?? `sha256:${crypto.createHash('sha256').update(rawBody).digest('hex')}`;
  const eventType = text(data.event_type) ?? 'unknown';
  const occurred = Date.parse(data.occurred_at ?? '');
  const ids = {
    callControlId: text(payload.call_control_id),
    callLegId: text(payload.call_leg_id),
    callSessionId: text(payload.call_session_id),
  };
  const call = ids.callSessionId ?? ids.callLegId ?? ids.callControlId;
  const message = text(payload.id);
  const orderKey =
    eventType.startsWith('call.') && call
      ? `call:${call}`
      : eventType.startsWith('message.') && message
        ? messageOrderKey(message)
        : `event:${eventId}`;
  return { eventId, eventType, occurredAt: Number.isFinite(occurred) ? new Date(occurred) : null, orderKey, ...ids };
}
