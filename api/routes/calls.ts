import crypto from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { refuseHold } from '../billingErrors';
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { allowedLineIds, assertLineAllowed } from '../lineAccess';
import { arrayOf, errorResponse, fields, jsonResponse, offsetPaginationParams, jsonRequestBody, ref, total } from '../openapi/schemas';
import type { PathParameter, RouteDef } from './types';
import { placeHold } from '../../src/domain/billing/holds';
import { hasDefaultPaymentMethod } from '../../src/domain/billing/paymentMethods';
import { oneMinuteReserveCents, zoneOf } from '../../src/domain/billing/pricing';
import { isPremiumRate } from '../../src/domain/calls/fraud';
import { endActiveCall } from '../../src/domain/calls/hangup';
import { ACTIVE_CALL_STATUSES, CALL_STATUSES, type CallStatus } from '../../src/domain/calls/rules';
import { callOpening, failUnclaimedCall, toCallRecord, type CallRow } from '../../src/domain/calls/store';
import { activeConsent } from '../../src/domain/compliance/consent';
import { isOptedOut } from '../../src/domain/compliance/optOuts';
import { findLine } from '../../src/domain/lines/store';
import { toE164 } from '../../src/platform/phone';
import { startResolvingAmbiguity } from '../../src/platform/temporal/starts';
import { waitForResult } from '../../src/platform/temporal/waitForResult';
import type { CallInput } from '../../workflows/definitions/calls';
import { DEFAULT_RESPONSE_TIMEOUT_SECONDS, DTMF_DIGITS, MAX_RESPONSE_TIMEOUT_SECONDS, pressUpdate, speakUpdate, waitUpdate } from '../../workflows/definitions/callControl';
import { conversationBeginMessage, conversationSystemPrompt, MAX_CONVERSATION_SECONDS, MAX_TOPIC_LENGTH, MIN_CONVERSATION_SECONDS } from '../../src/domain/calls/conversation';

/**
 * Placing and reading calls. `POST /calls` refuses in a fixed order, each check only after the
 * previous passed: scope and tier (auth), validation, the line, `line_no_webhook`,
 * `number_opted_out`, `consent_required` (compliance-enabled lines only), `call_in_progress`
 * (a unique index), `m3_fraud_block`, then the one-minute reservation (`agent_cap_exceeded`,
 * `insufficient_credits`).
 */
function callsOf(ctx: AppContext, deps: AppDeps) {
  const principal = principalOf(ctx);
  return deps.db<CallRow>('calls').where({ workspace_id: principal.workspaceId, environment: principal.environment });
}

/** An unknown call id, and one that cannot be a call id at all (the path parameter's `x-not-found`), answer alike. */
const callNotFound = { code: 'call_not_found', message: 'No call with this id' };
const callIdParam: PathParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, 'x-not-found': callNotFound };

async function findCall(ctx: AppContext, deps: AppDeps): Promise<CallRow> {
  const principal = principalOf(ctx);
  const row = await callsOf(ctx, deps).andWhere({ id: ctx.params.id }).first();
  if (!row) throw new ApiError(404, callNotFound.code, callNotFound.message);
  assertLineAllowed(principal, row.line_id);
  return row;
}

/** A conversation call: the service talks, with a system prompt built from the topic. */
interface ConversationOptions {
  topic: string;
  beginMessage: string | null;
  maxDurationSec: number | null;
}

async function placeCall(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { line_id: string; to_number: string };
  await dial(ctx, deps, body, null);
}

async function placeConversationCall(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { line_id: string; to_number: string; topic: string; begin_message?: string; max_duration_seconds?: number };
  if (body.topic.trim() === '') throw errors.validation([{ field: 'topic', message: 'Must not be blank' }]);
  await dial(ctx, deps, body, { topic: body.topic.trim(), beginMessage: body.begin_message?.trim() || null, maxDurationSec: body.max_duration_seconds ?? null });
}

async function dial(ctx: AppContext, deps: AppDeps, body: { line_id: string; to_number: string }, conversation: ConversationOptions | null): Promise<void> {
  const principal = principalOf(ctx);
  const to = toE164(body.to_number);
  if (!to) throw errors.validation([{ field: 'to_number', message: 'Must be a valid phone number in E.164 (+14155550123)' }]);
  assertLineAllowed(principal, body.line_id);
  const line = await findLine(deps.db, principal, body.line_id);
  if (!line) throw errors.notFound('Line');
  if (line.status !== 'active' || !line.phone_number) throw new ApiError(409, 'line_not_active', `The line is ${line.status}; calls need an active line`);
  // The spec's condition is the line's own URL: a workspace default_webhook_url receives events, not a call's conversation (D9).
  if (line.mode === 'webhook' && !line.webhook_url) throw new ApiError(422, 'line_no_webhook', 'This webhook line has no webhook_url');
  if (await isOptedOut(deps.db, principal, to)) throw new ApiError(403, 'number_opted_out', 'This number has opted out of calls and messages from this workspace');
  if (line.compliance_enabled && !(await activeConsent(deps.db, principal, line.id, to, 'explicit_outbound'))) {
    throw new ApiError(403, 'consent_required', 'This line checks consent: record an explicit_outbound consent for the number first');
  }

  // A conversation call is a hosted conversation whatever the line's mode, and billed as one.
  const mode = conversation ? 'hosted' : line.mode;
  const systemPrompt = conversation ? conversationSystemPrompt(conversation.topic) : line.system_prompt;
  const beginMessage = conversation ? (conversation.beginMessage ?? conversationBeginMessage(conversation.topic)) : line.begin_message;
  const zone = zoneOf(to);
  const reserve = oneMinuteReserveCents(mode, zone);
  const callId = crypto.randomUUID();
  const now = deps.now();
  const row = await deps.db.transaction(async (trx) => {
    let inserted: CallRow;
    try {
      [inserted] = await trx<CallRow>('calls')
        .insert({
          id: callId,
          workspace_id: principal.workspaceId,
          environment: principal.environment,
          line_id: line.id,
          actor_key_id: principal.key.id,
          direction: 'outbound',
          from_number: line.phone_number!,
          to_number: to,
          status: 'initiated',
          mode,
          zone,
          system_prompt: systemPrompt,
          begin_message: beginMessage,
          topic: conversation?.topic ?? null,
          max_duration_sec: conversation?.maxDurationSec ?? null,
          created_at: now,
        })
        .returning('*');
    } catch (err) {
      if ((err as { constraint?: string }).constraint === 'calls_one_active_per_line') throw new ApiError(409, 'call_in_progress', 'This line already has an active call');
      throw err;
    }
    if (isPremiumRate(to) && !(await hasDefaultPaymentMethod(trx, principal.userId, principal.environment))) {
      // No details on purpose: the heuristic is not explained to whoever trips it.
      throw new ApiError(403, 'm3_fraud_block', 'This destination is blocked');
    }
    const hold = await placeHold(trx, { tenant: principal, keyId: principal.key.id, reference: `call:${callId}`, amountCents: reserve, at: now });
    if (!hold.ok) throw refuseHold(hold.refusal, { deps, tenant: principal, log: ctx.state.log });
    return inserted;
  });

  const input: CallInput = {
    callId,
    workspaceId: principal.workspaceId,
    environment: principal.environment,
    lineId: line.id,
    keyId: principal.key.id,
    direction: 'outbound',
    from: row.from_number,
    to,
    mode,
    zone,
    reservePerMinuteCents: reserve,
    ...(await callOpening(deps.db, line)),
    ...(conversation ? { systemPrompt, beginMessage, languagePinned: false, ...(conversation.maxDurationSec ? { maxDurationMs: conversation.maxDurationSec * 1000 } : {}) } : {}),
  };
  // A failed start is not compensated blindly: the server may have started the workflow and the
  // answer been lost. The start is resolved first; then the call is failed (and its hold
  // released) only if no workflow has taken it over, which the workflow's first step records.
  const started = await startResolvingAmbiguity(deps.temporal, 'callWorkflow', { taskQueue: deps.config.taskQueue, workflowId: callId, args: [input] });
  if (started !== 'started') {
    ctx.state.log.error({ call_id: callId, start: started }, 'could not start the call workflow');
    if (await failUnclaimedCall(deps.db, { callId, tenant: principal, endCause: 'service_error', at: deps.now() })) {
      throw new ApiError(503, 'service_unavailable', 'The call could not be placed right now; retry shortly', undefined, { 'Retry-After': '1' });
    }
  }
  ctx.state.log.info({ call_id: callId, line_id: line.id, zone }, 'call placed');
  ctx.status = 201;
  ctx.set('Location', `/api/v1/calls/${callId}`);
  ctx.body = { call: toCallRecord(row) };
}

async function listCalls(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { line_id?: string; status?: string; limit: number; offset: number };
  if (q.line_id) assertLineAllowed(principal, q.line_id);
  const allowed = allowedLineIds(principal);
  const filtered = () => {
    const query = callsOf(ctx, deps);
    if (q.line_id) query.andWhere({ line_id: q.line_id });
    else if (allowed) query.whereIn('line_id', [...allowed]);
    if (q.status) query.andWhere({ status: q.status });
    return query;
  };
  const [rows, [{ total }]] = await Promise.all([
    filtered().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(q.limit).offset(q.offset),
    filtered().count<{ total: string }[]>('id as total'),
  ]);
  ctx.body = { calls: rows.map(toCallRecord), total: Number(total) };
}

async function hangUp(ctx: AppContext, deps: AppDeps): Promise<void> {
  const row = await findCall(ctx, deps);
  if (ACTIVE_CALL_STATUSES.includes(row.status as CallStatus)) {
    // A call whose workflow is gone is ended by the recovery workflow instead (L11). Temporal's
    // limits and outages become 429/503 "retry later" in the error middleware (L4).
    const ending = await endActiveCall(deps.temporal, deps.config.taskQueue, row.id);
    // Answer with the ended call when it ends promptly (it usually does), else as it stands.
    await waitForResult(deps.temporal, ending, 5_000).catch(() => undefined);
  }
  const current = await callsOf(ctx, deps).andWhere({ id: row.id }).first();
  ctx.body = { call: toCallRecord(current ?? row) };
}

/**
 * Live control: each request is an update on the call's workflow (so it is in the history). A
 * call that is not live (not yet answered, or ended) is 409 `call_not_active`.
 */
async function control<T>(ctx: AppContext, deps: AppDeps, run: (handle: WorkflowHandle) => Promise<T>): Promise<void> {
  const row = await findCall(ctx, deps);
  const notActive = () => new ApiError(409, 'call_not_active', `The call is ${row.status}; live control needs a call in progress`);
  if (row.status !== 'in_progress') throw notActive();
  try {
    ctx.body = await run(deps.temporal.workflow.getHandle(row.id));
  } catch (err) {
    // Rejected by the validator (not live any more), or the workflow has finished.
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) throw notActive();
    // Temporal's limits and outages are "retry later" (429/503, api/middleware/errorMapping.ts), not a server error (L4).
    throw err;
  }
}

async function speak(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { text: string; wait_for_response?: boolean; timeout_seconds?: number };
  if (body.text.trim() === '') throw errors.validation([{ field: 'text', message: 'Must not be blank' }]);
  await control(ctx, deps, (handle) =>
    handle.executeUpdate(speakUpdate, { args: [{ text: body.text, waitForResponse: body.wait_for_response ?? false, timeoutSeconds: body.timeout_seconds ?? DEFAULT_RESPONSE_TIMEOUT_SECONDS }] }),
  );
}

async function wait(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = (ctx.state.body ?? {}) as { timeout_seconds?: number };
  await control(ctx, deps, (handle) => handle.executeUpdate(waitUpdate, { args: [{ timeoutSeconds: body.timeout_seconds ?? DEFAULT_RESPONSE_TIMEOUT_SECONDS }] }));
}

async function press(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { digits: string };
  await control(ctx, deps, (handle) => handle.executeUpdate(pressUpdate, { args: [{ digits: body.digits }] }));
}

const timeoutSeconds = { type: 'integer', minimum: 1, maximum: MAX_RESPONSE_TIMEOUT_SECONDS, default: DEFAULT_RESPONSE_TIMEOUT_SECONDS };
const callBody = fields({ call: ref('Call') });
const busyResponses = {
  '429': errorResponse('`rate_limited`: too many requests on this call at once (Temporal’s per-workflow limits); `Retry-After`'),
  '503': errorResponse('`service_unavailable`: the call service is unreachable or overloaded; `Retry-After`'),
};
const controlResponses = { '404': errorResponse('`call_not_found`'), '409': errorResponse('`call_not_active`: the call is not in progress'), ...busyResponses };

export function callRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/calls',
      operationId: 'placeCall',
      auth: { kind: 'standard', scope: 'calls:create', verb: 'call' },
      rateLimit: 'calls.create',
      idempotency: { required: false },
      doc: {
        summary: 'Place an outbound call from a line',
        description:
          'Refusals, in this order: validation (422), the line (404), `line_no_webhook` (422), `number_opted_out` (403), `consent_required` (403, compliance-enabled lines), ' +
          '`call_in_progress` (409), `m3_fraud_block` (403), `agent_cap_exceeded` (402), `insufficient_credits` (402). One minute is held before dialing.',
        tags: ['calls'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['line_id', 'to_number'],
          properties: { line_id: { type: 'string', format: 'uuid' }, to_number: { type: 'string', minLength: 3, maxLength: 32 } },
        }),
        responses: {
          '201': jsonResponse('`{call}` with status `initiated`', callBody),
          '402': errorResponse('`insufficient_credits` or `agent_cap_exceeded` (details spent_cents, cap_cents, cycle_reset_at)'),
          '403': errorResponse('`number_opted_out`, `consent_required`, `m3_fraud_block`, `agent_permission_denied`, `forbidden`'),
          '404': errorResponse('`not_found`: the line'),
          '409': errorResponse('`call_in_progress`, `line_not_active`'),
          '503': errorResponse('`service_unavailable`: the call could not be started (nothing held, nothing dialled); `Retry-After`'),
        },
      },
      handler: placeCall,
    },
    {
      method: 'get',
      path: '/api/v1/calls',
      operationId: 'listCalls',
      rateLimit: 'reads',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: {
        summary: 'Calls, newest first',
        tags: ['calls'],
        parameters: [
          { name: 'line_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: [...CALL_STATUSES] } },
          ...offsetPaginationParams(),
        ],
        responses: { '200': jsonResponse('`{calls, total}`', fields({ calls: arrayOf(ref('Call')), total })) },
      },
      handler: listCalls,
    },
    {
      method: 'get',
      path: '/api/v1/calls/{id}',
      operationId: 'getCall',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: { summary: 'One call, with its transcript', tags: ['calls'], parameters: [callIdParam], responses: { '200': jsonResponse('`{call}`', callBody), '404': errorResponse('`call_not_found`') } },
      handler: async (ctx, deps) => {
        ctx.body = { call: toCallRecord(await findCall(ctx, deps)) };
      },
    },
    {
      method: 'post',
      path: '/api/v1/calls/{id}/hangup',
      operationId: 'hangUpCall',
      rateLimit: 'calls.control',
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      doc: {
        summary: 'Hang up a call (an empty body is fine); answers with the ended call',
        description:
          'Answers with the call once it has ended (usually at once), or as it stands after 5 s. Hanging up an ended call answers it unchanged. ' +
          'A call whose workflow is gone is ended by the recovery workflow (`end_cause: service_error`).',
        tags: ['calls'],
        parameters: [callIdParam],
        responses: { '200': jsonResponse('`{call}`', callBody), '404': errorResponse('`call_not_found`'), ...busyResponses },
      },
      handler: hangUp,
    },
    {
      method: 'post',
      path: '/api/v1/calls/conversation',
      operationId: 'placeConversationCall',
      auth: { kind: 'standard', scope: 'calls:create', verb: 'call' },
      rateLimit: 'calls.conversation',
      idempotency: { required: false },
      doc: {
        summary: 'Place a call that the service holds itself, about a topic',
        description:
          'The call is a hosted conversation whatever the line’s mode (billed at the hosted rate), with a system prompt built from `topic`; ' +
          '`begin_message` defaults to a greeting naming the topic; `max_duration_seconds` caps the call (10-900). ' +
          'The refusals of `POST /api/v1/calls` apply, in the same order. The 201 `{call}` shows the `system_prompt` and `begin_message` used.',
        tags: ['calls'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['line_id', 'to_number', 'topic'],
          properties: {
            line_id: { type: 'string', format: 'uuid' },
            to_number: { type: 'string', minLength: 3, maxLength: 32 },
            topic: { type: 'string', minLength: 1, maxLength: MAX_TOPIC_LENGTH },
            begin_message: { type: 'string', minLength: 1, maxLength: 1000 },
            max_duration_seconds: { type: 'integer', minimum: MIN_CONVERSATION_SECONDS, maximum: MAX_CONVERSATION_SECONDS },
          },
        }),
        responses: {
          '201': jsonResponse('`{call}` with status `initiated`, `system_prompt` and `begin_message`', callBody),
          '402': errorResponse('`insufficient_credits` or `agent_cap_exceeded`'),
          '403': errorResponse('`number_opted_out`, `consent_required`, `m3_fraud_block`, `agent_permission_denied`, `forbidden`'),
          '404': errorResponse('`not_found`: the line'),
          '409': errorResponse('`call_in_progress`, `line_not_active`'),
        },
      },
      handler: placeConversationCall,
    },
    {
      method: 'post',
      path: '/api/v1/calls/{id}/speak',
      operationId: 'speakOnCall',
      rateLimit: 'calls.control',
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      doc: {
        summary: 'Say something on a live call, optionally waiting for the answer',
        description:
          'Answers when the text has been played (or the caller talked over it: `interrupted`, with `partial_response_text` and `interruption_reason` ' +
          '`caller_interrupted_control`); with `wait_for_response`, then waits up to `timeout_seconds` for the caller’s next sentence. ' +
          'A sentence that answers a control request is not also sent as a `message` event (nor to the model on hosted lines).',
        tags: ['calls'],
        parameters: [callIdParam],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['text'],
          properties: { text: { type: 'string', minLength: 1, maxLength: 5000 }, wait_for_response: { type: 'boolean', default: false }, timeout_seconds: timeoutSeconds },
        }),
        responses: {
          '200': jsonResponse('Unwrapped `{call_id, spoke, interrupted, partial_response_text, interruption_reason, timed_out, response_text, response_timestamp}`', ref('SpeakResult')),
          ...controlResponses,
        },
      },
      handler: speak,
    },
    {
      method: 'post',
      path: '/api/v1/calls/{id}/wait',
      operationId: 'waitOnCall',
      rateLimit: 'calls.control',
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      doc: {
        summary: 'Wait for the caller’s next sentence on a live call',
        tags: ['calls'],
        parameters: [callIdParam],
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: false, properties: { timeout_seconds: timeoutSeconds } } } } },
        responses: { '200': jsonResponse('Unwrapped `{call_id, timed_out, response_text, response_timestamp}`', ref('WaitResult')), ...controlResponses },
      },
      handler: wait,
    },
    {
      method: 'post',
      path: '/api/v1/calls/{id}/press',
      operationId: 'pressOnCall',
      rateLimit: 'calls.control',
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      doc: {
        summary: 'Send DTMF digits on a live call',
        description: 'Digits `0-9`, `*`, `#`, and `w` for a half-second pause (up to 64). Answers once the carrier has played them.',
        tags: ['calls'],
        parameters: [callIdParam],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['digits'],
          properties: { digits: { type: 'string', pattern: DTMF_DIGITS.source } },
        }),
        responses: { '200': jsonResponse('Unwrapped `{call_id, pressed, digits}`', ref('PressResult')), ...controlResponses },
      },
      handler: press,
    },
  ];
}
