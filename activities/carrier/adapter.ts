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
  /**
   * Starts an outbound call from `from` to `to` (both E.164). Must be idempotent on
   * `callId`: a retried request returns the carrier call the first one started instead of
   * dialling again. What happens to the call afterwards arrives as carrier events
   * (`CarrierCallEvent`) POSTed to `eventsUrl`.
   */
  placeCall(request: { callId: string; from: string; to: string; eventsUrl: string }): Promise<{ carrierCallId: string }>;
  /** Ends a call, ringing or answered. Hanging up a call that has already ended succeeds. */
  hangUp(request: { carrierCallId: string }): Promise<void>;
}

/**
 * A carrier event about one call, as POSTed to the `eventsUrl` given to `placeCall`
 * (with `Authorization: Bearer <CARRIER_EVENTS_SECRET>`). `at` is when it happened, in epoch
 * milliseconds. Events for one call arrive in order; a call ends with exactly one of
 * `call.completed`, `call.busy`, `call.no_answer` or `call.failed`.
 */
export type CarrierCallEvent =
  | { type: 'call.ringing' | 'call.answered' | 'call.busy' | 'call.no_answer' | 'call.failed'; call_id: string; carrier_call_id: string; at: number }
  | {
      type: 'call.completed';
      call_id: string;
      carrier_call_id: string;
      at: number;
      /** Who hung up: the remote party, or Switchboard through `hangUp`. */
      ended_by: 'caller' | 'switchboard';
      /** Whether the call was ever answered (false: Switchboard gave up while it rang). */
      answered: boolean;
    };

/** A refusal the carrier will repeat however often we ask (bad request, no inventory). */
export class CarrierRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierRejectedError';
  }
}
