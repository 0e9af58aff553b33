import type { Client } from '@temporalio/client';
import { clearToolTransfer, sendToolSms, type BuiltInOutcome } from '../src/domain/tools/builtIns';
import { invokeFunctionTool, type ToolInvocation, type ToolInvocationDeps, type ToolOutcome } from '../src/domain/tools/invoke';
import { createLogger } from '../src/platform/logger';

export interface ToolActivityDeps extends ToolInvocationDeps {
  temporal: () => Client;
  taskQueue: string;
}

/**
 * The tools of hosted calls (src/domain/tools/): a customer's endpoint, and the built-ins that go
 * through the API's use cases. Each is one attempt (workflows/activityOptions.ts `toolCall`): a
 * tool may not be idempotent, and a caller is waiting; a lost attempt is an error result.
 */
export function createToolActivities(deps: ToolActivityDeps) {
  const log = createLogger('tools');
  const useCaseDeps = () => ({ db: deps.db, temporal: deps.temporal(), now: deps.now, config: { taskQueue: deps.taskQueue }, log });
  return {
    async callFunctionTool(invocation: ToolInvocation): Promise<ToolOutcome> {
      const outcome = await invokeFunctionTool(deps, invocation);
      log.info(
        {
          call_id: invocation.callId,
          tool: invocation.name,
          http_status: outcome.httpStatus,
          error: outcome.error,
          duration_ms: outcome.durationMs,
        },
        'tool called',
      );
      return outcome;
    },
    async clearToolTransfer(input: { callId: string; destination: unknown }): Promise<BuiltInOutcome> {
      return clearToolTransfer(useCaseDeps(), input.callId, input.destination);
    },
    async sendToolSms(input: { callId: string; text: unknown }): Promise<BuiltInOutcome> {
      return sendToolSms(useCaseDeps(), input.callId, input.text);
    },
  };
}

export type ToolActivities = ReturnType<typeof createToolActivities>;
