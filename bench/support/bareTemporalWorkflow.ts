/**
 * The bare-Temporal baseline of `bench:webhooks`: today's shape without Switchboard's code, one
 * workflow per event running one activity that POSTs the body (loaded by the bench's second worker).
 */
import { proxyActivities } from '@temporalio/workflow';

export interface BarePostActivities {
  postEvent(url: string, body: Record<string, unknown>): Promise<number>;
}

const { postEvent } = proxyActivities<BarePostActivities>({ startToCloseTimeout: '30 seconds' });

export async function barePostWorkflow(url: string, body: Record<string, unknown>): Promise<number> {
  return postEvent(url, body);
}
