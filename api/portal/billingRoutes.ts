import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { beforeCursor, cursorPage, parseCursor } from '../pagination';
import { AUTO_RECHARGE_MAX_CENTS, AUTO_RECHARGE_MIN_AMOUNT_CENTS } from '../routes/billing';
import { balanceOf, toTransactionRecord, transactionsOf } from '../../src/domain/billing/ledger';
import { addPaymentMethod, parseCardExpiry } from '../../src/domain/billing/addPaymentMethod';
import { wakeAutoChargeForNewCard } from '../../src/domain/billing/autoCharge';
import { chargeableCardShown } from '../../src/domain/billing/paymentMethods';
import { workspaceOwner } from '../../src/domain/workspaces/service';
import type { CardEntry } from '../../src/adapters/payments/port';
import { readSettings } from '../../src/domain/billing/settings';
import { updateSettings } from '../../src/domain/billing/updateSettings';
import { usageByPeriod } from '../../src/domain/billing/usage';
import { changed, refuse } from './answer';
import { spendPortalLimit } from './limits';
import { sendPage } from './http';
import { navOf, roleAllows, tenantOf, postOperatorForm, getOperatorPage } from './operatorPages';
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
    ...(deps.cardVaults ? { cardEntry: deps.cardVaults[operator.environment].accepts } : {}),
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
  getOperatorPage(router, '/portal/billing', deps, async (ctx, operator) => {
    const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
    const saved = typeof ctx.query.card_saved === 'string' && /^\d{4}$/.test(ctx.query.card_saved) ? ctx.query.card_saved : undefined;
    sendPage(
      ctx,
      200,
      billingPage(navOf(operator, '/portal/billing'), await billingInput(deps, operator, cursor, saved ? { cardSaved: saved } : {})),
    );
  });

  postOperatorForm(router, '/portal/billing/auto-charge', deps, async (ctx, { form, operator }) => {
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
    const limited = await spendPortalLimit(ctx, deps, operator, 'settings.update');
    if (limited) return again(limited, true);
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

  /**
   * Adds or replaces the card (the CLI's `payment-method add`, through the same use case and
   * processor): saved as the workspace owner's default card, the one auto-charge uses.
   */
  postOperatorForm(router, '/portal/billing/card', deps, async (ctx, { form, operator }) => {
    const nav = navOf(operator, '/portal/billing');
    // The form is never shown back: it may hold a card number.
    const again = async (error: ApiError) => {
      const input = await billingInput(deps, operator, undefined);
      refuse(ctx, error, (shown) => billingPage(nav, { ...input, error: shown }));
    };
    if (!roleAllows(operator, 'keys:admin')) return again(errors.forbidden('Your role cannot change the card'));
    const vault = deps.cardVaults?.[operator.environment];
    if (!vault) return again(new ApiError(503, 'payments_unavailable', 'This API process has no card processor configured'));
    let entry: CardEntry;
    if (vault.accepts === 'stripe_payment_method') {
      entry = { kind: 'stripe_payment_method', paymentMethodId: (form.payment_method ?? '').trim() };
    } else {
      const expiry = parseCardExpiry(form.exp ?? '');
      if (!expiry) return again(errors.validation([{ field: 'exp', message: 'must be MM/YY or MM/YYYY' }]));
      entry = { kind: 'card_number', number: (form.number ?? '').replace(/[\s-]/g, ''), ...expiry };
    }
    const owner = await workspaceOwner(deps.db, operator.user.workspace_id);
    if (!owner) throw errors.notFound('Workspace owner');
    const outcome = await addPaymentMethod(
      deps,
      vault,
      { workspaceId: owner.workspace_id, userId: owner.id, environment: operator.environment },
      entry,
      true,
      { selfService: true },
    );
    if (!outcome.ok)
      return again(
        outcome.refused === 'card_declined'
          ? new ApiError(402, 'card_declined', outcome.message)
          : errors.validation([{ field: entry.kind === 'card_number' ? 'number' : 'payment_method', message: outcome.message }]),
      );
    const { saved } = outcome;
    ctx.state.log.info({ user_id: operator.user.id, payment_method_id: saved.id }, 'card saved in the portal');
    await wakeAutoChargeForNewCard(
      { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.taskQueue, log: ctx.state.log },
      { workspaceId: owner.workspace_id, environment: operator.environment },
    );
    changed(ctx, `/portal/billing?env=${operator.environment}&card_saved=${saved.last4}`, 201, {
      id: saved.id,
      brand: saved.brand,
      last4: saved.last4,
      exp_month: saved.exp_month,
      exp_year: saved.exp_year,
      environment: saved.environment,
      is_default: saved.is_default,
    });
  });
}
