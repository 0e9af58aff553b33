import type { Client } from '@temporalio/client';
import { dispatchStrandedMessages } from '../src/domain/messages/dispatch';
import type { Db } from '../src/platform/db/knex';
import { createLogger } from '../src/platform/logger';
import type { DispatchStrandedMessagesResult } from '../workflows/definitions/messages';

export interface MessageDispatchActivityDeps {
  db: Db;
  /** The worker's Temporal client and task queue: the sweep starts send workflows there. */
  temporal: () => Client;
  taskQueue: string;
  now: () => Date;
}

/** The SMS dispatch sweep's one activity (src/domain/messages/dispatch.ts). */
export function createMessageDispatchActivities({ db, temporal, taskQueue, now }: MessageDispatchActivityDeps) {
  const log = createLogger('messages');
  return {
    /** Starts the send workflow of queued messages that have none confirmed. */
    async dispatchStrandedMessages(): Promise<DispatchStrandedMessagesResult> {
      return dispatchStrandedMessages({ db, temporal: temporal(), config: { taskQueue }, now, log });
    },
  };
}

export type MessageDispatchActivities = ReturnType<typeof createMessageDispatchActivities>;
