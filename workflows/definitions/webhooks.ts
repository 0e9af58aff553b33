import type { EventType } from '../../src/domain/webhooks/events';

/** The webhook delivery workflow's contract with the publisher. */

export interface DeliverEventInput {
  eventId: string;
  eventType: EventType;
}

export interface DeliverEventResult {
  status: 'success' | 'failed';
  attempts: number;
  lastDeliveryId: string;
  httpStatus: number | null;
}
