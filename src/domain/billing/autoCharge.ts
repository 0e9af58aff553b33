import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../../platform/logger';
import type { Db } from '../../platform/db/knex';
import { balanceLowSignal, paymentMethodChangedSignal, type AutoChargeWorkflow } from '../../../workflows/definitions/billing';
import { workflowIds } from '../../../workflows/definitions/ids';
import { balanceOf, type BillingTenant } from './ledger';
import { chargeableCard } from './paymentMethods';
import { findSettings } from './settings';

/**
 * When the card on file is charged (spec: "postpaid; when the balance runs low, the saved card
 * on file is charged automatically"). One rule for every place that notices a low balance: a
 * settlement, a refused reservation (402 `insufficient_credits`), a monthly number fee.
 */
export type AutoChargeNeed =
  | { wanted: false; reason: 'disabled' | 'above_threshold' | 'no_payment_method' }
  | { wanted: true; amountCents: number; paymentMethodId: string };

/**
 * Auto-recharge on, the available balance (balance minus active holds: what a reservation can
 * use) below the threshold, and a default card of this environment on file.
 */
export async function autoChargeNeed(db: Db, tenant: BillingTenant): Promise<AutoChargeNeed> {
  const account = await findSettings(db, tenant);
  if (!account?.auto_recharge_enabled) return { wanted: false, reason: 'disabled' };
  const { balanceCents, heldCents } = await balanceOf(db, tenant);
  if (balanceCents - heldCents >= Number(account.auto_recharge_threshold_cents)) return { wanted: false, reason: 'above_threshold' };
  const card = await chargeableCard(db, tenant);
  if (!card) return { wanted: false, reason: 'no_payment_method' };
  return { wanted: true, amountCents: Number(account.auto_recharge_amount_cents), paymentMethodId: card.id };
}

/** Wakes (or starts) the account's auto-charge workflow; concurrent wakes coalesce into one charge. */
export async function wakeAutoCharge(client: Client, taskQueue: string, tenant: BillingTenant): Promise<void> {
  await client.workflow.signalWithStart<AutoChargeWorkflow>('autoChargeWorkflow', {
    workflowId: workflowIds.autoCharge(tenant.workspaceId, tenant.environment),
    taskQueue,
    args: [{ workspaceId: tenant.workspaceId, environment: tenant.environment }],
    signal: balanceLowSignal,
  });
}

/** Wakes auto-charge when the account needs it; returns whether it did. */
export async function wakeAutoChargeIfNeeded(db: Db, client: Client, taskQueue: string, tenant: BillingTenant): Promise<boolean> {
  if (!(await autoChargeNeed(db, tenant)).wanted) return false;
  await wakeAutoCharge(client, taskQueue, tenant);
  return true;
}

/**
 * A card was saved (or made the default) for `tenant`: an auto-charge waiting after a decline tries
 * again now instead of a day later, and a low balance with no auto-charge running starts one. The
 * card is already committed; a failure here is logged and changes nothing (the workflow's 24-hour
 * wait after a decline stays the fallback).
 */
export async function wakeAutoChargeForNewCard(
  deps: { db: Db; temporal: Client; taskQueue: string; log: Logger },
  tenant: BillingTenant,
): Promise<'signalled' | 'woken' | 'nothing' | 'failed'> {
  try {
    try {
      await deps.temporal.workflow
        .getHandle(workflowIds.autoCharge(tenant.workspaceId, tenant.environment))
        .signal(paymentMethodChangedSignal);
      return 'signalled';
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    return (await wakeAutoChargeIfNeeded(deps.db, deps.temporal, deps.taskQueue, tenant)) ? 'woken' : 'nothing';
  } catch (err) {
    deps.log.warn({ err, workspace_id: tenant.workspaceId, environment: tenant.environment }, 'auto-charge not told of the new card');
    return 'failed';
  }
}
