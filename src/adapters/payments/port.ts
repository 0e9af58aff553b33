/**
 * The card processor as Switchboard sees it when it takes money. Workflows never talk to a
 * processor directly: they call activities, and activities call this interface, so a Stripe
 * adapter is a new implementation of it and nothing else changes.
 *
 * Failures come in three kinds, and every adapter must map its processor's errors onto them
 * (a Stripe adapter would map `card_error` to CardDeclinedChargeError with the error's
 * `decline_code`, `invalid_request_error` / `idempotency_error` to PaymentRequestRejectedError,
 * and rate limits, 5xx answers, network errors and timeouts to a plain Error):
 * - CardDeclinedChargeError: the card was refused (hard decline). Retrying will not help; the
 *   customer has to act.
 * - PaymentRequestRejectedError: the processor refused the request itself (bad input, an
 *   idempotency key reused for a different charge, bad credentials). Also final.
 * - a plain Error: transient (unavailable, timed out, connection lost). Retry with the SAME
 *   idempotency key: the first attempt may have charged the card before its answer was lost.
 */
export interface ChargeRequest {
  /** The processor's token for the saved card (never the card number). */
  paymentMethodToken: string;
  /** Positive integer, in US cents. */
  amountCents: number;
  /**
   * Must be stable across retries of the same charge: the processor answers a repeat with
   * the first charge instead of charging again.
   */
  idempotencyKey: string;
}

/**
 * What the processor knows of a charge requested under an idempotency key. `not_found` means
 * no request under that key has been processed (yet): it was lost before the processor acted,
 * so sending it again under the same key charges at most once.
 */
export type ChargeLookup =
  { status: 'succeeded'; chargeId: string } | { status: 'declined'; declineCode: string } | { status: 'not_found' };

export interface PaymentProcessor {
  charge(request: ChargeRequest): Promise<{ chargeId: string }>;
  /**
   * Looks a charge up by the idempotency key it was requested with, for when the answer to
   * `charge` was lost for longer than we retry. Throws a plain Error while the processor is
   * unreachable. (A Stripe adapter creates each PaymentIntent with the key in its metadata and
   * finds it with the search API, or replays the create under the same Idempotency-Key within
   * Stripe's 24-hour window.)
   */
  lookUp(idempotencyKey: string): Promise<ChargeLookup>;
}

/**
 * Money that moved on a charge without Switchboard asking, as the processor reports it by itself:
 * a refund made on the processor's side, a refund that then failed (the money came back), a
 * chargeback (the cardholder's bank took the money), a chargeback reversed (it was given back).
 * `reference` names the movement at the processor (its object and phase) and is stable across
 * repeated reports, so applying a report twice changes nothing.
 */
export interface CardMovement {
  kind: 'refund' | 'refund_failure' | 'dispute' | 'dispute_reversal';
  /** Positive, in US cents. */
  amountCents: number;
  /** E.g. `refund:re_123`, `refund:re_123:failure`, `dispute:dp_123:funds_withdrawn`. */
  reference: string;
  /** The processor's id of the refund or dispute. */
  objectId: string;
}

/** The movements one report carries for the charge (the id `charge` answered), in the order they happened. */
export interface CardMovementReport {
  chargeId: string;
  movements: CardMovement[];
}

/**
 * One processor per environment. The test environment's is the simulator or a provider's
 * test mode, configured apart from the live one, so a test key can never move real money.
 */
export type PaymentProcessors = Readonly<Record<'test' | 'live', PaymentProcessor>>;

/** The card was refused (hard decline); `declineCode` is the processor's reason. */
export class CardDeclinedChargeError extends Error {
  constructor(readonly declineCode: string) {
    super(`card declined: ${declineCode}`);
    this.name = 'CardDeclinedChargeError';
  }
}

/** The processor refused the request and will refuse it however often we ask. */
export class PaymentRequestRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentRequestRejectedError';
  }
}

/**
 * What an operator gives to save a card, by processor: a card number only where the processor is
 * the simulator (test cards); with Stripe, the id of a PaymentMethod the card was entered into on
 * Stripe's own pages, so no card number reaches Switchboard (docs/decisions/portal.md, issue 17).
 */
export type CardEntry =
  { kind: 'card_number'; number: string; expMonth: number; expYear: number } | { kind: 'stripe_payment_method'; paymentMethodId: string };

/** A saved card as stored: the processor's token and what an operator is shown of it. */
export interface SavedCard {
  token: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/**
 * Saves a card with one environment's processor. Throws CardDeclinedChargeError when the card is
 * refused, PaymentRequestRejectedError for an entry the processor will not take, a plain Error
 * while it is unreachable.
 */
export interface CardVault {
  /** The one kind of entry this processor takes. */
  readonly accepts: CardEntry['kind'];
  /**
   * `claimant`: the workspace saving the card for itself (the portal); a processor that keeps cards
   * on its own customers refuses a card of another's (Stripe: the Customer's `switchboard_workspace_id`).
   */
  save(entry: CardEntry, now: Date, claimant?: { workspaceId: string }): Promise<SavedCard>;
}

export type CardVaults = Readonly<Record<'test' | 'live', CardVault>>;
