import type { Db } from '../db/knex';

export interface PaymentMethodRow {
  id: string;
  workspace_id: string;
  user_id: string;
  processor_token: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: boolean;
  created_at: Date;
}

export async function hasDefaultPaymentMethod(db: Db, userId: string): Promise<boolean> {
  const row = await db('payment_methods').where({ user_id: userId, is_default: true }).first('id');
  return row !== undefined;
}

/** Saves a tokenised card; the first card of a user becomes the default. */
export async function savePaymentMethod(
  db: Db,
  input: { workspaceId: string; userId: string; token: string; brand: string; last4: string; expMonth: number; expYear: number; makeDefault: boolean },
): Promise<PaymentMethodRow> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`payment_methods:${input.userId}`]);
    const hasDefault = (await trx('payment_methods').where({ user_id: input.userId, is_default: true }).first('id')) !== undefined;
    const makeDefault = input.makeDefault || !hasDefault;
    if (makeDefault) await trx('payment_methods').where({ user_id: input.userId, is_default: true }).update({ is_default: false });
    const [row] = await trx<PaymentMethodRow>('payment_methods')
      .insert({
        workspace_id: input.workspaceId,
        user_id: input.userId,
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
