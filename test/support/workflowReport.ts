import type { Client } from '@temporalio/client';

/**
 * What a workflow has done so far, for a test that gave up waiting on it: its status, each history event
 * with its offset from the start, and any pending activity with its attempt and last failure. A slow or
 * stuck process then says where the time went. `what` names it when there is none to describe.
 */
export async function workflowReport(temporal: Client, workflowId: string, what = 'workflow'): Promise<string> {
  const handle = temporal.workflow.getHandle(workflowId);
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
    return `no ${what} to describe: ${(err as Error).message}`;
  }
}

/** An event's kind, from the one `…EventAttributes` field it carries (e.g. `activityTaskScheduled`). */
function eventName(event: object): string {
  const attributes = Object.keys(event).find((field) => field.endsWith('EventAttributes'));
  return attributes ? attributes.replace(/EventAttributes$/, '') : 'unknown event';
}

/** `PendingActivityState` of Temporal's API. */
const PENDING_STATES: Record<number, string> = { 1: 'scheduled', 2: 'started', 3: 'cancel requested', 4: 'paused', 5: 'pause requested' };
