import crypto from 'node:crypto';
import { findHold } from '../../src/domain/billing/holds';
import { post, type BillingTenant } from '../../src/domain/billing/ledger';
import type { Db } from '../../src/platform/db/knex';

/**
 * Spends `cents` of the account as a call charge posted straight to the ledger: the balance a
 * billing test starts from, without placing a call. `at`, the charging key and the line are as given.
 */
export function spendOnCalls(
  db: Db,
  account: BillingTenant,
  cents: number,
  options: { at?: Date; actorKeyId?: string; lineId?: string } = {},
): ReturnType<typeof post> {
  return post(db, {
    tenant: account,
    type: 'call_charge',
    amountCents: -cents,
    description: 'Call',
    idempotencyRef: `spend:${crypto.randomUUID()}`,
    actorKeyId: options.actorKeyId,
    lineId: options.lineId,
    at: options.at ?? new Date(),
  });
}

/** Credits `cents` to the account as a purchase posted straight to the ledger: funds a test starts from. */
export function creditAccount(db: Db, account: BillingTenant, cents: number, at: Date = new Date()): ReturnType<typeof post> {
  return post(db, {
    tenant: account,
    type: 'credit_purchase',
    amountCents: cents,
    description: 'test credit',
    idempotencyRef: `test:${crypto.randomUUID()}`,
    at,
  });
}

/** The spend hold of a call (reference `call:<id>`) as it stands, if one was placed. */
export function callHold(db: Db, callId: string): ReturnType<typeof findHold> {
  return findHold(db, `call:${callId}`);
}
