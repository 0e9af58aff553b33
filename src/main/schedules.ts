import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type { closeSpendPeriodWorkflow, postNumberFeesWorkflow } from '../../workflows/billing';
import type { purgeExpiredRecordsWorkflow } from '../../workflows/maintenance';
import type { recoverOrphansWorkflow } from '../../workflows/recovery';
import type { sweepTelnyxInboxWorkflow } from '../../workflows/telnyxInbox';
import type { sweepStrandedEventsWorkflow } from '../../workflows/webhooks';

export const MAINTENANCE_SCHEDULE_ID = 'maintenance-purge-expired-records';
export const MONTHLY_CLOSE_SCHEDULE_ID = 'billing-close-spend-period';
export const NUMBER_FEES_SCHEDULE_ID = 'billing-number-fees';
export const RECOVERY_SCHEDULE_ID = 'recovery-sweep-orphans';
export const WEBHOOK_SWEEP_SCHEDULE_ID = 'webhooks-sweep-stranded-events';
export const TELNYX_INBOX_SCHEDULE_ID = 'telnyx-inbox-sweep';

/**
 * Creates the service's Temporal Schedules if they do not exist yet. Called by every worker
 * at start; the first one wins and the others find the schedule already there. `telnyx`: an
 * environment is on Telnyx, whose webhook inbox has a sweeper of its own.
 */
export async function ensureSchedules(client: Client, taskQueue: string, options: { telnyx?: boolean } = {}): Promise<void> {
  const schedules: Parameters<Client['schedule']['create']>[0][] = [
    {
      scheduleId: MAINTENANCE_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      action: startWorkflow<typeof purgeExpiredRecordsWorkflow>('purgeExpiredRecordsWorkflow', {
        workflowId: 'maintenance-purge',
        taskQueue,
      }),
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    },
    {
      // 00:00 UTC on the 1st: close the month that just ended. The workflow reads the
      // schedule's nominal time, so a late or backfilled run closes the right month.
      scheduleId: MONTHLY_CLOSE_SCHEDULE_ID,
      spec: { calendars: [{ dayOfMonth: 1, hour: 0, minute: 0, second: 0, comment: 'UTC month boundary' }], timezone: 'UTC' },
      action: startWorkflow<typeof closeSpendPeriodWorkflow>('closeSpendPeriodWorkflow', {
        args: [{}],
        workflowId: 'billing-close-spend-period',
        taskQueue,
      }),
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ALL, catchupWindow: '30 days' },
    },
    {
      // 01:00 UTC on the 1st: the number fees of the month that just ended (billed in arrears),
      // an hour after the boundary so every line change of that month has committed.
      scheduleId: NUMBER_FEES_SCHEDULE_ID,
      spec: { calendars: [{ dayOfMonth: 1, hour: 1, minute: 0, second: 0, comment: 'number fees, in arrears' }], timezone: 'UTC' },
      action: startWorkflow<typeof postNumberFeesWorkflow>('postNumberFeesWorkflow', {
        args: [{}],
        workflowId: 'billing-number-fees',
        taskQueue,
      }),
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ALL, catchupWindow: '30 days' },
    },
    {
      // Calls and messages whose workflow can no longer finish them (see workflows/recovery.ts).
      scheduleId: RECOVERY_SCHEDULE_ID,
      spec: { intervals: [{ every: '5 minutes' }] },
      action: startWorkflow<typeof recoverOrphansWorkflow>('recoverOrphansWorkflow', {
        args: [{}],
        workflowId: 'recovery-sweep',
        taskQueue,
      }),
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    },
    {
      // Webhook events whose raiser died before settling their first attempt (src/domain/webhooks/sweep.ts):
      // every 5 s, so a stranded event waits 5–10 s (the schedule's minimum interval is about 1 s).
      scheduleId: WEBHOOK_SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: '5 seconds' }] },
      action: startWorkflow<typeof sweepStrandedEventsWorkflow>('sweepStrandedEventsWorkflow', {
        args: [],
        workflowId: 'webhooks-sweep',
        taskQueue,
      }),
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    },
  ];
  if (options.telnyx)
    schedules.push({
      // Telnyx webhooks stored and not processed (src/domain/telnyxInbox/sweep.ts): the API processes each once it has
      // answered it, so this takes what a dead API left, and events waiting for their message or recording.
      scheduleId: TELNYX_INBOX_SCHEDULE_ID,
      spec: { intervals: [{ every: '5 seconds' }] },
      action: startWorkflow<typeof sweepTelnyxInboxWorkflow>('sweepTelnyxInboxWorkflow', {
        args: [],
        workflowId: 'telnyx-inbox-sweep',
        taskQueue,
      }),
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  for (const schedule of schedules) {
    try {
      await client.schedule.create(schedule);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }
}

/**
 * A schedule's action: start the workflow named, its `args` checked against the workflow's parameters
 * (`startWorkflow<typeof xWorkflow>('xWorkflow', …)`, as every start is typed: src/platform/temporal/starts.ts).
 */
function startWorkflow<W extends Workflow = never>(
  workflowType: string,
  action: Omit<ScheduleOptionsStartWorkflowAction<NoInfer<W>>, 'type' | 'workflowType'>,
): ScheduleOptionsAction {
  return { type: 'startWorkflow', workflowType, ...action } as ScheduleOptionsAction;
}
