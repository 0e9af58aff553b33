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

export interface PaymentProcessor {
  charge(request: ChargeRequest): Promise<{ chargeId: string }>;
}

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
