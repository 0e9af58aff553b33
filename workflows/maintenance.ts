import { log, proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';
import * as options from './activityOptions';

const { purgeExpiredRecords } = proxyActivities<MaintenanceActivities>(options.purge);

/** Run hourly by a Temporal Schedule: drops expired idempotency records and stale rate-limit hits. */
export async function purgeExpiredRecordsWorkflow(): Promise<{ idempotencyKeys: number; rateLimitHits: number }> {
  const purged = await purgeExpiredRecords();
  log.info('purged expired records', purged);
  return purged;
}
