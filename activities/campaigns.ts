import { settleAttempt, settleCampaignCall, startAttempt, type AttemptRef, type AttemptStart } from '../src/domain/campaigns/attempt';
import { dialCampaignCalls, type CallsDialStep } from '../src/domain/campaigns/dial';
import { dialCampaign, dispatchCampaign, type DialStep, type DispatchStep } from '../src/domain/campaigns/dispatch';
import type { Client } from '@temporalio/client';
import type { CampaignCallEnd } from '../workflows/definitions/campaigns';
import type { Config } from '../src/platform/config';
import type { SecretsKeyRing } from '../src/platform/crypto/secretBox';
import type { Db } from '../src/platform/db/knex';
import type { EgressPolicy } from '../src/platform/net/egress';
import { createLogger } from '../src/platform/logger';

export interface CampaignActivityDeps {
  config: Config;
  db: Db;
  temporal: () => Client;
  taskQueue: string;
  /** The campaign's events go out through the webhook delivery: its egress policy and the lines' signing keys. */
  egress: EgressPolicy;
  secretsKey: () => SecretsKeyRing;
  now: () => Date;
  callingHoursNow?: () => Date;
}

/** Thin adapters between the campaign workflows and src/domain/campaigns. */
export function createCampaignActivities({
  config,
  db,
  temporal,
  taskQueue,
  egress,
  secretsKey,
  now,
  callingHoursNow,
}: CampaignActivityDeps) {
  const log = createLogger('campaigns');
  const publish = { db, temporal, taskQueue, egress, secretsKey, now };
  // The workflows a campaign starts (its calls, the auto-charge) go to this worker's task queue.
  const ownConfig = { ...config, taskQueue };
  const deps = () => ({ config: ownConfig, db, temporal: temporal(), log, now, publish, ...(callingHoursNow ? { callingHoursNow } : {}) });
  return {
    async dispatchCampaign(campaignId: string, token: string): Promise<DispatchStep> {
      return dispatchCampaign({ ...publish, log }, campaignId, token);
    },
    async dialCampaign(campaignId: string, token: string): Promise<DialStep> {
      return dialCampaign({ ...publish, log, config }, campaignId, token);
    },
    async dialCampaignCalls(campaignId: string, step: { token: string; atMs: number; notBeforeMs: number }): Promise<CallsDialStep> {
      return dialCampaignCalls(deps(), campaignId, step);
    },
    async settleCampaignCall(ended: CampaignCallEnd): Promise<void> {
      await settleCampaignCall(deps(), ended);
    },
    async startCampaignAttempt(ref: AttemptRef): Promise<AttemptStart> {
      return startAttempt(deps(), ref);
    },
    async settleCampaignAttempt(ref: AttemptRef): Promise<void> {
      await settleAttempt(deps(), ref);
    },
  };
}

export type CampaignActivities = ReturnType<typeof createCampaignActivities>;
