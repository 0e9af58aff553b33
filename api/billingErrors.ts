import { ApiError } from './errors';
import type { HoldRefusal } from '../src/billing/holds';

/**
 * How a refused reservation (InsufficientFunds) reaches the caller before a call or message:
 * 402 `insufficient_credits` for the balance, 402 `agent_cap_exceeded` for a key's cap or
 * grant spend limit, with the details the public client keeps (values as strings).
 */
export function holdRefusalError(refusal: HoldRefusal): ApiError {
  if (refusal.code === 'insufficient_credits') {
    return new ApiError(402, 'insufficient_credits', `The balance is below the ${formatCents(refusal.requiredCents)} reserve this needs`, [
      { field: 'available_cents', message: String(refusal.availableCents) },
      { field: 'required_cents', message: String(refusal.requiredCents) },
    ]);
  }
  const resets = refusal.cycleResetAt ? ` Cycle resets ${refusal.cycleResetAt.toISOString()}.` : ' This limit does not reset.';
  return new ApiError(402, 'agent_cap_exceeded', `${refusal.cycleResetAt ? 'Monthly cap' : 'Spend limit'} reached (${formatCents(refusal.capCents)}).${resets}`, [
    { field: 'spent_cents', message: String(refusal.spentCents) },
    { field: 'cap_cents', message: String(refusal.capCents) },
    ...(refusal.cycleResetAt ? [{ field: 'cycle_reset_at', message: refusal.cycleResetAt.toISOString() }] : []),
  ]);
}

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
