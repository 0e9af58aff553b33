// Generated from the served OpenAPI document by `npm run sdk:generate`. Do not edit: regenerate.

/** `METHOD /path/{template}` of every operation that honours `Idempotency-Key` (replays the first answer for 12 h). */
export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([
  'POST /api-tokens',
  'POST /api/v1/auth/keys',
  'POST /api/v1/calls',
  'POST /api/v1/calls/conversation',
  'POST /api/v1/calls/{id}/transfer',
  'POST /api/v1/campaigns',
  'POST /api/v1/campaigns/contact-lists',
  'POST /api/v1/consent',
  'POST /api/v1/keys',
  'POST /api/v1/keys/{id}/rotate',
  'POST /api/v1/lines',
  'POST /api/v1/lines/{id}/sms',
  'POST /api/v1/lines/{id}/webhook-secret/rotate',
  'POST /api/v1/messages',
  'POST /v1/keys',
  'POST /v1/keys/{id}/rotate',
]);
