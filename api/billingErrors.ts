import type { AppDeps } from './context';
import { ApiError } from './errors';
import { wakeAutoChargeIfNeeded } from '../src/domain/billing/autoCharge';
import type { HoldRefusal } from '../src/domain/billing/holds';
import type { BillingTenant } from '../src/domain/billing/ledger';
import type { Logger } from '../src/platform/logger';

/**
 * The answer to a refused reservation before a call or message. Billing is postpaid, so a
 * refusal for the balance is also the moment to charge the card on file: it wakes the
 * account's auto-charge (when auto-recharge is on and a card of this environment is saved).
 * The request stays refused; the answer neither waits for the wake nor fails with it, and a
 * retry after the top-up succeeds.
 */
export function refuseHold(refusal: HoldRefusal, context: { deps: AppDeps; tenant: BillingTenant; log: Logger }): ApiError {
  if (refusal.code === 'insufficient_credits') {
    const { deps, log } = context;
    const tenant = { workspaceId: context.tenant.workspaceId, environment: context.tenant.environment };
    wakeAutoChargeIfNeeded(deps.db, deps.temporal, deps.config.taskQueue, tenant).catch((err: unknown) =>
      log.warn(
        { err, workspace_id: tenant.workspaceId, environment: tenant.environment },
        'could not wake auto-charge after an insufficient_credits refusal',
      ),
    );
  }
  return holdRefusalError(refusal);
}

/**
 * How a refused reservation (InsufficientFunds) reaches the caller: 402 `insufficient_credits`
 * for the balance, 402 `agent_cap_exceeded` for a key's cap or grant spend limit, with the
 * details the public client keeps (values as strings).
 */
export function holdRefusalError(refusal: HoldRefusal): ApiError {
  if (refusal.code === 'insufficient_credits') {
    return new ApiError(402, 'insufficient_credits', `The balance is below the ${formatCents(refusal.requiredCents)} reserve this needs`, [
      { field: 'available_cents', message: String(refusal.availableCents) },
      { field: 'required_cents', message: String(refusal.requiredCents) },
    ]);
  }
  const resets = refusal.cycleResetAt ? ` Cycle resets ${refusal.cycleResetAt.toISOString()}.` : ' This limit does not reset.';
  return new ApiError(
    402,
    'agent_cap_exceeded',
    `${refusal.cycleResetAt ? 'Monthly cap' : 'Spend limit'} reached (${formatCents(refusal.capCents)}).${resets}`,
    [
      { field: 'spent_cents', message: String(refusal.spentCents) },
      { field: 'cap_cents', message: String(refusal.capCents) },
      ...(refusal.cycleResetAt ? [{ field: 'cycle_reset_at', message: refusal.cycleResetAt.toISOString() }] : []),
    ],
  );
}

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
