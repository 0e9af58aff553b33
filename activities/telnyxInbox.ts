import type { Client } from '@temporalio/client';
import type { TelnyxInboxPorts } from '../src/domain/telnyxInbox/apply';
import { processReceiptsOf } from '../src/domain/telnyxInbox/process';
import { sweepTelnyxInbox } from '../src/domain/telnyxInbox/sweep';
import type { Config } from '../src/platform/config';
import type { Db } from '../src/platform/db/knex';
import type { Logger } from '../src/platform/logger';

export interface TelnyxInboxActivityDeps {
  db: Db;
  temporal: () => Client;
  now: () => Date;
  /** Absent when no environment is on Telnyx: the sweep has nothing to do. */
  telnyxInbox?: { config: Config; ports: TelnyxInboxPorts; log: Logger };
}

const inboxDeps = (deps: TelnyxInboxActivityDeps, inbox: NonNullable<TelnyxInboxActivityDeps['telnyxInbox']>) => ({
  config: inbox.config,
  db: deps.db,
  temporal: deps.temporal(),
  now: deps.now,
  log: inbox.log,
  telnyx: inbox.ports,
});

/** The Telnyx inbox sweeper's pass (src/domain/telnyxInbox/sweep.ts). */
export function createTelnyxInboxActivities(deps: TelnyxInboxActivityDeps) {
  return {
    async sweepTelnyxInbox(): Promise<{ processed: number }> {
      const inbox = deps.telnyxInbox;
      if (!inbox) return { processed: 0 };
      return { processed: await sweepTelnyxInbox(inboxDeps(deps, inbox)) };
    },
  };
}

/** For the send activity: receipts stored before a message's Telnyx id was recorded are processed once it is. */
export function receiptsWaitingFor(deps: TelnyxInboxActivityDeps): ((carrierMessageId: string) => Promise<number>) | undefined {
  const inbox = deps.telnyxInbox;
  return inbox && ((carrierMessageId) => processReceiptsOf(inboxDeps(deps, inbox), carrierMessageId));
}

export type TelnyxInboxActivities = ReturnType<typeof createTelnyxInboxActivities>;
