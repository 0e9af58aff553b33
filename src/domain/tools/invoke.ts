import { currentSecret } from '../lines/secrets';
import type { DeliveryAttemptDeps } from '../webhooks/attempt';
import { post } from '../webhooks/post';
import { signatureHeaders } from '../webhooks/signature';
import { argumentsProblem, declaredTool, isBuiltIn, parseArguments, TOOL_LIMITS, toolTimeoutMs } from './declarations';

/** What a tool call needs is what a webhook delivery needs: the database, the egress policy, the sealing key, a clock. */
export type ToolInvocationDeps = DeliveryAttemptDeps;

/** One call of a customer's tool, as the call's workflow asks for it. */
export interface ToolInvocation {
  callId: string;
  /** The model's id of the call. */
  toolCallId: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
  /** The delivery id the request is signed with: fixed by the workflow, so a receiver can tell a repeat. */
  deliveryId: string;
}

/** What came of it: `result` is what the model is given (the answer, or `{"error": ...}`). */
export interface ToolOutcome {
  result: string;
  error: string | null;
  httpStatus: number | null;
  durationMs: number;
}

/** What the model is told when a tool failed: a JSON object it can read and talk about. */
export function errorResult(error: string): string {
  return JSON.stringify({ error });
}

/**
 * Calls a customer's tool: the arguments are checked against its schema (the model is told what
 * is wrong rather than the endpoint called), then POSTed to its endpoint through the egress policy,
 * signed like a webhook with the line's current secret (`x-service-*` headers), within the tool's
 * time budget and TOOL_LIMITS.maxResultBytes. A 200 answer is the result; anything else is an
 * error result, never a thrown error: the call goes on either way.
 */
export async function invokeFunctionTool(deps: ToolInvocationDeps, invocation: ToolInvocation): Promise<ToolOutcome> {
  const started = deps.now();
  const failed = (error: string, httpStatus: number | null = null): ToolOutcome => ({
    result: errorResult(error),
    error,
    httpStatus,
    durationMs: deps.now().getTime() - started.getTime(),
  });
  const call = await deps.db('calls').where({ id: invocation.callId }).first('id', 'line_id', 'tools', 'metadata');
  const tool = call ? declaredTool(call.tools ?? [], invocation.name) : null;
  if (!call || !tool || isBuiltIn(tool)) return failed(`no tool named ${invocation.name}`);
  const args = parseArguments(invocation.arguments);
  if (!args.ok) return failed(args.problem);
  const problem = argumentsProblem(tool, args.value);
  if (problem) return failed(`invalid arguments: ${problem}`);
  const secret = await currentSecret(deps.db, deps.secretsKey(), call.line_id as string);
  if (!secret) return failed('the line has no signing secret');
  const body = JSON.stringify({
    event: 'tool_call',
    call_id: call.id,
    line_id: call.line_id,
    tool_call_id: invocation.toolCallId,
    name: tool.name,
    arguments: args.value,
    metadata: call.metadata ?? {},
  });
  const timeoutMs = toolTimeoutMs(tool);
  const answer = await post(deps, {
    url: tool.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Switchboard-Tools/1',
      ...signatureHeaders({ secret, deliveryId: invocation.deliveryId, rawBody: body, attempt: 1, now: started }),
    },
    body,
    timeoutMs,
    expectsReply: false,
    readLimitBytes: TOOL_LIMITS.maxResultBytes,
    keepsBody: true,
  });
  if (answer.error !== null) return failed(answer.error, answer.httpStatus);
  const result = answer.body && answer.body.trim() !== '' ? answer.body : '{}';
  return { result, error: null, httpStatus: answer.httpStatus, durationMs: deps.now().getTime() - started.getTime() };
}
