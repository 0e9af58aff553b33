import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { campaignWorkflow } from '../../../workflows/campaigns';
import { campaignWakeSignal } from '../../../workflows/definitions/campaigns';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { Tenant } from '../lines/store';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { publishDepsOf } from '../webhooks/publish';
import { changeCampaignStatus, publishCampaignEvents } from './events';
import type { EventRow } from '../webhooks/record';
import type { CampaignStatus } from './rules';
import { cancelPendingContacts, findCampaign, lockCampaign, type CampaignRow } from './store';

export type CampaignControl = 'pause' | 'resume' | 'cancel';

/** A campaign that has ended cannot be paused, resumed or cancelled (409 `campaign_ended`). */
export class CampaignEndedError extends Error {
  constructor(readonly status: CampaignStatus) {
    super(`the campaign is ${status}`);
    this.name = 'CampaignEndedError';
  }
}

/** What each control makes of a campaign that may still dial: the same state again is a no-op (a retry answers alike). */
function controlled(control: CampaignControl, campaign: CampaignRow, now: Date): CampaignStatus {
  if (control === 'cancel') return 'cancelled';
  if (control === 'pause') return 'paused';
  return campaign.start_at > now ? 'scheduled' : 'running';
}

/**
 * Pauses (no new dial; calls in progress go on to their end), resumes (also a campaign that paused
 * itself: funds are checked again at the next dial) or cancels (contacts still waiting are
 * `cancelled`; calls in progress end as they would) a campaign, then wakes its workflow. The wake
 * starts the workflow if it is missing (a crash between recording the campaign and starting it).
 * Answers the campaign as it now is; undefined when the tenant has no such campaign.
 */
export async function controlCampaign(
  deps: LoggedUseCaseDeps,
  tenant: Tenant,
  campaignId: string,
  control: CampaignControl,
): Promise<CampaignRow | undefined> {
  const now = deps.now();
  let event: EventRow | null = null;
  const changed = await deps.db.transaction(async (trx) => {
    if (!(await findCampaign(trx, tenant, campaignId))) return undefined;
    const campaign = (await lockCampaign(trx, campaignId))!;
    if (campaign.status === 'completed' || campaign.status === 'cancelled') throw new CampaignEndedError(campaign.status);
    const status = controlled(control, campaign, now);
    // The waiting contacts first, so that `campaign.cancelled` tells the progress as the cancel left it.
    if (status === 'cancelled') await cancelPendingContacts(trx, campaignId, now);
    if (status !== campaign.status || campaign.paused_reason !== null)
      ({ event } = await changeCampaignStatus(trx, campaign, { status, at: now }));
    return (await findCampaign(trx, tenant, campaignId))!;
  });
  if (!changed) return undefined;
  await publishCampaignEvents({ ...publishDepsOf(deps), log: deps.log }, [event]);
  try {
    await deps.temporal.workflow.signalWithStart<typeof campaignWorkflow>('campaignWorkflow', {
      taskQueue: deps.config.taskQueue,
      workflowId: workflowIds.campaign(campaignId),
      args: [{ campaignId }],
      signal: campaignWakeSignal,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    // Its workflow has already finished (a cancelled campaign's ends at its next look): nothing to wake.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return changed;
}
