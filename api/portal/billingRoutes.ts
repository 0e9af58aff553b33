import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { beforeCursor, cursorPage, parseCursor } from '../pagination';
import { AUTO_RECHARGE_MAX_CENTS, AUTO_RECHARGE_MIN_AMOUNT_CENTS } from '../routes/billing';
import { balanceOf, toTransactionRecord, transactionsOf } from '../../src/domain/billing/ledger';
import { chargeableCardShown } from '../../src/domain/billing/paymentMethods';
import { readSettings } from '../../src/domain/billing/settings';
import { updateSettings } from '../../src/domain/billing/updateSettings';
import { usageByPeriod } from '../../src/domain/billing/usage';
import { changed, refuse } from './answer';
import { sendPage } from './http';
import { navOf, operatorOrLogin, roleAllows, tenantOf, operatorForm } from './operatorPages';
import { billingPage, type BillingPageInput } from './pages/billing';
import type { Operator } from './visitor';

const TRANSACTIONS_SHOWN = 50;
const USAGE_DAYS = 30;
const DOLLARS = /^\d{1,7}(\.\d{1,2})?$/;

async function billingInput(
  deps: AppDeps,
  operator: Operator,
  cursor: string | undefined,
  extra: Partial<BillingPageInput> = {},
): Promise<BillingPageInput> {
  const tenant = tenantOf(operator);
  // The query of GET /api/v1/billing/transactions, its cursor too: an operator sees every line's.
  const query = transactionsOf(deps.db, tenant);
  beforeCursor(query, parseCursor(cursor), 'created_at', 'id');
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(TRANSACTIONS_SHOWN + 1);
  const { page, next_cursor } = cursorPage(rows, TRANSACTIONS_SHOWN, (row) => ({ at: row.created_at, id: row.id }));
  const [{ balanceCents, heldCents }, usage, card, settings] = await Promise.all([
    balanceOf(deps.db, tenant),
    usageByPeriod(deps.db, tenant, { unit: 'day', count: USAGE_DAYS, now: deps.now() }),
    chargeableCardShown(deps.db, tenant),
    readSettings(deps.db, tenant),
  ]);
  return {
    balanceCents,
    heldCents,
    transactions: page.map(toTransactionRecord),
    olderCursor: next_cursor,
    usage,
    card,
    autoCharge: {
      enabled: settings.auto_recharge_enabled,
      thresholdCents: Number(settings.auto_recharge_threshold_cents),
      amountCents: Number(settings.auto_recharge_amount_cents),
    },
    // PATCH /api/v1/settings needs keys:admin on an owner's or admin's key: the same roles here.
    mayManage: roleAllows(operator, 'keys:admin'),
    ...extra,
  };
}

/** Dollars as typed ("12", "12.5", "12.50") to cents, or the field's problem. */
function centsOf(field: string, text: string | undefined, min: number): number | { field: string; message: string } {
  const trimmed = (text ?? '').trim();
  const message = `must be an amount in US dollars from ${min / 100} to ${AUTO_RECHARGE_MAX_CENTS / 100}`;
  if (!DOLLARS.test(trimmed)) return { field, message };
  const cents = Math.round(Number(trimmed) * 100);
  return cents < min || cents > AUTO_RECHARGE_MAX_CENTS ? { field, message } : cents;
}

/** Billing: balance, usage chart, card, auto-charge settings (owners and admins change them), transactions. */
export function billingRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/portal/billing', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const operator = await operatorOrLogin(ctx, deps, ctx.query.env);
    if (!operator) return;
    const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
    sendPage(ctx, 200, billingPage(navOf(operator, '/portal/billing'), await billingInput(deps, operator, cursor)));
  });

  router.post('/portal/billing/auto-charge', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const signedIn = await operatorForm(ctx, deps);
    if (!signedIn) return;
    const { form, operator } = signedIn;
    const nav = navOf(operator, '/portal/billing');
    const again = async (error: ApiError, keepForm: boolean) => {
      const input = await billingInput(deps, operator, undefined, keepForm ? { form } : {});
      refuse(ctx, error, (shown) => billingPage(nav, { ...input, error: shown }));
    };
    if (!roleAllows(operator, 'keys:admin')) return again(errors.forbidden('Your role cannot change auto-charge'), false);
    const threshold = centsOf('threshold', form.threshold, 0);
    const amount = centsOf('amount', form.amount, AUTO_RECHARGE_MIN_AMOUNT_CENTS);
    const problems = [threshold, amount].filter((value) => typeof value !== 'number');
    if (problems.length > 0) return again(errors.validation(problems), true);
    const outcome = await updateSettings(
      deps,
      { ...tenantOf(operator), keyId: null, via: 'portal', userId: operator.user.id },
      { auto_recharge_enabled: form.enabled === 'on', auto_recharge_threshold_cents: threshold, auto_recharge_amount_cents: amount },
    );
    if (!outcome.ok) return again(errors.validation(outcome.problems), true);
    ctx.state.log.info({ user_id: operator.user.id }, 'auto-charge changed in the portal');
    changed(ctx, `/portal/billing?env=${operator.environment}`, 200, {
      auto_recharge_enabled: outcome.settings.auto_recharge_enabled,
      auto_recharge_threshold_cents: Number(outcome.settings.auto_recharge_threshold_cents),
      auto_recharge_amount_cents: Number(outcome.settings.auto_recharge_amount_cents),
    });
  });
}
