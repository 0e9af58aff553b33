import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';

/**
 * What became of a workflow start: `started`; `not_started` (the server says no such workflow
 * after the start failed); `unknown` (the server could not be asked either).
 */
export type StartOutcome = 'started' | 'not_started' | 'unknown';

/**
 * Starts a workflow under a new, business-derived id, and finds out what happened when the start
 * call fails: the server may have started it and the answer been lost (a deadline, a reset
 * connection), so a failure alone must not be compensated. The start is re-issued with the same
 * id (a second run of an id is refused, so "already started" means an earlier try went through)
 * and the server is asked with `describe()`. Never starts a second run of a finished workflow.
 * Typed by the workflow (`startResolvingAmbiguity<typeof xWorkflow>(client, 'xWorkflow', …)`), so
 * its `args` are checked against the workflow's parameters.
 */
export async function startResolvingAmbiguity<W extends Workflow = never>(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions<NoInfer<W>>,
  retry: { attempts: number; delayMs: number } = { attempts: 3, delayMs: 200 },
): Promise<StartOutcome> {
  let absent = false;
  for (let attempt = 0; attempt < retry.attempts; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, retry.delayMs * 2 ** (attempt - 1)));
    try {
      await client.workflow.start<W>(workflowType, { ...options, workflowIdReusePolicy: 'REJECT_DUPLICATE' });
      return 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'started';
    }
    try {
      await client.workflow.getHandle(options.workflowId).describe();
      return 'started';
    } catch (err) {
      absent = err instanceof WorkflowNotFoundError;
    }
  }
  return absent ? 'not_started' : 'unknown';
}

/**
 * A workflow did not start (or its start could not be confirmed) and what it was to take over
 * was compensated: nothing was done, and the request may be retried (the API answers 503 with
 * `Retry-After`, in words of its own).
 */
export class StartCompensatedError extends Error {
  constructor(
    readonly workflowType: string,
    readonly workflowId: string,
    readonly outcome: Exclude<StartOutcome, 'started'>,
  ) {
    super(`${workflowType} ${workflowId} was not started (${outcome}); the work was compensated`);
    this.name = 'StartCompensatedError';
  }
}

/**
 * Starts a workflow for work already recorded, resolving an ambiguous start first
 * (`startResolvingAmbiguity`). When it did not start, or that cannot be known, `compensate` is
 * asked to undo the record; it answers whether it did (it may decline: a workflow that did start
 * may have claimed the work, or an unconfirmed start may be left to the recovery sweeper). A
 * compensated start throws `StartCompensatedError`; otherwise the outcome is returned. Typed by
 * the workflow, as `startResolvingAmbiguity`.
 */
export async function startOrCompensate<W extends Workflow = never>(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions<NoInfer<W>>,
  compensate: (outcome: Exclude<StartOutcome, 'started'>) => Promise<boolean>,
): Promise<StartOutcome> {
  const outcome = await startResolvingAmbiguity<W>(client, workflowType, options);
  if (outcome !== 'started' && (await compensate(outcome))) throw new StartCompensatedError(workflowType, options.workflowId, outcome);
  return outcome;
}

/** Awaits a start that a retry may repeat: "already started" means an earlier try went through. */
export async function ignoringAlreadyStarted(start: Promise<unknown>): Promise<void> {
  try {
    await start;
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
