/**
 * The card charges of auto-recharge, as `payment_attempts`. Each charge is first written as a
 * `pending` attempt whose idempotency key comes from the attempt row, not from any workflow run;
 * the processor is only ever asked for that key, and a pending attempt is resolved (charged,
 * looked up) before any other charge of the account is decided. So a card is charged at most
 * once per attempt and every successful charge is credited once, whatever runs fail or start over.
 */
import crypto from 'node:crypto';
import type { Db } from '../../platform/db/knex';
import { autoChargeNeed } from './autoCharge';
import { lockAccount, postLocked, type BillingTenant, type Posting } from './ledger';

export type AttemptOutcome = 'succeeded' | 'declined' | 'failed';

/** An auto-charge decision, recorded before the processor sees it. */
export type AutoChargeAttempt =
  | { charge: false; reason: 'disabled' | 'above_threshold' | 'no_payment_method' }
  | { charge: true; attemptId: string; amountCents: number; resumed: boolean };

export interface AttemptRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  idempotency_key: string;
  amount_cents: string;
  payment_method_id: string;
  status: 'pending' | AttemptOutcome;
}

/** What the processor said of an attempt's charge, or why it failed. */
export type AttemptResolution =
  { status: 'succeeded'; chargeId: string } | { status: 'declined'; declineCode: string } | { status: 'failed'; reason: string };

export async function findAttempt(db: Db, tenant: BillingTenant, attemptId: string): Promise<AttemptRow | undefined> {
  return db<AttemptRow>('payment_attempts')
    .where({ id: attemptId, workspace_id: tenant.workspaceId, environment: tenant.environment })
    .first();
}

/**
 * The pending attempt of the account if there is one (a previous run left it unresolved),
 * else a new one when the account needs a top-up: written before any processor call.
 */
export async function openAttempt(db: Db, tenant: BillingTenant, now: () => Date): Promise<AutoChargeAttempt> {
  return db.transaction(async (trx) => {
    await lockAccount(trx, tenant);
    const pending = await trx('payment_attempts')
      .where({ workspace_id: tenant.workspaceId, environment: tenant.environment, status: 'pending' })
      .first('id', 'amount_cents');
    if (pending) return { charge: true, attemptId: pending.id, amountCents: Number(pending.amount_cents), resumed: true };
    const need = await autoChargeNeed(trx, tenant);
    if (!need.wanted) return { charge: false, reason: need.reason };
    const id = crypto.randomUUID();
    await trx('payment_attempts').insert({
      id,
      workspace_id: tenant.workspaceId,
      environment: tenant.environment,
      idempotency_key: `auto-charge:${tenant.workspaceId}:${tenant.environment}:${id}`,
      amount_cents: need.amountCents,
      payment_method_id: need.paymentMethodId,
      status: 'pending',
      created_at: now(),
    });
    return { charge: true, attemptId: id, amountCents: need.amountCents, resumed: false };
  });
}

/** The ledger credit of a charged auto-recharge, posted once under the charge's idempotency key. */
export function autoRechargeCredit(
  tenant: BillingTenant,
  charge: { amountCents: number; chargeId: string; idempotencyKey: string },
  at: Date,
): Posting {
  return {
    tenant,
    type: 'auto_recharge',
    amountCents: charge.amountCents,
    description: `Automatic recharge of the card on file (${charge.chargeId})`,
    idempotencyRef: charge.idempotencyKey,
    referenceId: charge.chargeId,
    referenceType: 'card_charge',
    at,
  };
}

/**
 * Records what the processor said, once: the attempt leaves `pending` and, if the card was
 * charged, the credit is posted under the attempt's key, in the same transaction.
 */
export async function resolveAttempt(
  db: Db,
  tenant: BillingTenant,
  attempt: AttemptRow,
  found: AttemptResolution,
  now: () => Date,
): Promise<AttemptOutcome> {
  return db.transaction(async (trx) => {
    await lockAccount(trx, tenant);
    const at = now();
    const fields =
      found.status === 'succeeded'
        ? { status: 'succeeded', processor_charge_id: found.chargeId }
        : found.status === 'declined'
          ? { status: 'declined', decline_code: found.declineCode }
          : { status: 'failed', failure_reason: found.reason.slice(0, 500) };
    await trx('payment_attempts')
      .where({ id: attempt.id, status: 'pending' })
      .update({ ...fields, resolved_at: at });
    const current = await trx<AttemptRow & { processor_charge_id: string | null }>('payment_attempts').where({ id: attempt.id }).first();
    if (current!.status === 'succeeded') {
      const charge = {
        amountCents: Number(current!.amount_cents),
        chargeId: current!.processor_charge_id!,
        idempotencyKey: attempt.idempotency_key,
      };
      await postLocked(trx, autoRechargeCredit(tenant, charge, at));
    }
    return current!.status as AttemptOutcome;
  });
}

/** A charge made before pending attempts existed, recorded once it is known (kept for runs from before that patch). */
export async function recordSettledCharge(
  db: Db,
  charge: { tenant: BillingTenant; idempotencyKey: string; amountCents: number; paymentMethodId: string },
  outcome: { status: 'succeeded'; processor_charge_id: string } | { status: 'declined'; decline_code: string },
  now: () => Date,
): Promise<void> {
  await db('payment_attempts')
    .insert({
      workspace_id: charge.tenant.workspaceId,
      environment: charge.tenant.environment,
      idempotency_key: charge.idempotencyKey,
      amount_cents: charge.amountCents,
      payment_method_id: charge.paymentMethodId,
      status: outcome.status,
      created_at: now(),
      resolved_at: now(),
      ...(outcome.status === 'succeeded' ? { processor_charge_id: outcome.processor_charge_id } : { decline_code: outcome.decline_code }),
    })
    .onConflict('idempotency_key')
    .ignore();
}
