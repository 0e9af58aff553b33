import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { BillingActivities } from '../activities/billing';
import type { BillingTenant } from '../src/billing/ledger';
import { previousMonthStart } from '../src/billing/periods';

/** Ledger and settings reads/writes: idempotent, retried until they succeed. */
const store = proxyActivities<BillingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The processor: transient failures retried with backoff for up to an hour, declines final. */
const processor = proxyActivities<BillingActivities>({
  // The adapter gives up on the processor after 10 s; a lost worker is noticed within 15.
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: ['CardDeclined', 'PaymentRejected'] },
});

export const balanceLowSignal = defineSignal('balanceLow');
export const paymentMethodChangedSignal = defineSignal('paymentMethodChanged');

export interface AutoChargeResult {
  charges: number;
  declined: boolean;
}

const IDLE_BEFORE_EXIT = '1 hour';
const AFTER_DECLINE_WAIT = '24 hours';
const CHARGES_PER_RUN = 50;

/**
 * One per workspace and environment (id `auto-charge:<workspace>:<environment>`), woken by
 * `balanceLow` (signal-with-start). Signals arriving together coalesce, and every pass re-reads
 * the balance, so concurrent triggers charge the card once. Each charge has an idempotency key
 * from this workflow's identity, reused on every retry of that charge. After a hard decline it
 * waits for a new payment method (or a day) before trying again.
 */
export async function autoChargeWorkflow(tenant: BillingTenant): Promise<AutoChargeResult> {
  let requested = false;
  let paymentMethodChanged = false;
  let charges = 0;
  let attempts = 0;
  let declined = false;
  setHandler(balanceLowSignal, () => {
    requested = true;
  });
  setHandler(paymentMethodChangedSignal, () => {
    paymentMethodChanged = true;
    requested = true;
  });

  for (;;) {
    if (!(await condition(() => requested, IDLE_BEFORE_EXIT))) return { charges, declined };
    requested = false;
    const plan = await store.prepareAutoCharge(tenant);
    if (!plan.charge) continue;

    // One key per charge decision, reused by every retry of it; a new decision (after a
    // decline, or the next top-up) gets a new key, so a declined key is never replayed.
    attempts += 1;
    const info = workflowInfo();
    const idempotencyKey = `${info.workflowId}:${info.runId}:charge-${attempts}`;
    try {
      const { chargeId } = await processor.chargeCard({ tenant, idempotencyKey, amountCents: plan.amountCents, paymentMethodId: plan.paymentMethodId, paymentMethodToken: plan.paymentMethodToken });
      await store.creditAutoRecharge({ tenant, idempotencyKey, amountCents: plan.amountCents, chargeId });
      charges += 1;
      declined = false;
    } catch (err) {
      if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && (err.cause.type === 'CardDeclined' || err.cause.type === 'PaymentRejected'))) throw err;
      declined = true;
      paymentMethodChanged = false;
      await condition(() => paymentMethodChanged, AFTER_DECLINE_WAIT);
      requested = true;
    }
    if (charges >= CHARGES_PER_RUN) await continueAsNew<typeof autoChargeWorkflow>(tenant);
  }
}

const scheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/**
 * Fired by a Temporal Schedule at 00:00 UTC on the 1st: closes the month that just ended,
 * named from the schedule's nominal time (not the wall clock, so a late or replayed firing
 * closes the right month). `nominalTime` overrides it for manual runs.
 */
export async function closeSpendPeriodWorkflow(input: { nominalTime?: string } = {}): Promise<{ period: string; keys: number }> {
  const scheduled = workflowInfo().typedSearchAttributes.get(scheduledStartTime);
  const nominal = input.nominalTime ? new Date(input.nominalTime) : (scheduled ?? workflowInfo().startTime);
  return store.closeSpendPeriod(previousMonthStart(nominal).toISOString());
}
