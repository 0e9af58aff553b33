import { ActivityFailure, ApplicationFailure } from '@temporalio/common';

/**
 * The failure types activities throw as final (non-retryable) answers, which workflows tell
 * apart from "still unreachable". The retry policies in workflows/activityOptions.ts name them.
 */
export const FailureTypes = {
  /** The carrier answered and refused (a bad destination, a call that is gone). */
  carrierRejected: 'CarrierRejected',
  /** The carrier has no number as the line asked (area code, type, country) or will not import it; details: [the request field]. */
  numberUnavailable: 'NumberUnavailable',
  /** The card processor declined the card. */
  cardDeclined: 'CardDeclined',
  /** The card processor refused the request itself. */
  paymentRejected: 'PaymentRejected',
} as const;

/** An activity failed with one of `types` (and not for want of an answer). */
export function activityFailedWith(err: unknown, ...types: string[]): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && types.includes(err.cause.type ?? '');
}
