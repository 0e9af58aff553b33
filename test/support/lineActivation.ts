import type { Client } from '@temporalio/client';
import { workflowIds } from '../../workflows/definitions/ids';
import { eventually } from './eventually';

/**
 * What a line's provisioning workflow has done so far, for a test that gave up waiting on it:
 * its status, each history event with its offset from the start, and any pending activity with
 * its attempt and last failure. A slow provisioning then says where the time went.
 */
export async function provisioningReport(temporal: Client, lineId: string): Promise<string> {
  const handle = temporal.workflow.getHandle(workflowIds.provisionLine(lineId));
  try {
    const description = await handle.describe();
    const history = await handle.fetchHistory();
    const started = description.startTime.getTime();
    const events = (history.events ?? []).map((event) => {
      const at = event.eventTime?.seconds
        ? Number(event.eventTime.seconds) * 1000 + Math.round((event.eventTime.nanos ?? 0) / 1e6)
        : started;
      return `+${at - started}ms ${eventName(event)}`;
    });
    const pending = (description.raw.pendingActivities ?? []).map(
      (activity) =>
        `pending ${activity.activityType?.name} attempt ${activity.attempt} ${PENDING_STATES[activity.state ?? 0] ?? `state ${activity.state}`}` +
        (activity.lastFailure?.message ? ` last failure: ${activity.lastFailure.message}` : ''),
    );
    return [`workflow ${description.status.name}, started ${description.startTime.toISOString()}`, ...events, ...pending].join('\n  ');
  } catch (err) {
    return `no provisioning workflow to describe: ${(err as Error).message}`;
  }
}

/**
 * Polls `probe` (the line as the test reads it) until it is active. Waits up to 45 s by default:
 * under CI load a line took over 20 s twice, the first line of a freshly started worker each time.
 * On timeout, the error carries the provisioning workflow's history.
 */
export async function untilLineActive<T extends { status: string }>(
  temporal: Client,
  lineId: string,
  probe: () => Promise<T>,
  timeoutMs = 45_000,
): Promise<T> {
  let status = 'unread';
  try {
    return await eventually(
      async () => {
        const line = await probe();
        status = line.status;
        return status === 'active' ? line : undefined;
      },
      timeoutMs,
      `line ${lineId} to be active`,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message} (still ${status}):\n  ${await provisioningReport(temporal, lineId)}`, { cause: err });
  }
}

/** An event's kind, from the one `…EventAttributes` field it carries (e.g. `activityTaskScheduled`). */
function eventName(event: object): string {
  const attributes = Object.keys(event).find((field) => field.endsWith('EventAttributes'));
  return attributes ? attributes.replace(/EventAttributes$/, '') : 'unknown event';
}

/** `PendingActivityState` of Temporal's API. */
const PENDING_STATES: Record<number, string> = { 1: 'scheduled', 2: 'started', 3: 'cancel requested', 4: 'paused', 5: 'pause requested' };
