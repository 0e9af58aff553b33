/*
 * Telnyx's webhooks as the API sees them (`/carrier/telnyx/events`), the one module it imports for them
 * (lint: `http-only-in-api`): the Ed25519 verification and the envelope it stores. Translating and applying
 * the stored events is the Telnyx inbox's work (src/domain/telnyxInbox/), which uses ./webhook.ts itself.
 */

export { verifyTelnyxWebhook, type TelnyxWebhookBody } from './webhook';
