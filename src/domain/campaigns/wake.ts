import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { campaignWakeSignal } from '../../../workflows/definitions/campaigns';
import { workflowIds } from '../../../workflows/definitions/ids';

/**
 * Wakes a campaign's dispatcher to look at its rows again (workflows/campaigns.ts). A campaign whose
 * workflow is not running (ended, or started again by its next control) has nothing to wake: false.
 */
export async function wakeCampaign(temporal: Client, campaignId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(workflowIds.campaign(campaignId)).signal(campaignWakeSignal);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
