/**
 * The carrier as Switchboard sees it. Workflows never talk to a carrier directly: they
 * call activities, and activities call this interface, so a Twilio- or Telnyx-style
 * adapter is a new implementation of it and nothing else changes.
 */
export interface ProvisionedNumber {
  /** E.164. */
  phoneNumber: string;
  /** The carrier's own handle for the number (needed to release it). */
  carrierRef: string;
}

export interface CarrierAdapter {
  /**
   * Acquires a number. Must be idempotent on `idempotencyKey`: a retried call returns
   * the number the first call acquired instead of buying a second one.
   */
  provisionNumber(request: { idempotencyKey: string; country: string }): Promise<ProvisionedNumber>;
  /** Gives a number back. Releasing a number that is already released succeeds. */
  releaseNumber(request: { phoneNumber: string }): Promise<void>;
}

/** A refusal the carrier will repeat however often we ask (bad request, no inventory). */
export class CarrierRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierRejectedError';
  }
}
