import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { callWorkflow } from '../../../workflows/calls/workflow';
import { startAttempt, type AttemptDeps, type AttemptRef } from './attempt';
import { dispatchCampaign, type DispatchStep } from './dispatch';
import { claimsPerDialStep } from './rules';

/**
 * A step of a dispatcher that places its calls itself: as {@link DispatchStep}, or this many contacts
 * claimed, the next step's first dial due at `nextDialAtMs` (epoch ms: a spacing after this step's last).
 */
export type CallsDialStep = Exclude<DispatchStep, { kind: 'dial' }> | { kind: 'dialled'; count: number; nextDialAtMs: number };

/**
 * The dispatcher's step (issue 31, durable at scale): claims at most a step's span of contacts at the
 * campaign's pace (./rules.ts `claimsPerDialStep`), places each claimed attempt as `POST /calls` would
 * (./attempt.ts `startAttempt`: its call recorded and held under the attempt's call id, calling hours
 * judged at the instant it is to be dialled) and starts the call's own workflow (id = call id), its
 * start delayed by its place in the pace from `notBeforeMs` (the previous step's next dial, or now if
 * later). Time is the dispatcher's (`atMs`, its workflow's clock). The call's workflow settles the attempt and wakes the campaign when it ends. Run again (its
 * activity retried), the claim answers the same contacts, their calls are found where they were
 * recorded, and a workflow already started (or ended) is not started again.
 */
export async function dialCampaignCalls(
  deps: AttemptDeps,
  campaignId: string,
  step: { token: string; atMs: number; notBeforeMs: number },
): Promise<CallsDialStep> {
  // The step's clock: the dispatcher's own time at the step (its workflow task's), moving on with the work's real time,
  // never behind the wall clock (a task picked up late must not judge calling hours early). In service that is the wall
  // clock; on a time-skipping test server, the server's time, which only ever skips ahead of it.
  const startedAt = Date.now();
  const now = () => new Date(Math.max(Date.now(), step.atMs + (Date.now() - startedAt)));
  deps = { ...deps, now, publish: { ...deps.publish, now } };
  const dispatched = await dispatchCampaign({ ...deps.publish, log: deps.log }, campaignId, step.token, {
    perStep: (campaign) => claimsPerDialStep(campaign.calls_per_minute),
  });
  return dispatched.kind === 'dial' ? dialClaimed(deps, campaignId, dispatched, step.notBeforeMs) : dispatched;
}

/** Places each claimed attempt and starts its call's workflow at its place in the pace (see {@link dialCampaignCalls}). */
async function dialClaimed(
  deps: AttemptDeps,
  campaignId: string,
  step: Extract<DispatchStep, { kind: 'dial' }>,
  notBeforeMs: number,
): Promise<CallsDialStep> {
  const firstDialAt = Math.max(deps.now().getTime(), notBeforeMs);
  const judgedAt = deps.callingHoursNow ?? deps.now;
  await Promise.all(
    step.attempts.map(async ({ contactId, attempt }, index) => {
      const dialAt = firstDialAt + index * step.spacingMs;
      const ref: AttemptRef = { campaignId, contactId, attempt };
      // Calling hours apply at the dial, not at the claim: the window may close within the step.
      const placed = await startAttempt(
        { ...deps, callingHoursNow: () => new Date(judgedAt().getTime() + dialAt - deps.now().getTime()) },
        ref,
      );
      if (placed.kind !== 'placed') return;
      const delayMs = dialAt - deps.now().getTime();
      // A delay, not an instant: the server counts it from the start request on its own clock.
      await deps.temporal.workflow
        .start<typeof callWorkflow>('callWorkflow', {
          taskQueue: deps.config.taskQueue,
          workflowId: placed.callId,
          args: [{ ...placed.call, campaignAttempt: ref }],
          // A call's workflow that has ended is not run again: its attempt was settled.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          ...(delayMs > 0 ? { startDelay: delayMs } : {}),
        })
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        });
    }),
  );
  return { kind: 'dialled', count: step.attempts.length, nextDialAtMs: firstDialAt + step.attempts.length * step.spacingMs };
}
