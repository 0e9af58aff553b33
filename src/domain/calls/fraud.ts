import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { hasDefaultPaymentMethod } from '../billing/paymentMethods';
import type { Db } from '../../platform/db/knex';

/**
 * The m3 heuristic: premium-rate destinations (where a caller pays the callee, the classic
 * toll-fraud target) are refused to accounts without a payment method. Number types need the
 * full metadata set, hence `libphonenumber-js/max` here only.
 */
export function isPremiumRate(e164: string): boolean {
  const type = parsePhoneNumberFromString(e164)?.getType();
  return type === 'PREMIUM_RATE' || type === 'SHARED_COST';
}

/** m3 for a call's destination (placed or transferred to): premium-rate, and the user has no default payment method. */
export async function blockedAsFraud(db: Db, actor: { userId: string; environment: 'test' | 'live' }, e164: string): Promise<boolean> {
  return isPremiumRate(e164) && !(await hasDefaultPaymentMethod(db, actor.userId, actor.environment));
}
