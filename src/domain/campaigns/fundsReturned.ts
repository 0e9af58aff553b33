import type { Client } from '@temporalio/client';
import type { Db } from '../../platform/db/knex';
import type { Logger } from '../../platform/logger';
import type { Tenant } from '../lines/store';
import { campaignsPausedForFunds } from './store';
import { wakeCampaign } from './wake';

/**
 * Funds came back to the tenant's account (an auto-recharge credited, by the workflow or a Stripe webhook): each campaign that paused
 * itself for funds is woken, and its dispatcher resumes it if a reservation would now be granted
 * (src/domain/campaigns/dispatch.ts). Waking is harmless when nothing changed, so it is sent on every
 * report of a charge that succeeded; a wake lost to a crash is made up by the dispatcher's own
 * recheck (`FUNDS_RECHECK_MS`). Never throws: the funds stand whatever happens here.
 */
export async function wakeCampaignsPausedForFunds(deps: { db: Db; temporal: Client; log: Logger }, tenant: Tenant): Promise<number> {
  try {
    const campaigns = await campaignsPausedForFunds(deps.db, tenant);
    // A paused campaign's workflow that is not running starts on its next control (control.ts): nothing to wake.
    for (const campaign of campaigns) await wakeCampaign(deps.temporal, campaign.id);
    return campaigns.length;
  } catch (err) {
    deps.log.error({ err, workspace_id: tenant.workspaceId }, 'could not wake the campaigns paused for funds');
    return 0;
  }
}
