import { telnyxEnvelope, type TelnyxWebhookBody } from '../../adapters/carrier/callbacks/telnyx/envelope';
import type { Db } from '../../platform/db/knex';
import type { Logger } from '../../platform/logger';
import { storeEvent } from './store';

/**
 * A verified Telnyx webhook, stored in the inbox (./store.ts) before anything else, keyed by Telnyx's event id:
 * a duplicate delivery stores nothing. What `/carrier/telnyx/events` does before it answers 2xx; the event is
 * processed afterwards (./process.ts), by the order key returned.
 */
export async function receiveTelnyxEvent(
  deps: { db: Db; log: Logger },
  body: TelnyxWebhookBody,
  rawBody: Buffer,
): Promise<{ eventId: string; orderKey: string; duplicate: boolean }> {
  const envelope = telnyxEnvelope(body, rawBody);
  const stored = await storeEvent(deps.db, envelope, body);
  deps.log.debug({ event_id: envelope.eventId, event_type: envelope.eventType, duplicate: !stored }, 'telnyx event received');
  if (!stored) deps.log.info({ event_id: envelope.eventId, event_type: envelope.eventType }, 'telnyx event delivered again: kept once');
  return { eventId: envelope.eventId, orderKey: envelope.orderKey, duplicate: !stored };
}
