/**
 * The ledger: append-only transactions in integer cents, each carrying the balance it left
 * and a unique `idempotency_ref` naming what caused it (e.g. `call:<id>:settle`). Posting takes
 * the account row lock, so the balance and the sum of the ledger always agree, and a repeated
 * reference returns the first posting instead of posting again.
 */
import type { Knex } from 'knex';

export const TRANSACTION_TYPES = [
  'signup_credit',
  'credit_purchase',
  'call_charge',
  'number_fee',
  'refund',
  'auto_recharge',
  'sms_charge',
  'postpaid_flush',
  'tier_grant',
  'number_fee_topup',
  // Money the card processor moved back on an automatic recharge by itself (cardReversals.ts).
  'card_refund',
  'card_refund_failure',
  'card_dispute',
  'card_dispute_reversal',
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** The $5 signup grant each new workspace gets, in the test environment only (issue 27, H5: no live money without a verified card). */
export const SIGNUP_CREDIT_CENTS = 500;
export const SIGNUP_CREDIT_ENVIRONMENTS = ['test'] as const;

export interface BillingTenant {
  workspaceId: string;
  environment: 'test' | 'live';
}

export interface LedgerTransaction {
  id: string;
  workspace_id: string;
  environment: string;
  type: TransactionType;
  amount_cents: string;
  balance_after_cents: string;
  description: string;
  reference_id: string | null;
  reference_type: string | null;
  idempotency_ref: string;
  actor_key_id: string | null;
  line_id: string | null;
  created_at: Date;
}

export interface Posting {
  tenant: BillingTenant;
  type: TransactionType;
  /** Positive credits the account, negative debits it. */
  amountCents: number;
  description: string;
  idempotencyRef: string;
  referenceId?: string | null;
  referenceType?: string | null;
  actorKeyId?: string | null;
  lineId?: string | null;
  at: Date;
}

type Db = Knex | Knex.Transaction;

/**
 * Auto-recharge starts on in live (postpaid: the card on file is charged when the balance runs
 * low) and off in test, so test usage never charges a card unless the owner turns it on (and
 * then only a test card, through the test processor).
 */
export function autoRechargeEnabledByDefault(environment: BillingTenant['environment']): boolean {
  return environment === 'live';
}

export async function ensureAccount(db: Db, tenant: BillingTenant): Promise<void> {
  await db('billing_accounts')
    .insert({
      workspace_id: tenant.workspaceId,
      environment: tenant.environment,
      auto_recharge_enabled: autoRechargeEnabledByDefault(tenant.environment),
    })
    .onConflict(['workspace_id', 'environment'])
    .ignore();
}

/** Locks the account row for the rest of the transaction and returns its balance. */
export async function lockAccount(trx: Knex.Transaction, tenant: BillingTenant): Promise<{ balanceCents: number }> {
  const locked = () =>
    trx('billing_accounts').where({ workspace_id: tenant.workspaceId, environment: tenant.environment }).forUpdate().first('balance_cents');
  let row = await locked();
  if (!row) {
    await ensureAccount(trx, tenant);
    row = await locked();
  }
  return { balanceCents: Number(row.balance_cents) };
}

/** Posts inside the caller's transaction (which must hold the account lock, see lockAccount). */
export async function postLocked(trx: Knex.Transaction, posting: Posting): Promise<{ transaction: LedgerTransaction; duplicate: boolean }> {
  if (!Number.isSafeInteger(posting.amountCents)) throw new RangeError(`amount must be integer cents, got ${posting.amountCents}`);
  const existing = await trx<LedgerTransaction>('ledger_transactions').where({ idempotency_ref: posting.idempotencyRef }).first();
  if (existing) return { transaction: existing, duplicate: true };
  const [account] = await trx('billing_accounts')
    .where({ workspace_id: posting.tenant.workspaceId, environment: posting.tenant.environment })
    .increment('balance_cents', posting.amountCents)
    .update({ updated_at: posting.at })
    .returning('balance_cents');
  const [transaction] = await trx<LedgerTransaction>('ledger_transactions')
    .insert({
      workspace_id: posting.tenant.workspaceId,
      environment: posting.tenant.environment,
      type: posting.type,
      amount_cents: String(posting.amountCents),
      balance_after_cents: account.balance_cents,
      description: posting.description,
      idempotency_ref: posting.idempotencyRef,
      reference_id: posting.referenceId ?? null,
      reference_type: posting.referenceType ?? null,
      actor_key_id: posting.actorKeyId ?? null,
      line_id: posting.lineId ?? null,
      created_at: posting.at,
    })
    .returning('*');
  return { transaction, duplicate: false };
}

/** Posts one transaction in its own database transaction. Idempotent on `idempotencyRef`. */
export async function post(db: Knex, posting: Posting): Promise<{ transaction: LedgerTransaction; duplicate: boolean }> {
  return db.transaction(async (trx) => {
    await lockAccount(trx, posting.tenant);
    return postLocked(trx, posting);
  });
}

/** The balance, and what active holds set aside (kept on the account row by every hold posting, see holds.ts). */
export async function balanceOf(db: Db, tenant: BillingTenant): Promise<{ balanceCents: number; heldCents: number }> {
  const account = await db('billing_accounts')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .first('balance_cents', 'held_cents');
  return { balanceCents: Number(account?.balance_cents ?? 0), heldCents: Number(account?.held_cents ?? 0) };
}

/**
 * What the settlement of the hold `reference` charged (its posting `<reference>:settle`, see
 * `settleHold` in holds.ts), whoever posted it; null while it is not settled.
 */
export async function postedSettlement(db: Db, reference: string): Promise<number | null> {
  const posted = await db('ledger_transactions')
    .where({ idempotency_ref: `${reference}:settle` })
    .first('amount_cents');
  return posted ? -Number(posted.amount_cents) : null;
}

/** The settlement posting of the hold `reference` within the tenant's ledger (what a call's page shows as its charge), if posted. */
export async function settlementPostingOf(
  db: Db,
  tenant: BillingTenant,
  reference: string,
): Promise<Pick<LedgerTransaction, 'amount_cents' | 'description' | 'created_at'> | undefined> {
  return transactionsOf(db, tenant)
    .where({ idempotency_ref: `${reference}:settle` })
    .first('amount_cents', 'description', 'created_at');
}

/** The account's ledger; `lineIds` narrows it to the transactions of those lines. */
export function transactionsOf(db: Db, tenant: BillingTenant, lineIds?: readonly string[]) {
  const query = db<LedgerTransaction>('ledger_transactions').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
  if (lineIds) query.whereIn('line_id', [...lineIds]);
  return query;
}

export function toTransactionRecord(row: LedgerTransaction) {
  return {
    id: row.id,
    type: row.type,
    amount_credits: Number(row.amount_cents),
    amount_cents: Number(row.amount_cents),
    balance_after_credits: Number(row.balance_after_cents),
    balance_after_cents: Number(row.balance_after_cents),
    description: row.description,
    reference_id: row.reference_id,
    reference_type: row.reference_type,
    created_at: row.created_at.toISOString(),
  };
}
