import { proxyActivities } from '@temporalio/workflow';
import type { MessageDispatchActivities } from '../activities/messageDispatch';
import * as options from './activityOptions';
import type { DispatchStrandedMessagesResult } from './definitions/messages';

const { dispatchStrandedMessages } = proxyActivities<MessageDispatchActivities>(options.messageSweep);

/**
 * The SMS dispatch sweep (a Temporal schedule every 5 s; src/main/schedules.ts): queued messages whose send workflow's
 * start was never confirmed (the accepting process died, Temporal was unreachable) get it now
 * (src/domain/messages/dispatch.ts).
 */
export async function sweepUndispatchedMessagesWorkflow(): Promise<DispatchStrandedMessagesResult> {
  return dispatchStrandedMessages();
}
