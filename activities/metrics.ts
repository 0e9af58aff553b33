import client from 'prom-client';
import { countActiveCalls } from '../src/domain/calls/store';
import { ACTIVE_CALL_STATUSES } from '../src/domain/calls/rules';
import type { AttemptOutcome } from '../src/domain/webhooks/attempt';
import type { Db } from '../src/platform/db/knex';

/**
 * The worker's business metrics, process-wide like the API's (api/metrics.ts), served by the
 * worker's /metrics (src/main/workerMetrics.ts). Counted here in the activity layer, after the
 * effect: never in workflows, which replay. Each worker counts what it did; sum across workers.
 */
export const workerRegistry = new client.Registry();

const callTurns = new client.Counter({
  name: 'switchboard_call_turns_total',
  help: "Caller turns this worker took, by line mode and outcome (webhook: the message delivery's; hosted: the model's reply's)",
  labelNames: ['mode', 'outcome'] as const,
  registers: [workerRegistry],
});

const webhookDeliveries = new client.Counter({
  name: 'switchboard_webhook_deliveries_total',
  help: 'Webhook delivery attempts this worker made, by event type and outcome (delivered, failed, lost: a crashed attempt not repeated)',
  labelNames: ['event_type', 'outcome'] as const,
  registers: [workerRegistry],
});

const ledgerPostings = new client.Counter({
  name: 'switchboard_ledger_postings_total',
  help: 'Ledger transactions this worker posted, by transaction type (repeats of an idempotent posting not counted)',
  labelNames: ['type'] as const,
  registers: [workerRegistry],
});

/** Webhook turns: the `message` delivery's outcome. Hosted turns: the reply's end (`interrupted`: the caller barged in). */
const recovered = new client.Counter({
  name: 'switchboard_recovered_total',
  help: 'Calls the recovery sweeper ended and messages it failed because their workflow was missing (each also an error log line)',
  labelNames: ['kind'] as const,
  registers: [workerRegistry],
});

const recordingCopies = new client.Counter({
  name: 'switchboard_recording_copies_total',
  help: 'Objects of calls (recording, transcript, events) this worker copied into the recordings store and verified, by kind',
  labelNames: ['kind', 'store'] as const,
  registers: [workerRegistry],
});

const recordingCopyFailures = new client.Counter({
  name: 'switchboard_recording_copy_failures_total',
  help:
    'Failed attempts to copy an object of a call into the recordings store, by kind and reason (store_unavailable, ' +
    'credentials_refused, checksum_mismatch, carrier_unavailable, carrier_refused, store_refused, error: anything else); all but the ' +
    'refusals are retried until the copy is stored (alert on a rate that does not fall; the portal shows each failing call)',
  labelNames: ['kind', 'reason'] as const,
  registers: [workerRegistry],
});

const recordingsDeleted = new client.Counter({
  name: 'switchboard_recordings_deleted_total',
  help: 'Objects of calls (recording, transcript, events) the retention schedule deleted from the recordings store, by kind',
  labelNames: ['kind'] as const,
  registers: [workerRegistry],
});

const recordingCarrierDeletions = new client.Counter({
  name: 'switchboard_recording_carrier_deletions_total',
  help: 'Recordings this worker deleted at the carrier once the recordings store held a verified copy (recordings.delete_at_carrier)',
  registers: [workerRegistry],
});

const recordingCarrierDeleteFailures = new client.Counter({
  name: 'switchboard_recording_carrier_delete_failures_total',
  help:
    'Failed attempts to delete a stored recording at the carrier, by reason (carrier_credentials_refused, carrier_unavailable: ' +
    'retried until deleted; carrier_refused: final, logged at error)',
  labelNames: ['reason'] as const,
  registers: [workerRegistry],
});

export type TurnOutcome =
  'delivered' | 'failed' | 'lost' | 'replied' | 'interrupted' | 'model_unavailable' | 'model_rejected' | 'call_ended';

/** An attempt's outcome as a label; null for an attempt another process claimed (it counts it). */
export function deliveryOutcome(outcome: Pick<AttemptOutcome, 'delivered' | 'error'>): 'delivered' | 'failed' | 'lost' | null {
  if (outcome.error === 'attempt_claimed') return null;
  if (outcome.error === 'attempt_lost') return 'lost';
  return outcome.delivered ? 'delivered' : 'failed';
}

export const businessMetrics = {
  turn(mode: 'webhook' | 'hosted', outcome: TurnOutcome): void {
    callTurns.inc({ mode, outcome });
  },
  delivery(eventType: string, outcome: Pick<AttemptOutcome, 'delivered' | 'error'>): void {
    const label = deliveryOutcome(outcome);
    if (label) webhookDeliveries.inc({ event_type: eventType, outcome: label });
  },
  posting(type: string): void {
    ledgerPostings.inc({ type });
  },
  recordingCopied(kind: string, store: string): void {
    recordingCopies.inc({ kind, store });
  },
  recordingCopyFailed(kind: string, reason: string): void {
    recordingCopyFailures.inc({ kind, reason });
  },
  recordingDeleted(kind: string): void {
    recordingsDeleted.inc({ kind });
  },
  recordingDeletedAtCarrier(): void {
    recordingCarrierDeletions.inc();
  },
  recordingCarrierDeleteFailed(reason: 'carrier_credentials_refused' | 'carrier_unavailable' | 'carrier_refused'): void {
    recordingCarrierDeleteFailures.inc({ reason });
  },
  recovered(kind: 'call' | 'message'): void {
    recovered.inc({ kind });
  },
  /**
   * A hold's settlement posting (src/domain/billing/holds.ts): repeated, it returns the first
   * posting, made at another time, so only a posting made at `at` is new.
   */
  settlement(type: string, transaction: { created_at: Date | string } | null, at: Date): void {
    if (transaction && new Date(transaction.created_at).getTime() === at.getTime()) ledgerPostings.inc({ type });
  },
};

let activeCallsGauge: client.Gauge<'environment' | 'status'> | undefined;

/**
 * `switchboard_active_calls`, read from Postgres at each scrape, so every worker reports the same
 * true figure whichever worker runs the calls (alert on `max`, not `sum`). A failed read leaves
 * the gauge empty for that scrape and is reported to `onError`. Once per process.
 */
export function observeActiveCalls(db: Db, onError: (err: unknown) => void): void {
  if (activeCallsGauge) return;
  activeCallsGauge = new client.Gauge({
    name: 'switchboard_active_calls',
    help: 'Calls not ended yet, across the deployment (read from Postgres at scrape time), by environment and status',
    labelNames: ['environment', 'status'] as const,
    registers: [workerRegistry],
    async collect() {
      this.reset();
      try {
        const counts = await countActiveCalls(db);
        for (const environment of ['test', 'live']) for (const status of ACTIVE_CALL_STATUSES) this.set({ environment, status }, 0);
        for (const row of counts) this.set({ environment: row.environment, status: row.status }, row.count);
      } catch (err) {
        onError(err);
      }
    },
  });
}
