import type { Client } from '@temporalio/client';
import { workflowIds } from '../../workflows/definitions/ids';
import { eventually } from './eventually';
import { workflowReport } from './workflowReport';

/** What a line's provisioning workflow has done so far (`workflowReport`), for a test that gave up waiting on it. */
export function provisioningReport(temporal: Client, lineId: string): Promise<string> {
  return workflowReport(temporal, workflowIds.provisionLine(lineId), 'provisioning workflow');
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
