/**
 * Receiver helper for Switchboard webhooks: what a customer's server runs to accept the
 * deliveries Switchboard POSTs to it.
 *
 * Each delivery carries
 *   - `x-service-timestamp`: Unix seconds when the attempt was signed,
 *   - `x-service-delivery-id`: a UUID, new for every attempt (retries get a new one),
 *   - `x-service-signature`: `v1=<hex HMAC-SHA256 of "<timestamp>.<delivery_id>.<raw body>">`,
 *     keyed by the line's webhook secret (the 64-hex string, used as UTF-8 text),
 *   - `x-service-delivery-attempt`: 1 for the first attempt, 2 for the first retry, ...
 * and a JSON body with `line_id` (whose secret signed it) and `event_id` (the logical event,
 * the same on every retry).
 *
 * A receiver must: reject timestamps more than 5 minutes from its clock; remember accepted
 * delivery ids for at least 5 minutes and reject repeats; process each `event_id` once; answer
 * a bad signature with 401; and, while a line's secret is being rotated, accept both the current
 * and the staged ("next") secret. {@link verifyWebhook} does the first, second and fourth for
 * one delivery; {@link nodeWebhookHandler} and {@link koaWebhookMiddleware} do all of it for an
 * HTTP endpoint.
 *
 * Always verify the raw bytes as received: re-serialising parsed JSON changes them.
 *
 * @packageDocumentation
 */

export { verifyWebhook, type VerifyWebhookResult, type WebhookBody, type WebhookFailure, type WebhookHeaders } from './verify';
export {
  DEFAULT_DELIVERY_ID_TTL_MS,
  DEFAULT_EVENT_TTL_MS,
  DEFAULT_MAX_ENTRIES,
  MemoryDeliveryIdStore,
  MemoryEventDeduper,
  MIN_DELIVERY_ID_TTL_MS,
  processOnce,
  type DeliveryIdStore,
  type EventDeduper,
} from './replayCache';
export {
  koaWebhookMiddleware,
  nodeWebhookHandler,
  type WebhookEvent,
  type WebhookHandlerOptions,
  type WebhookRejection,
  type WebhookState,
} from './adapters';
