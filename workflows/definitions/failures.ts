import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { carrierRefusalOf, type CarrierRefusal } from '../../src/domain/carriers/rules';

/**
 * The failure types activities throw as final (non-retryable) answers, which workflows tell
 * apart from "still unreachable". The retry policies in workflows/activityOptions.ts name them.
 */
export const FailureTypes = {
  /** The carrier answered and refused (a bad destination, a call that is gone). */
  carrierRejected: 'CarrierRejected',
  /** The carrier has no number as the line asked (area code, type, country) or will not import it; details: [the request field]. */
  numberUnavailable: 'NumberUnavailable',
  /** The number the carrier gave is held by another line (activateLine): final. */
  numberInUse: 'NumberInUse',
  /** The card processor declined the card. */
  cardDeclined: 'CardDeclined',
  /** The card processor refused the request itself. */
  paymentRejected: 'PaymentRejected',
  /** The recordings store refused the request itself (a bad ref or range: our bug, not the store's state). */
  storeRefused: 'StoreRefused',
} as const;

/** An activity failed with one of `types` (and not for want of an answer). */
export function activityFailedWith(err: unknown, ...types: string[]): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && types.includes(err.cause.type ?? '');
}

/** The refusal a `CarrierRejected` failure names (its first detail: provider and code), or undefined for any other failure. */
export function carrierRefusalOfFailure(failure: unknown): CarrierRefusal | undefined {
  if (!(failure instanceof ApplicationFailure) || failure.type !== FailureTypes.carrierRejected) return undefined;
  return carrierRefusalOf(failure.details?.[0]);
}

/**
 * A live-control request the carrier refused (its update fails with this): the API answers 502
 * `carrier_error` naming the provider and its code (api/routes/calls.ts).
 */
export function carrierRefusalFailure(refusal: CarrierRefusal): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureTypes.carrierRejected,
    message: `the carrier refused (${refusal.provider}${refusal.code ? ` ${refusal.code}` : ''})`,
    nonRetryable: true,
    details: [refusal],
  });
}
