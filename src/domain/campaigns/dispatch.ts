import type { UseCaseDeps } from '../useCaseDeps';
import { dialSpacingMs } from './rules';
import { claimDueContacts, countDialing, lockCampaign, nextDueAt, setCampaignStatus } from './store';

/**
 * The dispatcher's next step: the campaign has ended; or it waits (paused: until woken; before its
 * start: until then; nothing due: until the next retry is due, or until an attempt ends when every
 * slot is taken, `untilMs` null); or these contacts' attempts are to be dialled, `spacingMs` apart.
 */
export type DispatchStep =
  | { kind: 'ended' }
  | { kind: 'wait'; untilMs: number | null }
  | { kind: 'dial'; attempts: Array<{ contactId: string; attempt: number }>; spacingMs: number };

/**
 * Decides the campaign's next step under a lock of its row, and claims the contacts to dial for
 * the dispatcher's step `token` (run again, the same contacts: ./store.ts `claimDueContacts`). A
 * running campaign with no contact waiting and none being dialled is completed here.
 */
export async function dispatchCampaign(deps: Pick<UseCaseDeps, 'db' | 'now'>, campaignId: string, token: string): Promise<DispatchStep> {
  const now = deps.now();
  return deps.db.transaction(async (trx) => {
    const campaign = await lockCampaign(trx, campaignId);
    if (!campaign) throw new Error(`campaign ${campaignId} does not exist`);
    if (campaign.status === 'completed' || campaign.status === 'cancelled') return { kind: 'ended' };
    if (campaign.status === 'paused') return { kind: 'wait', untilMs: null };
    if (campaign.start_at > now) return { kind: 'wait', untilMs: campaign.start_at.getTime() };
    if (campaign.status === 'scheduled') await setCampaignStatus(trx, campaignId, { status: 'running', at: now });
    const dialing = await countDialing(trx, campaignId);
    const claimed = await claimDueContacts(trx, campaignId, token, campaign.max_concurrency - dialing, now);
    if (claimed.length > 0)
      return {
        kind: 'dial',
        attempts: claimed.map((contact) => ({ contactId: contact.id, attempt: contact.attempts })),
        spacingMs: dialSpacingMs(campaign.calls_per_minute),
      };
    const due = await nextDueAt(trx, campaignId);
    if (due === null && dialing === 0) {
      await setCampaignStatus(trx, campaignId, { status: 'completed', at: now });
      return { kind: 'ended' };
    }
    return { kind: 'wait', untilMs: due !== null && due > now ? due.getTime() : null };
  });
}
