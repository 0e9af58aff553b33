import { proxyActivities } from '@temporalio/workflow';
import type { TelnyxInboxActivities } from '../activities/telnyxInbox';
import * as options from './activityOptions';

const { sweepTelnyxInbox } = proxyActivities<TelnyxInboxActivities>(options.inboxSweep);

/**
 * The Telnyx inbox sweeper (a Temporal schedule, every 5 s): stored Telnyx webhooks the API did not process
 * (it died after answering, processing failed, or the event waits for its message or recording).
 */
export async function sweepTelnyxInboxWorkflow(): Promise<{ processed: number }> {
  return sweepTelnyxInbox();
}
