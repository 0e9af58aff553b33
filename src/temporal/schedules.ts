import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { purgeExpiredRecordsWorkflow } from '../../workflows/maintenance';

export const MAINTENANCE_SCHEDULE_ID = 'maintenance-purge-expired-records';

/**
 * Creates the service's Temporal Schedules if they do not exist yet. Called by every worker
 * at start; the first one wins and the others find the schedule already there.
 */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: MAINTENANCE_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: purgeExpiredRecordsWorkflow,
        workflowId: 'maintenance-purge',
        taskQueue,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
