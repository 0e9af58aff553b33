/**
 * Saved cards. Each belongs to one environment, like the processor that issued its token: a
 * test card is only ever charged by the test environment's processor, a live card only by the
 * live one, and a test card never satisfies a live requirement.
 */
import type { Db } from '../../platform/db/knex';
import type { BillingTenant } from './ledger';

export interface PaymentMethodRow {
  id: string;
  workspace_id: string;
  user_id: string;
  environment: 'test' | 'live';
  processor_token: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: boolean;
  created_at: Date;
}

export async function hasDefaultPaymentMethod(db: Db, userId: string, environment: 'test' | 'live'): Promise<boolean> {
  const row = await db('payment_methods').where({ user_id: userId, environment, is_default: true }).first('id');
  return row !== undefined;
}

/** The card auto-charge uses: the owner's default card, else the most recent default card in the workspace. */
function chargeableCards(db: Db, tenant: BillingTenant) {
  return db('payment_methods as pm')
    .join('users as u', 'u.id', 'pm.user_id')
    .where({ 'pm.workspace_id': tenant.workspaceId, 'pm.environment': tenant.environment, 'pm.is_default': true })
    .orderByRaw("case when u.role = 'owner' then 0 else 1 end")
    .orderBy('pm.created_at', 'desc');
}

export async function chargeableCard(db: Db, tenant: BillingTenant): Promise<Pick<PaymentMethodRow, 'id' | 'processor_token'> | undefined> {
  return chargeableCards(db, tenant).first('pm.id', 'pm.processor_token');
}

/** What an operator is shown of the card auto-charge would use (never its token). */
export async function chargeableCardShown(
  db: Db,
  tenant: BillingTenant,
): Promise<Pick<PaymentMethodRow, 'brand' | 'last4' | 'exp_month' | 'exp_year'> | undefined> {
  return chargeableCards(db, tenant).first('pm.brand', 'pm.last4', 'pm.exp_month', 'pm.exp_year');
}

/** Saves a tokenised card; a user's first card in an environment becomes the default there. */
export async function savePaymentMethod(
  db: Db,
  input: {
    workspaceId: string;
    userId: string;
    environment: 'test' | 'live';
    token: string;
    brand: string;
    last4: string;
    expMonth: number;
    expYear: number;
    makeDefault: boolean;
  },
): Promise<PaymentMethodRow> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`payment_methods:${input.userId}`]);
    const mine = { user_id: input.userId, environment: input.environment };
    const hasDefault =
      (await trx('payment_methods')
        .where({ ...mine, is_default: true })
        .first('id')) !== undefined;
    const makeDefault = input.makeDefault || !hasDefault;
    if (makeDefault)
      await trx('payment_methods')
        .where({ ...mine, is_default: true })
        .update({ is_default: false });
    const [row] = await trx<PaymentMethodRow>('payment_methods')
      .insert({
        workspace_id: input.workspaceId,
        user_id: input.userId,
        environment: input.environment,
        processor_token: input.token,
        brand: input.brand,
        last4: input.last4,
        exp_month: input.expMonth,
        exp_year: input.expYear,
        is_default: makeDefault,
      })
      .returning('*');
    return row;
  });
}

/** The processor token of a card of the account, if the card still exists. */
export async function cardToken(db: Db, tenant: BillingTenant, paymentMethodId: string): Promise<string | undefined> {
  const card = await db('payment_methods')
    .where({ id: paymentMethodId, workspace_id: tenant.workspaceId, environment: tenant.environment })
    .first('processor_token');
  return card?.processor_token;
}

/** Whether another workspace has saved the card with this processor token in this environment. */
export async function isCardSavedElsewhere(db: Db, tenant: BillingTenant, processorToken: string): Promise<boolean> {
  const other = await db('payment_methods')
    .where({ processor_token: processorToken, environment: tenant.environment })
    .whereNot({ workspace_id: tenant.workspaceId })
    .first('id');
  return other !== undefined;
}
