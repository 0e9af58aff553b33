import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type Workflow,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';

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
 */
export async function startResolvingAmbiguity(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions,
  retry: { attempts: number; delayMs: number } = { attempts: 3, delayMs: 200 },
): Promise<StartOutcome> {
  let absent = false;
  for (let attempt = 0; attempt < retry.attempts; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, retry.delayMs * 2 ** (attempt - 1)));
    try {
      await client.workflow.start(workflowType, { ...options, workflowIdReusePolicy: 'REJECT_DUPLICATE' });
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

/** A start whose effects were recorded first: the running workflow's handle, or the failure after they were undone. */
export type StartOrCompensateOutcome<T extends Workflow> =
  | { started: true; handle: WorkflowHandle<T> }
  | { started: false; err: unknown };

/**
 * Starts the workflow that carries on what the caller has just recorded. "Already started" is a
 * start (a retried request finds the first one's workflow). Any other failure runs `compensate`,
 * which undoes the record (or does nothing when the record is in a transaction the caller rolls
 * back), and is returned: the caller answers that the work could not start.
 */
export async function startOrCompensate<T extends Workflow>(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions<T>,
  compensate: (err: unknown) => Promise<void>,
): Promise<StartOrCompensateOutcome<T>> {
  try {
    return { started: true, handle: await client.workflow.start<T>(workflowType, options) };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      return { started: true, handle: client.workflow.getHandle<T>(options.workflowId) };
    }
    await compensate(err);
    return { started: false, err };
  }
}
