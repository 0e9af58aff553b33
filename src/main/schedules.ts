import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsAction,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';
import type { closeSpendPeriodWorkflow, postNumberFeesWorkflow } from '../../workflows/billing';
import type { purgeExpiredRecordsWorkflow } from '../../workflows/maintenance';
import type { recordingsRetentionWorkflow, sweepCallCopiesWorkflow } from '../../workflows/recordings';
import type { sweepUndispatchedMessagesWorkflow } from '../../workflows/messageDispatch';
import type { recoverOrphansWorkflow } from '../../workflows/recovery';
import type { sweepTelnyxInboxWorkflow } from '../../workflows/telnyxInbox';
import type { sweepStrandedEventsWorkflow } from '../../workflows/webhooks';

export const MAINTENANCE_SCHEDULE_ID = 'maintenance-purge-expired-records';
export const MONTHLY_CLOSE_SCHEDULE_ID = 'billing-close-spend-period';
export const NUMBER_FEES_SCHEDULE_ID = 'billing-number-fees';
export const RECOVERY_SCHEDULE_ID = 'recovery-sweep-orphans';
export const WEBHOOK_SWEEP_SCHEDULE_ID = 'webhooks-sweep-stranded-events';
export const MESSAGE_DISPATCH_SCHEDULE_ID = 'messages-dispatch-undispatched';
export const TELNYX_INBOX_SCHEDULE_ID = 'telnyx-inbox-sweep';
export const CALL_COPY_SWEEP_SCHEDULE_ID = 'recordings-sweep-call-copies';
export const RECORDINGS_RETENTION_SCHEDULE_ID = 'recordings-retention';

/**
 * Creates the service's Temporal Schedules if they do not exist yet. Called by every worker
 * at start; the first one wins and the others find the schedule already there. `telnyx`: an
 * environment is on Telnyx, whose webhook inbox has a sweeper of its own.
 */
export async function ensureSchedules(client: Client, taskQueue: string, options: { telnyx?: boolean } = {}): Promise<void> {
  const schedules: ScheduleOptions[] = [
    repeating(
      MAINTENANCE_SCHEDULE_ID,
      '1 hour',
      startWorkflow<typeof purgeExpiredRecordsWorkflow>('purgeExpiredRecordsWorkflow', { workflowId: 'maintenance-purge', taskQueue }),
    ),
    // 00:00 UTC on the 1st: close the month that just ended. The workflow reads the
    // schedule's nominal time, so a late or backfilled run closes the right month.
    monthlyOnTheFirst(
      MONTHLY_CLOSE_SCHEDULE_ID,
      { hour: 0, comment: 'UTC month boundary' },
      startWorkflow<typeof closeSpendPeriodWorkflow>('closeSpendPeriodWorkflow', {
        args: [{}],
        workflowId: 'billing-close-spend-period',
        taskQueue,
      }),
    ),
    // 01:00 UTC on the 1st: the number fees of the month that just ended (billed in arrears),
    // an hour after the boundary so every line change of that month has committed.
    monthlyOnTheFirst(
      NUMBER_FEES_SCHEDULE_ID,
      { hour: 1, comment: 'number fees, in arrears' },
      startWorkflow<typeof postNumberFeesWorkflow>('postNumberFeesWorkflow', { args: [{}], workflowId: 'billing-number-fees', taskQueue }),
    ),
    // Calls and messages whose workflow can no longer finish them (see workflows/recovery.ts).
    repeating(
      RECOVERY_SCHEDULE_ID,
      '5 minutes',
      startWorkflow<typeof recoverOrphansWorkflow>('recoverOrphansWorkflow', { args: [{}], workflowId: 'recovery-sweep', taskQueue }),
    ),
    // Calls ended 10 minutes to a week ago whose recording or transcript is not in the store yet (their copy was never
    // started: a crashed starter, a lost start), beside the recovery sweep (see workflows/recordings.ts).
    repeating(
      CALL_COPY_SWEEP_SCHEDULE_ID,
      '5 minutes',
      startWorkflow<typeof sweepCallCopiesWorkflow>('sweepCallCopiesWorkflow', { args: [], workflowId: 'recordings-sweep', taskQueue }),
    ),
    // 03:00 UTC daily: the stored objects of calls past their environment's `recordings.retention_days`, except calls
    // on legal hold (workflows/recordings.ts). A missed day is caught up within a day; overlapping runs are skipped.
    {
      scheduleId: RECORDINGS_RETENTION_SCHEDULE_ID,
      spec: { calendars: [{ hour: 3, minute: 0, second: 0, comment: 'recordings retention' }], timezone: 'UTC' },
      action: startWorkflow<typeof recordingsRetentionWorkflow>('recordingsRetentionWorkflow', {
        args: [],
        workflowId: 'recordings-retention',
        taskQueue,
      }),
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
    },
    // Webhook events whose raiser died before settling their first attempt (src/domain/webhooks/sweep.ts):
    // every 5 s, so a stranded event waits 5–10 s (the schedule's minimum interval is about 1 s).
    repeating(
      WEBHOOK_SWEEP_SCHEDULE_ID,
      '5 seconds',
      startWorkflow<typeof sweepStrandedEventsWorkflow>('sweepStrandedEventsWorkflow', {
        args: [],
        workflowId: 'webhooks-sweep',
        taskQueue,
      }),
    ),
  ];
  // Queued SMS whose send workflow's start was never confirmed (src/domain/messages/dispatch.ts): every 5 s, so such a
  // message waits 15–20 s (the API's own start, right after it answers, normally confirms within milliseconds).
  schedules.push(
    repeating(
      MESSAGE_DISPATCH_SCHEDULE_ID,
      '5 seconds',
      startWorkflow<typeof sweepUndispatchedMessagesWorkflow>('sweepUndispatchedMessagesWorkflow', {
        args: [],
        workflowId: 'messages-dispatch-sweep',
        taskQueue,
      }),
    ),
  );
  if (options.telnyx)
    schedules.push(
      // Telnyx webhooks stored and not processed (src/domain/telnyxInbox/sweep.ts): the API processes each once it has
      // answered it, so this takes what a dead API left, and events waiting for their message or recording.
      repeating(
        TELNYX_INBOX_SCHEDULE_ID,
        '5 seconds',
        startWorkflow<typeof sweepTelnyxInboxWorkflow>('sweepTelnyxInboxWorkflow', {
          args: [],
          workflowId: 'telnyx-inbox-sweep',
          taskQueue,
        }),
      ),
    );
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

/** A schedule every `interval`; a run still going when the next is due skips it (the next pass takes the rest). */
function repeating(scheduleId: string, interval: Duration, action: ScheduleOptionsAction): ScheduleOptions {
  return { scheduleId, spec: { intervals: [{ every: interval }] }, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } };
}

/**
 * A monthly schedule at `hour`:00 UTC on the 1st, for work on the month that just ended: every run is kept
 * (buffered, and caught up for 30 days after an outage), since each one's nominal time names its month.
 */
function monthlyOnTheFirst(scheduleId: string, at: { hour: number; comment: string }, action: ScheduleOptionsAction): ScheduleOptions {
  return {
    scheduleId,
    spec: { calendars: [{ dayOfMonth: 1, hour: at.hour, minute: 0, second: 0, comment: at.comment }], timezone: 'UTC' },
    action,
    policies: { overlap: ScheduleOverlapPolicy.BUFFER_ALL, catchupWindow: '30 days' },
  };
}
