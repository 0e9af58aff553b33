import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { AttemptOutcome } from '../activities/autoCharge';
import type { BillingActivities } from '../activities/billing';
import type { BillingTenant } from '../src/domain/billing/ledger';
import { periodOf, previousMonthStart } from '../src/domain/billing/periods';
import * as options from './activityOptions';
import { activityFailedWith, FailureTypes } from './definitions/failures';
import {
  balanceLowSignal,
  paymentMethodChangedSignal,
  type AutoChargeCarried,
  type AutoChargeResult,
  type NumberFeesInput,
  type NumberFeesResult,
  type PeriodCloseInput,
  type PeriodCloseResult,
} from './definitions/billing';
import { patches } from './patches';

const store = proxyActivities<BillingActivities>(options.ledger);
/** The processor: transient failures retried with backoff for up to an hour, declines final. */
const processor = proxyActivities<BillingActivities>(options.cardProcessor);
const lookups = proxyActivities<BillingActivities>(options.chargeLookup);

const IDLE_BEFORE_EXIT = '1 hour';
const AFTER_DECLINE_WAIT = '24 hours';
const CHARGES_PER_RUN = 50;

/**
 * One per workspace and environment (id `auto-charge:<workspace>:<environment>`), woken by
 * `balanceLow` (signal-with-start). Signals arriving together coalesce, and every pass re-reads
 * the balance, so concurrent triggers charge the card once. Each charge is a pending attempt
 * recorded before the processor is called, under a key of its own (not of this run), and is
 * resolved before any other charge is decided, by this run or the next. After a hard decline
 * it waits for a new payment method (or a day) before trying again.
 */
export async function autoChargeWorkflow(tenant: BillingTenant, carried: AutoChargeCarried = {}): Promise<AutoChargeResult> {
  let requested = carried.requested ?? false;
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
    if (patched(patches.pendingAttempts)) {
      const attempt = await store.openAutoChargeAttempt(tenant);
      if (attempt.charge) {
        const outcome = await settleAttempt(tenant, attempt.attemptId);
        if (outcome === 'succeeded') {
          charges += 1;
          declined = false;
          // A resumed attempt was decided earlier: look again at what the account needs now.
          if (attempt.resumed) requested = true;
        } else {
          declined = true;
          paymentMethodChanged = false;
          await condition(() => paymentMethodChanged, AFTER_DECLINE_WAIT);
          requested = true;
        }
      }
      // A pending attempt survives the new run (it is in the database), and so does a wake-up.
      if (charges >= CHARGES_PER_RUN || workflowInfo().continueAsNewSuggested)
        await continueAsNew<typeof autoChargeWorkflow>(tenant, { requested });
      continue;
    }
    // Runs that made their decision before the patch (the idempotency key includes the run id).
    const plan = await store.prepareAutoCharge(tenant);
    if (!plan.charge) continue;

    // One key per charge decision, reused by every retry of it; a new decision (after a
    // decline, or the next top-up) gets a new key, so a declined key is never replayed.
    attempts += 1;
    const info = workflowInfo();
    const idempotencyKey = `${info.workflowId}:${info.runId}:charge-${attempts}`;
    try {
      const { chargeId } = await processor.chargeCard({
        tenant,
        idempotencyKey,
        amountCents: plan.amountCents,
        paymentMethodId: plan.paymentMethodId,
        paymentMethodToken: plan.paymentMethodToken,
      });
      await store.creditAutoRecharge({ tenant, idempotencyKey, amountCents: plan.amountCents, chargeId });
      charges += 1;
      declined = false;
    } catch (err) {
      if (!activityFailedWith(err, FailureTypes.cardDeclined, FailureTypes.paymentRejected)) throw err;
      declined = true;
      paymentMethodChanged = false;
      await condition(() => paymentMethodChanged, AFTER_DECLINE_WAIT);
      requested = true;
    }
    if (charges >= CHARGES_PER_RUN) await continueAsNew<typeof autoChargeWorkflow>(tenant);
  }
}

/**
 * Charges a pending attempt until its outcome is known. When the processor stays unanswered
 * past the retry budget, the charge is looked up by its key; only "no charge under this key"
 * sends it again, under the same key, so a late first request cannot charge twice. Nothing here
 * fails the workflow while the outcome is unknown.
 */
async function settleAttempt(tenant: BillingTenant, attemptId: string): Promise<AttemptOutcome> {
  for (let round = 0; ; round += 1) {
    try {
      return (await processor.chargeAutoChargeAttempt({ tenant, attemptId })).status;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
    }
    const found = await lookups.lookUpAutoChargeAttempt({ tenant, attemptId });
    if (found.status !== 'not_found') return found.status;
    await sleep(Math.min(60_000 * 2 ** round, 3_600_000));
  }
}

const scheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/** The schedule's nominal time (not the wall clock, so a late or replayed firing bills the right month), or the manual override. */
function nominalTimeOf(input: PeriodCloseInput): Date {
  const scheduled = workflowInfo().typedSearchAttributes.get(scheduledStartTime);
  const nominal = input.nominalTime ? new Date(input.nominalTime) : (scheduled ?? workflowInfo().startTime);
  if (Number.isNaN(nominal.getTime()))
    throw ApplicationFailure.nonRetryable(`nominalTime is not a date: ${input.nominalTime}`, 'InvalidNominalTime');
  return nominal;
}

/** Scheduled closes run again this long after the boundary, when late postings have landed. */
const RECLOSE_AFTER = '1 hour';
/**
 * Fired by a Temporal Schedule at 00:00 UTC on the 1st: closes the month that just ended.
 * A posting stamped just before midnight may commit just after the close, so a scheduled
 * close runs again an hour later; each close recomputes the month from the ledger, so the
 * record converges on the exact figure. `nominalTime` names the month for manual runs (one
 * pass: run it again to recompute).
 */
export async function closeSpendPeriodWorkflow(input: PeriodCloseInput = {}): Promise<PeriodCloseResult> {
  const period = previousMonthStart(nominalTimeOf(input)).toISOString();
  const closed = await store.closeSpendPeriod(period);
  if (input.nominalTime !== undefined || !patched(patches.reclose)) return closed;
  await sleep(RECLOSE_AFTER);
  return store.closeSpendPeriod(period);
}

const FEE_PAGE_SIZE = 500;
const FEE_PAGES_PER_RUN = 200;

/**
 * Fired by a Temporal Schedule at 01:00 UTC on the 1st (an hour after the boundary, so every
 * line activated or released in the month has committed): posts the number fees of the month
 * that just ended, in arrears (src/domain/billing/numberFees.ts). Every fee is idempotent per line and
 * month, so a re-run, a retry or a catch-up firing posts nothing twice.
 */
export async function postNumberFeesWorkflow(input: NumberFeesInput = {}): Promise<NumberFeesResult> {
  const nominal = nominalTimeOf(input);
  const periodStart = previousMonthStart(nominal);
  let after = input.afterLineId ?? null;
  let posted = input.posted ?? 0;
  for (let page = 1; ; page += 1) {
    const result = await store.postNumberFees({ periodStart: periodStart.toISOString(), afterLineId: after, pageSize: FEE_PAGE_SIZE });
    posted += result.posted;
    if (result.lines < FEE_PAGE_SIZE) return { period: periodOf(periodStart), posted };
    after = result.lastLineId;
    if (page >= FEE_PAGES_PER_RUN)
      await continueAsNew<typeof postNumberFeesWorkflow>({ nominalTime: nominal.toISOString(), afterLineId: after, posted });
  }
}
