import type { callWorkflow } from '../../../workflows/calls/workflow';
import type { CallInput } from '../../../workflows/definitions/calls';
import { startOrCompensate } from '../../platform/temporal/starts';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { failUnclaimedCall } from './store';

/**
 * Starts a recorded call's workflow (workflow id = call id). A failed start is not compensated
 * blindly: the server may have started the workflow and the answer been lost. The start is
 * resolved first; then the call is failed (and its hold released) only if no workflow has taken
 * it over, which the workflow's first step records (`claimCall`), and `StartCompensatedError`
 * is thrown: nothing was held or dialled, and the request may be retried.
 */
export async function startCallWorkflow(deps: LoggedUseCaseDeps, input: CallInput, failure: string): Promise<void> {
  const { callId, workspaceId, environment } = input;
  await startOrCompensate<typeof callWorkflow>(
    deps.temporal,
    'callWorkflow',
    { taskQueue: deps.config.taskQueue, workflowId: callId, args: [input] },
    async (outcome) => {
      deps.log.error({ call_id: callId, start: outcome }, failure);
      return failUnclaimedCall(deps.db, { callId, tenant: { workspaceId, environment }, endCause: 'service_error', at: deps.now() });
    },
  );
}
