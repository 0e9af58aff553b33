/**
 * What a card processor reports by itself (a Stripe webhook) about a charge Switchboard asked
 * for. The auto-charge workflow settles each attempt from the processor's answer; an event is a
 * second, independent report of the same outcome, so it resolves a still-pending attempt exactly
 * as that answer would have (the same `resolveAttempt`, which is idempotent), and changes nothing
 * otherwise. A charge it settles as succeeded wakes the tenant's campaigns paused for funds, as the
 * workflow's own settlement does. The workflow then finds the attempt resolved on its next try or lookup.
 */
import type { Client } from '@temporalio/client';
import type { Db } from '../../platform/db/knex';
import type { Logger } from '../../platform/logger';
import { wakeCampaignsPausedForFunds } from '../campaigns/fundsReturned';
import { resolveAttempt, type AttemptResolution, type AttemptRow } from './paymentAttempts';

export type ReconcileResult =
  /** The attempt was pending and now carries the event's outcome (credited if charged). */
  | 'resolved'
  /** The attempt was already resolved (the processor's answer came first, or a repeated event). */
  | 'already_resolved'
  /** No attempt of this environment has the key: not a charge Switchboard asked for. */
  | 'unknown_charge'
  /** The event's amount is not the attempt's: not trusted, nothing changed. */
  | 'amount_mismatch';

export async function reconcileChargeOutcome(
  deps: { db: Db; temporal: Client; log: Logger },
  input: { environment: 'test' | 'live'; idempotencyKey: string; amountCents: number; outcome: AttemptResolution },
  now: () => Date,
): Promise<ReconcileResult> {
  const { db } = deps;
  const attempt = await db<AttemptRow>('payment_attempts')
    .where({ idempotency_key: input.idempotencyKey, environment: input.environment })
    .first();
  if (!attempt) return 'unknown_charge';
  if (Number(attempt.amount_cents) !== input.amountCents) return 'amount_mismatch';
  if (attempt.status !== 'pending') return 'already_resolved';
  const tenant = { workspaceId: attempt.workspace_id, environment: attempt.environment };
  await resolveAttempt(db, tenant, attempt, input.outcome, now);
  // The credit is posted: campaigns that paused themselves for funds look again now, not at their next recheck.
  if (input.outcome.status === 'succeeded') await wakeCampaignsPausedForFunds(deps, tenant);
  return 'resolved';
}
