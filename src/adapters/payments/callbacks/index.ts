/*
 * The card processor's webhooks (`POST /payments/stripe/webhook`; Stripe is the only processor that
 * calls back), the one module the API imports for them (lint: `http-only-in-api`): the signature
 * verified per mode, and what an event reports about a charge or a saved card.
 */

export { cardMovementsOfEvent, chargeOutcomeOfEvent, verifyStripeWebhook } from './stripe';
