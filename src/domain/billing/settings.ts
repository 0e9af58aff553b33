import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { ensureAccount, type BillingTenant } from './ledger';

/**
 * A workspace's settings in one environment, kept on its billing account: how the card on file
 * is charged (auto-recharge) and where lines without a webhook_url send their events.
 */
export interface AccountSettings {
  default_webhook_url: string | null;
  auto_recharge_enabled: boolean;
  auto_recharge_threshold_cents: string | number;
  auto_recharge_amount_cents: string | number;
  [column: string]: unknown;
}

const accountOf = (db: Db | Knex.Transaction, tenant: BillingTenant) =>
  db('billing_accounts').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });

/** The settings, undefined when the account was never opened. */
export async function findSettings(db: Db | Knex.Transaction, tenant: BillingTenant): Promise<AccountSettings | undefined> {
  return accountOf(db, tenant).first();
}

/** The settings, the account created with its defaults on first read. */
export async function readSettings(db: Db, tenant: BillingTenant): Promise<AccountSettings> {
  await ensureAccount(db, tenant);
  return accountOf(db, tenant).first();
}

/** The settings before and after `changes`, the account row locked for the rest of the transaction. */
export async function writeSettings(
  trx: Knex.Transaction,
  tenant: BillingTenant,
  changes: Record<string, unknown>,
  now: Date,
): Promise<{ before: AccountSettings; after: AccountSettings }> {
  const before = await accountOf(trx, tenant).forUpdate().first();
  const [after] = await accountOf(trx, tenant)
    .update({ ...changes, updated_at: now })
    .returning('*');
  return { before, after };
}
