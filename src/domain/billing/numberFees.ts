/**
 * Phone number fees (wire shapes: "$2.50 per month each; the first number is free for 30
 * days"). Billed as Twilio bills numbers: a whole month for any part of a UTC month the
 * number was held outside its grace, never prorated, nothing refunded or owed after release.
 * Billing is postpaid, so a month is billed in arrears, once it is over and the set of
 * numbers held in it is final. Pure: no I/O, no clock.
 */
import { nextMonthStart, periodOf } from './periods';

export const NUMBER_FEE_CENTS_PER_MONTH = 250;

export interface BillableLine {
  /** When the carrier assigned the number; a line that never had one is never billed. */
  activated_at: Date | null;
  /** End of the first line's free 30 days; null when the line has none. */
  grace_ends_at: Date | null;
  released_at: Date | null;
}

/** Whether the line owes the fee of the UTC month starting at `periodStart`. */
export function owesNumberFee(line: BillableLine, periodStart: Date): boolean {
  if (!line.activated_at) return false;
  const from = line.grace_ends_at && line.grace_ends_at > line.activated_at ? line.grace_ends_at : line.activated_at;
  const until = line.released_at;
  const periodEnd = nextMonthStart(periodStart);
  if (from >= periodEnd) return false;
  if (until === null) return true;
  return until > from && until > periodStart;
}

/** One fee per line per month, whatever re-runs or retries happen. */
export function numberFeeRef(lineId: string, periodStart: Date): string {
  return `number_fee:${lineId}:${periodOf(periodStart)}`;
}
