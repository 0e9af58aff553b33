import {
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { CampaignActivities } from '../activities/campaigns';
import * as options from './activityOptions';
import { campaignWakeSignal, type CampaignAttemptInput, type CampaignInput } from './definitions/campaigns';
import type { callWorkflow } from './calls/workflow';
import { workflowIds } from './definitions/ids';
import { patches } from './patches';

const store = proxyActivities<CampaignActivities>(options.store);
const localStore = proxyLocalActivities<CampaignActivities>(options.localStore);

/** A dispatcher run continues as new past this many history events (Temporal suggests it well before its own limits). */
const HISTORY_EVENTS_PER_RUN = 5_000;
/** A step that dials runs this long before its first dial is due, so that the step's own work does not slow the pace. */
const DIAL_STEP_LEAD_MS = 250;

/**
 * A campaign, from its start time to its last contact (workflow id `campaign:<id>`). The campaign's
 * rows are the truth (src/domain/campaigns): each step asks them what to do, claims what it can dial
 * within a couple of seconds at the campaign's pace, places those calls and starts each call's own
 * workflow delayed by its place in the pace (`dialCampaignCalls`, one workflow task a step however many
 * it dials), then sleeps until just before the next dial is due; otherwise it sleeps on a durable timer
 * until the next retry is due or until woken (a call ended, or an operator paused, resumed or cancelled).
 * Each call settles its attempt and wakes the campaign when it ends, and outlives a dispatcher run, so a
 * long campaign continues as new with its history bounded and nothing in flight lost. Older runs keep
 * their own way of dialling (one attempt workflow a contact; workflows/patches.ts).
 */
export async function campaignWorkflow(input: CampaignInput): Promise<void> {
  let woken = false;
  setHandler(campaignWakeSignal, () => {
    woken = true;
  });
  const dialsCalls = patched(patches.campaignDialsCalls);
  const dialsInBatches = dialsCalls || patched(patches.campaignDialBatch);
  // When the next dial is due at the campaign's pace (epoch ms): each step's first dial comes no sooner.
  let nextDialAt = 0;
  for (let step = 0; ; step += 1) {
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > HISTORY_EVENTS_PER_RUN) return continueAsNew<typeof campaignWorkflow>(input);
    woken = false;
    const token = `${info.runId}:${step}`;
    if (dialsCalls) {
      // Judged on the workflow's clock (so a time-skipping test server moves it too).
      const next = await localStore.dialCampaignCalls(input.campaignId, { token, atMs: Date.now(), notBeforeMs: nextDialAt });
      if (next.kind === 'ended') return;
      if (next.kind === 'dialled') {
        // The next step runs a little before its first dial is due, so that its own work does not slow the pace.
        nextDialAt = next.nextDialAtMs;
        await sleep(Math.max(1, nextDialAt - DIAL_STEP_LEAD_MS - Date.now()));
      } else await waitToDispatch(next.untilMs, () => woken);
      continue;
    }
    if (dialsInBatches) {
      const next = await localStore.dialCampaign(input.campaignId, token);
      if (next.kind === 'ended') return;
      // The pace holds across steps: the next step's first dial comes no sooner than a spacing after this one's last.
      if (next.kind === 'dialled') await sleep(next.nextDialInMs);
      else await waitToDispatch(next.untilMs, () => woken);
      continue;
    }
    const next = await store.dispatchCampaign(input.campaignId, token);
    if (next.kind === 'ended') return;
    if (next.kind === 'wait') {
      await waitToDispatch(next.untilMs, () => woken);
      continue;
    }
    for (const [index, attempt] of next.attempts.entries()) {
      if (index > 0) await sleep(next.spacingMs);
      await startChild(campaignAttemptWorkflow, {
        workflowId: workflowIds.campaignAttempt(attempt.contactId, token),
        args: [{ campaignId: input.campaignId, ...attempt }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    }
    // The pace holds across steps too: the next step's first dial comes no sooner than a spacing after this one's last.
    await sleep(next.spacingMs);
  }
}

/** Until woken, or until `untilMs` (epoch ms) when given. */
async function waitToDispatch(untilMs: number | null, woken: () => boolean): Promise<void> {
  if (untilMs === null) await condition(woken);
  else await condition(woken, Math.max(1, untilMs - Date.now()));
}

/**
 * One attempt of one contact: place its call (src/domain/campaigns/attempt.ts; the call id comes
 * from the attempt's identity, so a retried placement finds its call), run the call's own workflow
 * as a child (workflow id = call id, started once), record what it came to, and wake the campaign.
 */
export async function campaignAttemptWorkflow(input: CampaignAttemptInput): Promise<void> {
  const placed = await store.startCampaignAttempt(input);
  if (placed.kind === 'placed') {
    try {
      await executeChild<typeof callWorkflow>('callWorkflow', {
        workflowId: placed.callId,
        args: [placed.call],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (err) {
      // A call workflow that failed still leaves its row to say how the call ended; anything else is not ours to absorb.
      if (!(err instanceof ChildWorkflowFailure)) throw err;
    }
    await store.settleCampaignAttempt(input);
  }
  // Refused only when the campaign has ended (cancelled while this call went on): nobody is left to wake.
  await getExternalWorkflowHandle(workflowIds.campaign(input.campaignId))
    .signal(campaignWakeSignal)
    .catch(() => undefined);
}
