import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { CampaignAttemptInput } from '../../../workflows/definitions/campaigns';
import { workflowIds } from '../../../workflows/definitions/ids';
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
  deps: Pick<UseCaseDeps, 'db' | 'now' | 'temporal' | 'config'>,
  campaignId: string,
  token: string,
): Promise<DialStep> {
  const step = await dispatchCampaign(deps, campaignId, token);
  if (step.kind !== 'dial') return step;
  await Promise.all(
    step.attempts.map((attempt, index) =>
      deps.temporal.workflow
        // By name: the workflow's module imports the activities that call this (a cycle); its input is the definitions'.
        .start('campaignAttemptWorkflow', {
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
