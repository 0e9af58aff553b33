import { log, proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';

const { purgeExpiredRecords } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

/** Run hourly by a Temporal Schedule: drops expired idempotency records and stale rate-limit hits. */
export async function purgeExpiredRecordsWorkflow(): Promise<{ idempotencyKeys: number; rateLimitHits: number }> {
  const purged = await purgeExpiredRecords();
  log.info('purged expired records', purged);
  return purged;
}
