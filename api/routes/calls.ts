import type { ToolDeclaration } from '../../src/domain/tools/declarations';
import crypto from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, carrierError } from '../errors';
import { allowedLineIds, assertLineAllowed } from '../lineAccess';
import { NOT_BLANK_PATTERN, phoneNumber, tools, TOOLS_DESCRIPTION } from '../openapi/fields';
import {
  arrayOf,
  carrierErrorResponse,
  errorResponse,
  fields,
  jsonResponse,
  offsetPaginationParams,
  jsonRequestBody,
  ref,
  total,
} from '../openapi/schemas';
import { answeringOutboundRefusals } from '../outboundRefusals';
import type { PathParameter, RouteDef } from '../routeTable';
import { MAX_CONVERSATION_SECONDS, MAX_TOPIC_LENGTH, MIN_CONVERSATION_SECONDS } from '../../src/domain/calls/conversation';
import { endActiveCall } from '../../src/domain/calls/hangup';
import { placeCall, type PlaceCallRequest } from '../../src/domain/calls/place';
import {
  MAX_METADATA_KEYS,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_VALUE_LENGTH,
  MAX_VARIABLES,
  MAX_VARIABLE_VALUE_LENGTH,
  METADATA_KEY_PATTERN,
  VARIABLE_NAME_PATTERN,
} from '../../src/domain/calls/personalization';
import { clearTransferDestination } from '../../src/domain/calls/transfer';
import { CALL_STATUSES, isActiveCallStatus } from '../../src/domain/calls/rules';
import { callsOfTenant, filteredCallsOf, toCallRecord, type CallRow } from '../../src/domain/calls/store';
import { recordingStorageOfCall } from '../../src/domain/recordings/copyState';
import { waitForResult } from '../../src/platform/temporal/waitForResult';
import {
  DEFAULT_RESPONSE_TIMEOUT_SECONDS,
  DTMF_DIGITS,
  MAX_RESPONSE_TIMEOUT_SECONDS,
  pressUpdate,
  speakUpdate,
  transferUpdate,
  WAIT_IN_PROGRESS,
  waitUpdate,
  withdrawWaitSignal,
} from '../../workflows/definitions/callControl';
import { carrierRefusalOfFailure } from '../../workflows/definitions/failures';
import { offsetPage } from '../pagination';
import { sendCallRecording } from '../recordings';

/*
 * Placing, reading and controlling calls. `POST /calls` refuses in a fixed order, each check only
 * after the previous passed: scope and tier (auth), validation, then the use case's own
 * (src/domain/calls/place.ts): the line, `line_no_webhook`, `number_opted_out`,
 * `consent_required` (compliance-enabled lines only), `call_in_progress` (a unique index),
 * `m3_fraud_block`, `outside_calling_hours` (src/domain/callingHours), then the one-minute reservation
 * (`agent_cap_exceeded`, `insufficient_credits`).
 */

function callsOf(ctx: AppContext, deps: AppDeps) {
  return callsOfTenant(deps.db, principalOf(ctx));
}

/** An unknown call id, and one that cannot be a call id at all (the path parameter's `x-not-found`), answer alike. */
const callNotFound = { code: 'call_not_found', message: 'No call with this id' };
const callIdParam: PathParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  'x-not-found': callNotFound,
};

async function findCall(ctx: AppContext, deps: AppDeps): Promise<CallRow> {
  const principal = principalOf(ctx);
  const row = await callsOf(ctx, deps).andWhere({ id: ctx.params.id }).first();
  if (!row) throw new ApiError(404, callNotFound.code, callNotFound.message);
  assertLineAllowed(principal, row.line_id);
  return row;
}

/** A recording's bodies, as `getCallRecording` answers them (api/recordings.ts). */
const RECORDING_CONTENT = Object.fromEntries(
  ['audio/wav', 'audio/mpeg', 'application/octet-stream'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
);

/** `machine_detection` of a placed call: `detect` asks the carrier who answers. */
export const MACHINE_DETECTION = { type: 'string', enum: ['detect', 'disabled'], default: 'disabled' };
const detects = (body: { machine_detection?: string }) => body.machine_detection === 'detect';

/** Per-call `variables` and `metadata` (src/domain/calls/personalization.ts), on both ways of placing a call. */
export const VARIABLES = {
  type: 'object',
  maxProperties: MAX_VARIABLES,
  propertyNames: { pattern: VARIABLE_NAME_PATTERN },
  additionalProperties: { type: 'string', maxLength: MAX_VARIABLE_VALUE_LENGTH },
  description:
    'Values for the `{{name}}` placeholders of the call’s system_prompt and begin_message, for this call only. Each must be used, and every placeholder ' +
    'then needs a value (422 `variables.<name>`); without `variables` the texts are used as written.',
  example: { first_name: 'Ada' },
};
export const METADATA = {
  type: 'object',
  maxProperties: MAX_METADATA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_METADATA_KEY_LENGTH, pattern: METADATA_KEY_PATTERN },
  additionalProperties: { type: 'string', maxLength: MAX_METADATA_VALUE_LENGTH },
  description: `Your own key-value pairs (up to ${MAX_METADATA_KEYS} keys of up to ${MAX_METADATA_KEY_LENGTH} characters, string values up to ${MAX_METADATA_VALUE_LENGTH}): kept on the call and echoed as \`metadata\` in every event of the call.`,
  example: { order_id: 'ord_1234' },
};
type Personalized = { variables?: Record<string, string>; metadata?: Record<string, string>; tools?: ToolDeclaration[] | null };
const personalization = (body: Personalized) => ({
  variables: body.variables,
  metadata: body.metadata,
  ...(body.tools ? { tools: body.tools } : {}),
});
/** A call's own tools, replacing the line's for this call (`[]`: none). */
const TOOLS = {
  ...tools,
  description: `${TOOLS_DESCRIPTION} Given, they replace the line’s tools for this call; \`[]\` offers none.`,
};

async function postCall(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { line_id: string; to_number: string; machine_detection?: string } & Personalized;
  await answerPlaced(ctx, deps, {
    lineId: body.line_id,
    toNumber: body.to_number,
    conversation: null,
    machineDetection: detects(body),
    ...personalization(body),
  });
}

async function postConversationCall(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as {
    line_id: string;
    to_number: string;
    topic: string;
    begin_message?: string;
    max_duration_seconds?: number;
    machine_detection?: string;
  } & Personalized;
  // Not blank: the schema's NOT_BLANK_PATTERN, checked by the validator.
  const topic = body.topic.trim();
  const conversation = { topic, beginMessage: body.begin_message?.trim() || null, maxDurationSec: body.max_duration_seconds ?? null };
  await answerPlaced(ctx, deps, {
    lineId: body.line_id,
    toNumber: body.to_number,
    conversation,
    machineDetection: detects(body),
    ...personalization(body),
  });
}

/**
 * Places the call (src/domain/calls/place.ts) and answers 201 with it, or with its refusal. The
 * idempotent answer commits with the call, so a retry after a crash replays it.
 */
async function answerPlaced(ctx: AppContext, deps: AppDeps, request: PlaceCallRequest): Promise<void> {
  const row = await answeringOutboundRefusals(ctx, deps, 'call', () =>
    placeCall({ ...deps, log: ctx.state.log }, principalOf(ctx), request, (trx, inserted) =>
      ctx.state.idempotency
        ? ctx.state.idempotency.completeInTransaction(trx, 201, { call: toCallRecord(inserted, deps.config.publicBaseUrl) })
        : Promise.resolve(),
    ),
  );
  ctx.status = 201;
  ctx.set('Location', `/api/v1/calls/${row.id}`);
  ctx.body = { call: toCallRecord(row, deps.config.publicBaseUrl) };
}

async function listCalls(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { line_id?: string; status?: string; limit: number; offset: number };
  if (q.line_id) assertLineAllowed(principal, q.line_id);
  const filters = { lineId: q.line_id, lineIds: allowedLineIds(principal), status: q.status };
  const { rows, total } = await offsetPage(() => filteredCallsOf(deps.db, principal, filters), q);
  ctx.body = { calls: rows.map((row) => toCallRecord(row, deps.config.publicBaseUrl)), total };
}

async function hangUp(ctx: AppContext, deps: AppDeps): Promise<void> {
  const row = await findCall(ctx, deps);
  if (isActiveCallStatus(row.status)) {
    // A call whose workflow is gone is ended by the recovery workflow instead (L11). Temporal's
    // limits and outages become 429/503 "retry later" in the error middleware (L4).
    const ending = await endActiveCall(deps.temporal, deps.config.taskQueue, row.id);
    // Answer with the ended call when it ends promptly (it usually does), else as it stands.
    await waitForResult(deps.temporal, ending, 5_000).catch(() => undefined);
  }
  const current = await callsOf(ctx, deps).andWhere({ id: row.id }).first();
  ctx.body = { call: toCallRecord(current ?? row, deps.config.publicBaseUrl) };
}

/**
 * Live control: each request is an update on the call's workflow (so it is in the history). A
 * call that is not live (not yet answered, or ended, also as the carrier says) is 409
 * `call_not_active`; a command the carrier refused otherwise is 502 `carrier_error` naming the
 * provider and its code (`action` says what was refused).
 */
async function control<T>(
  ctx: AppContext,
  deps: AppDeps,
  action: string,
  run: (handle: WorkflowHandle) => Promise<T>,
  found?: CallRow,
): Promise<void> {
  const row = found ?? (await findCall(ctx, deps));
  const notActive = () => new ApiError(409, 'call_not_active', `The call is ${row.status}; live control needs a call in progress`);
  if (row.status !== 'in_progress') throw notActive();
  try {
    ctx.body = await run(deps.temporal.workflow.getHandle(row.id));
  } catch (err) {
    const refusal = err instanceof WorkflowUpdateFailedError ? carrierRefusalOfFailure(err.cause) : undefined;
    if (refusal) {
      // The carrier's own words are in the call's history (the activity's failure).
      ctx.state.log.warn({ call_id: row.id, refusal }, 'the carrier refused a live-control command');
      throw carrierError(refusal, action);
    }
    // Another request already waits for the caller (the validator's refusal).
    if (err instanceof WorkflowUpdateFailedError && (err.cause as Error | undefined)?.message === WAIT_IN_PROGRESS)
      throw new ApiError(409, WAIT_IN_PROGRESS, 'Another request is already waiting for the caller on this call; one wait at a time');
    // Rejected by the validator (not live any more), refused as ended by the carrier, or the workflow has finished.
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) throw notActive();
    // Temporal's limits and outages are "retry later" (429/503, api/middleware/errorMapping.ts), not a server error (L4).
    throw err;
  }
}

/**
 * Names a wait for the caller and withdraws it from the call's workflow if this request's client
 * goes away before the answer is written (a closed connection, or an MCP client that gave up), so
 * the caller's next sentence goes to the next wait instead of a request nobody reads.
 */
function waitOfThisRequest(ctx: AppContext, handle: WorkflowHandle): string {
  const waitId = crypto.randomUUID();
  ctx.res.once('close', () => {
    if (ctx.res.writableFinished) return;
    ctx.state.log.info({ call_id: handle.workflowId, wait_id: waitId }, 'the client of a wait went away: withdrawing it');
    handle.signal(withdrawWaitSignal, { waitId }).catch((err: unknown) => {
      // The call has ended (its wait with it), or Temporal is unreachable: the wait then ends at its timeout.
      ctx.state.log.warn({ err, call_id: handle.workflowId, wait_id: waitId }, 'could not withdraw an abandoned wait');
    });
  });
  return waitId;
}

async function speak(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { text: string; wait_for_response?: boolean; timeout_seconds?: number };
  const waitForResponse = body.wait_for_response ?? false;
  await control(ctx, deps, 'speak on the call', (handle) =>
    handle.executeUpdate(speakUpdate, {
      args: [
        {
          text: body.text,
          waitForResponse,
          timeoutSeconds: body.timeout_seconds ?? DEFAULT_RESPONSE_TIMEOUT_SECONDS,
          ...(waitForResponse ? { waitId: waitOfThisRequest(ctx, handle) } : {}),
        },
      ],
    }),
  );
}

async function wait(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = (ctx.state.body ?? {}) as { timeout_seconds?: number };
  await control(ctx, deps, 'wait on the call', (handle) =>
    handle.executeUpdate(waitUpdate, {
      args: [{ timeoutSeconds: body.timeout_seconds ?? DEFAULT_RESPONSE_TIMEOUT_SECONDS, waitId: waitOfThisRequest(ctx, handle) }],
    }),
  );
}

async function press(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { digits: string };
  await control(ctx, deps, 'play the digits', (handle) => handle.executeUpdate(pressUpdate, { args: [{ digits: body.digits }] }));
}

/**
 * A blind transfer (src/domain/calls/transfer.ts clears the destination, the workflow's `transfer`
 * update dials it): answers once the destination answered or did not.
 */
async function transfer(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { to_number: string };
  const row = await findCall(ctx, deps);
  const to = await answeringOutboundRefusals(ctx, deps, 'call', () =>
    clearTransferDestination(deps.db, principalOf(ctx), row, body.to_number),
  );
  await control(ctx, deps, 'transfer the call', (handle) => handle.executeUpdate(transferUpdate, { args: [{ toNumber: to }] }), row);
}

const timeoutSeconds = { type: 'integer', minimum: 1, maximum: MAX_RESPONSE_TIMEOUT_SECONDS, default: DEFAULT_RESPONSE_TIMEOUT_SECONDS };
const callBody = fields({ call: ref('Call') });
/** `GET /calls/{id}`: the call record and where its copy into the operator's store stands (one call: a few reads more). */
const callWithStorageBody = fields({
  call: { allOf: [ref('Call'), fields({ recording_storage: ref('RecordingStorage') })] },
});
const busyResponses = {
  '429': errorResponse('`rate_limited`: too many requests on this call at once (Temporal’s per-workflow limits); `Retry-After`'),
  '503': errorResponse('`service_unavailable`: the call service is unreachable or overloaded; `Retry-After`'),
};
const controlResponses = {
  '404': errorResponse('`call_not_found`'),
  '409': errorResponse('`call_not_active`: the call is not in progress'),
  ...busyResponses,
};
/** Speak-and-wait and wait: one request waits for the caller at a time. */
const waitResponses = {
  ...controlResponses,
  '409': errorResponse(
    '`call_not_active`: the call is not in progress; `wait_in_progress`: another request is already waiting for the caller',
  ),
};
const CALLING_HOURS_RULES =
  ' Calling hours: a call is placed only within the calling window at the callee’s local time, derived from the number (every zone a number may be in ' +
  'must be open): 08:00–21:00 (the US federal rule, applied to every number), the stricter rules of the callee’s country (Australia, Canada, France, Spain) and US state (hours, Sundays, holidays) on top, and the workspace’s own ' +
  '`calling_window` (settings) narrowing it. Outside it the call is refused 403 `outside_calling_hours`, nothing held or dialled; `details` carry ' +
  '`next_open_at` (UTC ISO 8601, when the window next opens), `zone` (the callee zone that is closed) and `rule` (`us_federal`, `<cc>_national` such as `ca_national`, `us_state_<xx>` or `workspace`). ' +
  'When the workspace’s `calling_window` and those rules never overlap for the number (e.g. 20:00–21:00 and a state that ends at 20:00), the call is refused 403 ' +
  '`calling_window_never_opens` (details `zone`, `rule`): no retry helps until the `calling_window` changes.';

const WAIT_RULES =
  ' One request waits for the caller at a time (a second is 409 `wait_in_progress`); a wait whose client goes away is withdrawn, so the next sentence ' +
  'goes to the next wait; a call that ends while waiting answers `call_ended: true` (and `timed_out: false`). On an `agent` line, sentences said ' +
  'while no wait was pending are kept (the latest 20): a wait answers with the oldest of them first (`response_timestamp` says when it was said).';

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
          'unused or missing `variables` (422 `validation_error`, field `variables.<name>`), ' +
          '`call_in_progress` (409), `m3_fraud_block` (403), `outside_calling_hours` (403), `agent_cap_exceeded` (402), `insufficient_credits` (402). One minute is held before dialing. ' +
          CALLING_HOURS_RULES +
          '`machine_detection: detect` asks the carrier who answers: the call is reported answered once detection ended (a few seconds), and `answered_by` ' +
          '(`human`, `machine` or `unknown`) is on the call record and in `call_started`. A machine answer does not end the call: the agent decides.',
        tags: ['calls'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['line_id', 'to_number'],
          properties: {
            line_id: { type: 'string', format: 'uuid' },
            to_number: phoneNumber(),
            machine_detection: MACHINE_DETECTION,
            variables: VARIABLES,
            metadata: METADATA,
            tools: TOOLS,
          },
        }),
        responses: {
          '201': jsonResponse('`{call}` with status `initiated`', callBody),
          '402': errorResponse('`insufficient_credits` or `agent_cap_exceeded` (details spent_cents, cap_cents, cycle_reset_at)'),
          '403': errorResponse(
            '`number_opted_out`, `consent_required`, `m3_fraud_block`, `outside_calling_hours` (details `next_open_at`, `zone`, `rule`), `calling_window_never_opens`, `agent_permission_denied`, `forbidden`',
          ),
          '404': errorResponse('`not_found`: the line'),
          '409': errorResponse('`call_in_progress`, `line_not_active`'),
          '503': errorResponse('`service_unavailable`: the call could not be started (nothing held, nothing dialled); `Retry-After`'),
        },
      },
      handler: postCall,
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
      doc: {
        summary: 'One call, with its transcript',
        tags: ['calls'],
        parameters: [callIdParam],
        description:
          'Beyond the call record, `recording_storage`: where the copy of its recording and transcript into the operator’s store stands ' +
          '(a store that is down or refuses the credentials delays it: `retrying`, with the reason and the attempts so far).',
        responses: {
          '200': jsonResponse('`{call}` with `recording_storage`', callWithStorageBody),
          '404': errorResponse('`call_not_found`'),
        },
      },
      handler: async (ctx, deps) => {
        const row = await findCall(ctx, deps);
        ctx.body = {
          call: { ...toCallRecord(row, deps.config.publicBaseUrl), recording_storage: await recordingStorageOfCall(deps, row) },
        };
      },
    },
    {
      method: 'get',
      path: '/api/v1/calls/{id}/recording',
      operationId: 'getCallRecording',
      rateLimit: 'reads',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: {
        summary: 'The call’s recording (audio), seekable with Range',
        description:
          'The `recording_url` of a call. Once the recording is copied into the operator’s store (shortly after the call ends, or after a recording ' +
          'the carrier reports late), it is served from there: `Range: bytes=…` answers 206 with `Content-Range` (one range; several, or a malformed ' +
          'header, answer the whole recording), a range starting past the end answers 416 with `Content-Range: bytes */<size>`, and `ETag` is ' +
          'the recording’s SHA-256. Until then it is streamed from the carrier whole, whatever the Range (`Accept-Ranges: none`). ' +
          '`audio/wav` or `audio/mpeg`; anything else the carrier sends is `application/octet-stream`, as a download.',
        tags: ['calls'],
        parameters: [
          callIdParam,
          {
            name: 'Range',
            in: 'header',
            description: 'One byte range, e.g. `bytes=0-99`, `bytes=100-`, `bytes=-500`',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': { description: 'The whole recording', content: RECORDING_CONTENT },
          '206': { description: 'The range asked for (`Content-Range: bytes start-end/size`)', content: RECORDING_CONTENT },
          '404': errorResponse('`call_not_found`; `not_found`: the call has no recording (none was made, or it is not ready yet)'),
          '416': errorResponse('`range_not_satisfiable`: the range starts past the end (`Content-Range: bytes */<size>`)'),
          '503': errorResponse(
            '`service_unavailable`: neither the store nor the carrier can hand the recording over right now; `Retry-After`',
          ),
        },
      },
      handler: async (ctx, deps) => sendCallRecording(ctx, deps, await findCall(ctx, deps)),
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
          'The refusals of `POST /api/v1/calls` apply, in the same order. The 201 `{call}` shows the `system_prompt` and `begin_message` used ' +
          '(`variables` fill placeholders in the topic and begin_message as they do in a line’s texts).',
        tags: ['calls'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['line_id', 'to_number', 'topic'],
          properties: {
            line_id: { type: 'string', format: 'uuid' },
            to_number: phoneNumber(),
            topic: { type: 'string', minLength: 1, maxLength: MAX_TOPIC_LENGTH, pattern: NOT_BLANK_PATTERN },
            begin_message: { type: 'string', minLength: 1, maxLength: 1000 },
            max_duration_seconds: { type: 'integer', minimum: MIN_CONVERSATION_SECONDS, maximum: MAX_CONVERSATION_SECONDS },
            machine_detection: MACHINE_DETECTION,
            variables: VARIABLES,
            metadata: METADATA,
            tools: TOOLS,
          },
        }),
        responses: {
          '201': jsonResponse('`{call}` with status `initiated`, `system_prompt` and `begin_message`', callBody),
          '402': errorResponse('`insufficient_credits` or `agent_cap_exceeded`'),
          '403': errorResponse(
            '`number_opted_out`, `consent_required`, `m3_fraud_block`, `outside_calling_hours` (details `next_open_at`, `zone`, `rule`), `calling_window_never_opens`, `agent_permission_denied`, `forbidden`',
          ),
          '404': errorResponse('`not_found`: the line'),
          '409': errorResponse('`call_in_progress`, `line_not_active`'),
        },
      },
      handler: postConversationCall,
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
          'A sentence that answers a control request is not also sent as a `message` event (nor to the model on hosted lines).' +
          WAIT_RULES,
        tags: ['calls'],
        parameters: [callIdParam],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['text'],
          properties: {
            text: { type: 'string', minLength: 1, maxLength: 5000, pattern: NOT_BLANK_PATTERN },
            wait_for_response: { type: 'boolean', default: false },
            timeout_seconds: timeoutSeconds,
          },
        }),
        responses: {
          '200': jsonResponse(
            'Unwrapped `{call_id, spoke, interrupted, partial_response_text, interruption_reason, timed_out, call_ended, response_text, response_timestamp}`',
            ref('SpeakResult'),
          ),
          ...waitResponses,
          '502': carrierErrorResponse(
            'to speak (the call goes on; a carrier that says the call has ended is `interruption_reason: call_ended`)',
          ),
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
        description: `Answers with the caller's next sentence, or after \`timeout_seconds\` without one.${WAIT_RULES}`,
        tags: ['calls'],
        parameters: [callIdParam],
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: { type: 'object', additionalProperties: false, properties: { timeout_seconds: timeoutSeconds } },
            },
          },
        },
        responses: {
          '200': jsonResponse('Unwrapped `{call_id, timed_out, call_ended, response_text, response_timestamp}`', ref('WaitResult')),
          ...waitResponses,
        },
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
        responses: {
          '200': jsonResponse('Unwrapped `{call_id, pressed, digits}`', ref('PressResult')),
          ...controlResponses,
          '409': errorResponse('`call_not_active`: the call is not in progress, or the carrier says it has ended'),
          '502': carrierErrorResponse('the digits'),
        },
      },
      handler: press,
    },
    {
      method: 'post',
      path: '/api/v1/calls/{id}/transfer',
      operationId: 'transferCall',
      rateLimit: 'calls.control',
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      idempotency: { required: false },
      doc: {
        summary: 'Transfer a live call to a phone number (blind transfer)',
        description:
          'Speech stops and the carrier dials `to_number` (shown the line’s number). Answers once the destination answered (`transferred: true`) or did not ' +
          '(`transferred: false`, `failure_reason` `not_answered` or `call_ended`; the call is then back with the agent), within about 30 s; a transfer the carrier refuses is 502 `carrier_error` (the call is back with the agent too). ' +
          'Transferred, the call stays `in_progress` with `transferred_to` set: Switchboard no longer hears or speaks on it (live control answers 409), ' +
          'a `call_transferred` event is sent, and it is held and billed minute by minute at the call’s rate until either party hangs up ' +
          '(`end_cause: transferred`) or it is hung up through the API. Refusals, in this order: `call_not_found` (404), validation (422: not E.164, or a party of the call), ' +
          '`transfer_not_supported` (409: audio-mode calls), `number_opted_out`, `consent_required` (compliance-enabled lines), ' +
          '`transfer_zone_not_allowed` (a destination priced above the call’s zone), `m3_fraud_block` (403), `call_not_active` (409).',
        tags: ['calls'],
        parameters: [callIdParam],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['to_number'],
          properties: { to_number: phoneNumber() },
        }),
        responses: {
          '200': jsonResponse('Unwrapped `{call_id, to_number, transferred, failure_reason}`', ref('TransferResult')),
          '403': errorResponse(
            '`number_opted_out`, `consent_required`, `transfer_zone_not_allowed`, `m3_fraud_block`, `agent_permission_denied`, `forbidden`',
          ),
          '422': errorResponse('`validation_error`'),
          ...controlResponses,
          '409': errorResponse('`call_not_active`: the call is not in progress (or is being or was transferred); `transfer_not_supported`'),
          '502': carrierErrorResponse('the transfer (a carrier that says the call has ended is `failure_reason: call_ended`)'),
        },
      },
      handler: transfer,
    },
  ];
}
