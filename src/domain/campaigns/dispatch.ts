import type { Knex } from 'knex';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { CampaignAttemptInput, CampaignAttemptWorkflow } from '../../../workflows/definitions/campaigns';
import { workflowIds } from '../../../workflows/definitions/ids';
import { holdRefusalNow } from '../billing/holds';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { PublishDeps } from '../webhooks/publish';
import { changeCampaignStatus, publishCampaignEvents } from './events';
import type { EventRow } from '../webhooks/record';
import { dialSpacingMs, FUNDS_PAUSED_REASONS, FUNDS_RECHECK_MS, type PausedReason } from './rules';
import { claimDueContacts, countDialing, lockCampaign, nextDueAt, type CampaignRow } from './store';

/**
 * The dispatcher's next step: the campaign has ended; or it waits (paused: until woken, or until
 * it looks again whether funds have returned; before its start: until then; nothing due: until the
 * next retry is due, or until an attempt ends when every slot is taken, `untilMs` null); or these
 * contacts' attempts are to be dialled, `spacingMs` apart.
 */
export type DispatchStep =
  | { kind: 'ended' }
  | { kind: 'wait'; untilMs: number | null }
  | { kind: 'dial'; attempts: Array<{ contactId: string; attempt: number }>; spacingMs: number };

export type DispatchDeps = PublishDeps & { log: Logger };

const pausedForFunds = (campaign: CampaignRow) =>
  campaign.status === 'paused' && (FUNDS_PAUSED_REASONS as readonly PausedReason[]).includes(campaign.paused_reason!);

/**
 * A campaign that paused itself for funds: resumed (its `campaign.resumed` recorded) when a reservation
 * of what its refused one asked for would be granted now; else when to look again (the recheck, or the
 * key's cap resetting if sooner). An operator's pause is never lifted here.
 */
async function resumeIfFundsReturned(
  trx: Knex.Transaction,
  campaign: CampaignRow,
  now: Date,
): Promise<{ resumed: CampaignRow; event: EventRow | null } | { recheckAt: number }> {
  const refusal = await holdRefusalNow(trx, {
    tenant: { workspaceId: campaign.workspace_id, environment: campaign.environment },
    keyId: campaign.actor_key_id,
    amountCents: Number(campaign.paused_need_cents ?? 0),
    at: now,
  });
  if (refusal) {
    const recheckAt = now.getTime() + FUNDS_RECHECK_MS;
    const resetAt = refusal.code === 'agent_cap_exceeded' ? refusal.cycleResetAt?.getTime() : undefined;
    return { recheckAt: resetAt !== undefined ? Math.min(recheckAt, Math.max(resetAt, now.getTime() + 1)) : recheckAt };
  }
  const status = campaign.start_at > now ? 'scheduled' : 'running';
  const { campaign: resumed, event } = await changeCampaignStatus(trx, campaign, { status, at: now }, 'funds_returned');
  return { resumed, event };
}

/**
 * Decides the campaign's next step under a lock of its row, and claims the contacts to dial for
 * the dispatcher's step `token` (run again, the same contacts: ./store.ts `claimDueContacts`). A
 * running campaign with no contact waiting and none being dialled is completed here. The events of
 * the changes it makes (started, resumed, completed) are recorded with them and attempted after the commit.
 */
export async function dispatchCampaign(
  deps: DispatchDeps,
  campaignId: string,
  token: string,
  claims: { perStep?: (campaign: CampaignRow) => number } = {},
): Promise<DispatchStep> {
  const now = deps.now();
  const events: Array<EventRow | null> = [];
  const step = await deps.db.transaction(async (trx): Promise<DispatchStep> => {
    let campaign = await lockCampaign(trx, campaignId);
    if (!campaign) throw new Error(`campaign ${campaignId} does not exist`);
    if (campaign.status === 'completed' || campaign.status === 'cancelled') return { kind: 'ended' };
    if (pausedForFunds(campaign)) {
      const funds = await resumeIfFundsReturned(trx, campaign, now);
      if ('recheckAt' in funds) return { kind: 'wait', untilMs: funds.recheckAt };
      events.push(funds.event);
      campaign = funds.resumed;
    }
    if (campaign.status === 'paused') return { kind: 'wait', untilMs: null };
    if (campaign.start_at > now) return { kind: 'wait', untilMs: campaign.start_at.getTime() };
    if (campaign.status === 'scheduled') {
      const started = await changeCampaignStatus(trx, campaign, { status: 'running', at: now });
      events.push(started.event);
      campaign = started.campaign;
    }
    const dialing = await countDialing(trx, campaignId);
    const free = campaign.max_concurrency - dialing;
    const claimed = await claimDueContacts(trx, campaignId, token, Math.min(free, claims.perStep?.(campaign) ?? free), now);
    if (claimed.length > 0)
      return {
        kind: 'dial',
        attempts: claimed.map((contact) => ({ contactId: contact.id, attempt: contact.attempts })),
        spacingMs: dialSpacingMs(campaign.calls_per_minute),
      };
    const due = await nextDueAt(trx, campaignId);
    if (due === null && dialing === 0) {
      events.push((await changeCampaignStatus(trx, campaign, { status: 'completed', at: now })).event);
      return { kind: 'ended' };
    }
    return { kind: 'wait', untilMs: due !== null && due > now ? due.getTime() : null };
  });
  await publishCampaignEvents(deps, events);
  return step;
}

/** The dispatcher's step once it dials itself (`dialCampaign`): as {@link DispatchStep}, or this many dialled, the next dial due in `nextDialInMs`. */
export type DialStep = Exclude<DispatchStep, { kind: 'dial' }> | { kind: 'dialled'; count: number; nextDialInMs: number };

/**
 * The dispatcher's step, dialling what it claimed: each claimed contact's attempt workflow is
 * started now, its start delayed by its place in the pace (the n-th after n spacings), so the
 * dispatcher spends one workflow task on a step however many it dials. Run again (its activity
 * retried), the claim answers the same contacts and their workflows, already started, are not
 * started twice (the id is the contact's and the step's).
 */
export async function dialCampaign(
  deps: DispatchDeps & { config: Pick<Config, 'taskQueue'> },
  campaignId: string,
  token: string,
): Promise<DialStep> {
  const step = await dispatchCampaign(deps, campaignId, token);
  if (step.kind !== 'dial') return step;
  const client = deps.temporal();
  await Promise.all(
    step.attempts.map((attempt, index) =>
      client.workflow
        .start<CampaignAttemptWorkflow>('campaignAttemptWorkflow', {
          taskQueue: deps.config.taskQueue,
          workflowId: workflowIds.campaignAttempt(attempt.contactId, token),
          args: [{ campaignId, ...attempt } satisfies CampaignAttemptInput],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          ...(index > 0 ? { startDelay: index * step.spacingMs } : {}),
        })
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }),
    ),
  );
  return { kind: 'dialled', count: step.attempts.length, nextDialInMs: step.attempts.length * step.spacingMs };
}
