/**
 * Phone number fees (wire shapes: "$2.50 per month each; the first number is free for 30
 * days"; toll-free $5.00, see NUMBER_FEE_CENTS_BY_TYPE). Billed as Twilio bills numbers: a whole month for any part of a UTC month the
 * number was held outside its grace, never prorated, nothing refunded or owed after release.
 * Billing is postpaid, so a month is billed in arrears, once it is over and the set of
 * numbers held in it is final. Pure: no I/O, no clock.
 */
import { nextMonthStart, periodOf } from './periods';
import type { Posting } from './ledger';
import type { NumberType } from '../lines/numberChoice';

/** A local number's monthly fee (the wire shapes' $2.50). */
export const NUMBER_FEE_CENTS_PER_MONTH = 250;

/**
 * The monthly fee by number type (issue 26): toll-free costs twice a local number's, as it costs the
 * operator about twice at the carrier (Twilio US: $2.15 against $1.15 a month); a mobile number
 * costs what a local one does. Imported numbers pay as bought ones: the account pays the carrier's rent either way.
 */
export const NUMBER_FEE_CENTS_BY_TYPE: Readonly<Record<NumberType, number>> = {
  local: NUMBER_FEE_CENTS_PER_MONTH,
  mobile: NUMBER_FEE_CENTS_PER_MONTH,
  toll_free: 500,
};

export function numberFeeCents(numberType: NumberType): number {
  return NUMBER_FEE_CENTS_BY_TYPE[numberType];
}

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

/** What a fee's posting names of its line. */
export interface FeeLine {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  phone_number: string | null;
  number_type: NumberType;
  created_by_key_id: string | null;
}

/** The ledger posting of `line`'s fee for the UTC month starting at `periodStart` (postpaid: a debit whatever the balance). */
export function numberFeePosting(line: FeeLine, periodStart: Date, at: Date): Posting {
  return {
    tenant: { workspaceId: line.workspace_id, environment: line.environment },
    type: 'number_fee',
    amountCents: -numberFeeCents(line.number_type),
    description: `Phone number ${line.phone_number ?? line.id}, ${periodOf(periodStart)}`,
    idempotencyRef: numberFeeRef(line.id, periodStart),
    referenceId: line.id,
    referenceType: 'line',
    // The key that bought the number pays for it, as it pays for its calls.
    actorKeyId: line.created_by_key_id,
    lineId: line.id,
    at,
  };
}
