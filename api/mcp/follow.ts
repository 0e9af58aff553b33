import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { errors } from '../errors';
import { inlineRefs } from '../openapi/document';
import { ref } from '../openapi/schemas';
import type { RouteDef } from '../routeTable';
import { isActiveCallStatus } from '../../src/domain/calls/rules';
import { CALL_ID, described } from './catalogue';
import type { ApiAnswer, Dispatch } from './dispatch';
import type { Tool } from './tool';

/**
 * follow_call: a call's events as they happen, on the tool's own answer stream. Stateless, like the
 * rest of /mcp: the call is read through `GET /api/v1/calls/{id}` (so the key's scope, tier, line
 * binding and a revocation apply to every read) every FOLLOW_POLL_MS, and each change of the
 * record (status, transcript, recording) is an event. Nothing is kept between requests, so any API
 * process can follow any call whichever process or worker changes it.
 */
export const FOLLOW_POLL_MS = 500;
export const DEFAULT_FOLLOW_SECONDS = 50;
/** A call lasts at most 15 minutes. */
export const MAX_FOLLOW_SECONDS = 900;
/** A progress notification at least this often keeps a client that resets its timeout on progress waiting. */
const KEEPALIVE_MS = 15_000;

const EVENT_TYPES = ['status', 'transcript', 'recording'] as const;
/** What follow_call waits for: the call's end, or its answer (an outbound call placed a moment ago). */
const UNTIL = ['ended', 'answered'] as const;
/** Not answered yet: still dialling or ringing. */
const beforeAnswer = (status: string) => status === 'initiated' || status === 'ringing';
const nullableString = { type: ['string', 'null'] };

export function followCallTool(getCall: RouteDef): Tool {
  const idParameter = (getCall.doc.parameters ?? []).find((p) => p.name === 'id');
  if (!idParameter) throw new Error('MCP tool follow_call: getCall has no id parameter');
  const title = 'Follow a call as it happens';
  return {
    name: 'follow_call',
    title,
    description:
      'Follows a call until it ends (or timeout_seconds) and returns every event seen: status changes (ringing, in_progress, completed…), each transcript ' +
      'entry as it is said, and the recording. With a progress token (the SDK client’s onprogress), each event also arrives at once as a progress ' +
      'notification whose message is the event as JSON, and a notification every 15 s keeps the request alive (set resetTimeoutOnProgress to follow longer ' +
      'than your request timeout). Use it after place_call or wait_for_call instead of calling get_call repeatedly. ' +
      'With until: "answered", it returns as soon as the call is answered (`answered: true`, status in_progress) or ended unanswered: call it right ' +
      'after place_call, then speak. ' +
      'If refused: `call_not_found`: no call with this id is visible to you: check the id (list_calls).',
    annotations: { title, readOnlyHint: true, openWorldHint: false },
    inputSchema: {
      type: 'object',
      properties: {
        id: described(inlineRefs(idParameter.schema), CALL_ID),
        timeout_seconds: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_FOLLOW_SECONDS,
          default: DEFAULT_FOLLOW_SECONDS,
          description: 'Stop following after this many seconds even if the call goes on (the answer then has `timed_out: true`)',
        },
        until: {
          type: 'string',
          enum: [...UNTIL],
          default: 'ended',
          description: '`ended`: follow the call to its end; `answered`: return once it is answered (or ended without an answer)',
        },
      },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['call', 'events', 'ended', 'answered', 'timed_out'],
      properties: {
        call: { ...inlineRefs(ref('Call')), description: 'The call as it stood at the last look' },
        events: {
          type: 'array',
          items: {
            type: 'object',
            required: ['type'],
            properties: {
              type: { type: 'string', enum: [...EVENT_TYPES] },
              status: { type: 'string' },
              end_cause: nullableString,
              answered_by: nullableString,
              transferred_to: nullableString,
              index: { type: 'integer', minimum: 0, description: 'transcript: the entry’s place in the transcript' },
              role: { type: 'string' },
              text: { type: 'string' },
              timestamp: { type: 'string' },
              recording_url: { type: 'string' },
            },
          },
        },
        ended: { type: 'boolean', description: 'The call has ended' },
        answered: { type: 'boolean', description: 'The call was answered (it is in progress, or was before it ended)' },
        timed_out: { type: 'boolean', description: 'timeout_seconds passed while the call went on' },
      },
    },
    route: getCall,
    placement: { id: { in: 'path', name: 'id' } },
    workspaceWide: false,
    streams: true,
  };
}

type CallRecord = {
  status: string;
  started_at: string | null;
  end_cause: string | null;
  answered_by: string | null;
  transferred_to: string | null;
  recording_url: string | null;
  transcript: Array<{ role: string; text: string; timestamp: string }> | null;
};
type FollowEvent = Record<string, unknown> & { type: (typeof EVENT_TYPES)[number] };

export interface FollowContext {
  signal: AbortSignal;
  progressToken?: string | number;
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

/** Runs follow_call; `refusal` turns an API answer that is not 2xx into the tool's error result. */
export async function followCall(
  args: Record<string, unknown>,
  dispatch: Dispatch,
  context: FollowContext,
  refusal: (answer: ApiAnswer) => CallToolResult,
): Promise<CallToolResult> {
  const { id, timeout_seconds: timeout = DEFAULT_FOLLOW_SECONDS, until = 'ended', ...unknown } = args;
  const problems = [
    ...Object.keys(unknown).map((field) => ({ field, message: 'Unknown field' })),
    ...((UNTIL as readonly unknown[]).includes(until) ? [] : [{ field: 'until', message: `Must be one of ${UNTIL.join(', ')}` }]),
    ...(Number.isInteger(timeout) && (timeout as number) >= 1 && (timeout as number) <= MAX_FOLLOW_SECONDS
      ? []
      : [{ field: 'timeout_seconds', message: `Must be an integer from 1 to ${MAX_FOLLOW_SECONDS}` }]),
  ];
  if (problems.length > 0) return refusal({ status: 422, headers: {}, body: errors.validation(problems).toBody() });
  const read = () => dispatch({ method: 'GET', path: `/api/v1/calls/${encodeURIComponent(String(id ?? ''))}`, signal: context.signal });

  const events: FollowEvent[] = [];
  let progress = 0;
  let lastSent = Date.now();
  const notify = async (message: string) => {
    if (context.progressToken === undefined || context.signal.aborted) return;
    progress += 1;
    lastSent = Date.now();
    await context.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: context.progressToken, progress, message },
    });
  };
  const emit = async (found: FollowEvent[]) => {
    for (const event of found) {
      events.push(event);
      await notify(JSON.stringify(event));
    }
  };

  let answer = await read();
  if (answer.status !== 200) return refusal(answer);
  let call = (answer.body as { call: CallRecord }).call;
  await emit(changes(undefined, call));
  const deadline = Date.now() + (timeout as number) * 1000;
  const waiting = (status: string) => (until === 'answered' ? beforeAnswer(status) : isActiveCallStatus(status));
  while (waiting(call.status) && Date.now() < deadline && !context.signal.aborted) {
    try {
      await sleep(Math.min(FOLLOW_POLL_MS, deadline - Date.now()), undefined, { signal: context.signal });
    } catch {
      break;
    }
    answer = await read();
    // A refusal mid-way (the key revoked, the rate limit) ends the follow with it.
    if (answer.status !== 200) return refusal(answer);
    const next = (answer.body as { call: CallRecord }).call;
    await emit(changes(call, next));
    call = next;
    if (Date.now() - lastSent >= KEEPALIVE_MS) await notify(JSON.stringify({ type: 'keepalive', status: call.status }));
  }
  const ended = !isActiveCallStatus(call.status);
  const answered = call.status === 'in_progress' || call.started_at !== null;
  const result = { call, events, ended, answered, timed_out: waiting(call.status) && !context.signal.aborted };
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

/** The events between two looks at a call (from nothing: its state so far). */
function changes(before: CallRecord | undefined, after: CallRecord): FollowEvent[] {
  const found: FollowEvent[] = [];
  const statusOf = (c: CallRecord) => ({
    status: c.status,
    end_cause: c.end_cause,
    answered_by: c.answered_by,
    transferred_to: c.transferred_to,
  });
  if (!before || JSON.stringify(statusOf(before)) !== JSON.stringify(statusOf(after))) found.push({ type: 'status', ...statusOf(after) });
  const seen = before?.transcript ?? [];
  (after.transcript ?? []).forEach((entry, index) => {
    if (JSON.stringify(seen[index]) !== JSON.stringify(entry)) found.push({ type: 'transcript', index, ...entry });
  });
  if (after.recording_url && after.recording_url !== before?.recording_url)
    found.push({ type: 'recording', recording_url: after.recording_url });
  return found;
}
