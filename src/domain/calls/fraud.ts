import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * The m3 heuristic: premium-rate destinations (where a caller pays the callee, the classic
 * toll-fraud target) are refused to accounts without a payment method. Number types need the
 * full metadata set, hence `libphonenumber-js/max` here only.
 */
export function isPremiumRate(e164: string): boolean {
  const type = parsePhoneNumberFromString(e164)?.getType();
  return type === 'PREMIUM_RATE' || type === 'SHARED_COST';
}
