import { principalOf, type AppContext, type AppDeps } from '../context';
import { assertLineAllowed } from '../lineAccess';
import { ApiError } from '../errors';
import { exampleOf } from '../openapi/examples';
import { NOT_BLANK_PATTERN } from '../openapi/fields';
import { arrayOf, cursorFields, errorResponse, fields, jsonRequestBody, jsonResponse, ref } from '../openapi/schemas';
import { cursorPaginationParams, newestFirstPage } from '../pagination';
import type { PathParameter, RouteDef } from '../routeTable';
import { MACHINE_DETECTION, METADATA, VARIABLES } from './calls';
import { MAX_CONVERSATION_SECONDS, MAX_TOPIC_LENGTH, MIN_CONVERSATION_SECONDS } from '../../src/domain/calls/conversation';
import { CampaignEndedError, controlCampaign, type CampaignControl } from '../../src/domain/campaigns/control';
import { CampaignRefusedError, createCampaign, type CreateCampaignRequest } from '../../src/domain/campaigns/create';
import {
  allResults,
  campaignLineIds,
  campaignRecord,
  campaignRecords,
  readableCampaign,
  resultsPage,
  visibleCampaigns,
} from '../../src/domain/campaigns/read';
import { sendCsv, type CsvColumn } from '../portal/csv';
import {
  ANSWERING_MACHINE_ACTIONS,
  MAX_ATTEMPTS,
  MAX_VOICEMAIL_MESSAGE_LENGTH,
  type AnsweringMachineAction,
  MAX_CONTACTS,
  MAX_NAME_LENGTH,
  MAX_TO_NUMBER_LENGTH,
  MAX_POOL_LINES,
  MAX_RETRY_BACKOFF_SECONDS,
  RETRYABLE_OUTCOMES,
  WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE,
} from '../../src/domain/campaigns/rules';
import type { toContactResult } from '../../src/domain/campaigns/records';
import type { CampaignRow } from '../../src/domain/campaigns/store';
import { StartCompensatedError } from '../../src/platform/temporal/starts';

/*
 * Campaigns (issue 31; docs/decisions/campaigns.md): many outbound calls as one durable process.
 * Creation records the campaign and its contacts and starts its workflow; every call it places is
 * placed as `POST /calls` places one (its refusals skip the contact or pause the campaign).
 */

const campaignNotFound = { code: 'not_found', message: 'Campaign not found' };
const campaignIdParam: PathParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  'x-not-found': campaignNotFound,
};
const notFound = () => new ApiError(404, campaignNotFound.code, campaignNotFound.message);

/** The largest creation body: 100,000 contacts with a few variables each. */
export const CAMPAIGN_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** The body of `POST /api/v1/campaigns` (also what the portal's create form is turned into). */
export interface CreateBody {
  name?: string;
  line_ids: string[];
  contacts?: Array<{ to_number: string; variables?: Record<string, string>; metadata?: Record<string, string> }>;
  contact_list_id?: string;
  topic?: string;
  begin_message?: string;
  max_duration_seconds?: number;
  machine_detection?: string;
  answering_machine?: { action: AnsweringMachineAction; voicemail_message?: string };
  start_at?: string;
  max_concurrency?: number;
  calls_per_minute?: number;
  retry?: { max_attempts?: number; backoff_seconds?: number; on?: string[] };
}

export function createRequest(body: CreateBody): CreateCampaignRequest {
  return {
    ...(body.name ? { name: body.name } : {}),
    lineIds: body.line_ids,
    ...(body.contact_list_id
      ? { contactListId: body.contact_list_id }
      : {
          contacts: (body.contacts ?? []).map((contact) => ({
            toNumber: contact.to_number,
            variables: contact.variables,
            metadata: contact.metadata,
          })),
        }),
    ...(body.topic
      ? {
          conversation: {
            topic: body.topic.trim(),
            beginMessage: body.begin_message?.trim() || null,
            maxDurationSec: body.max_duration_seconds ?? null,
          },
        }
      : {}),
    machineDetection: body.machine_detection === 'detect',
    ...(body.answering_machine
      ? {
          answeringMachine: {
            action: body.answering_machine.action,
            voicemailMessage: body.answering_machine.voicemail_message?.trim() || null,
          },
        }
      : {}),
    ...(body.start_at ? { startAt: new Date(body.start_at) } : {}),
    maxConcurrency: body.max_concurrency,
    callsPerMinute: body.calls_per_minute,
    ...(body.retry ? { retry: { maxAttempts: body.retry.max_attempts, backoffSec: body.retry.backoff_seconds, on: body.retry.on } } : {}),
  };
}

/**
 * The tenant's campaign named in the path, checked against the key's lines as a call is: 404 when the tenant has none,
 * 403 (`agent_scope_error` for a line-bound key, `forbidden` for an allow-list) when a pool line is not the key's.
 */
async function assertCampaignAllowed(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const lineIds = await campaignLineIds(deps.db, principal, ctx.params.id);
  if (!lineIds) throw notFound();
  for (const lineId of lineIds) assertLineAllowed(principal, lineId);
}

/**
 * Creates the campaign of `body` (the API's and the portal's form's), its refusals as the API answers them: 422
 * `validation_error` naming the fields at fault, 503 when its workflow could not be started (nothing recorded).
 */
export async function createCampaignAnswering(
  deps: AppDeps,
  ctx: AppContext,
  actor: Parameters<typeof createCampaign>[1],
  body: CreateBody,
): Promise<CampaignRow> {
  try {
    return await createCampaign({ ...deps, log: ctx.state.log }, actor, createRequest(body));
  } catch (err) {
    if (err instanceof CampaignRefusedError) throw new ApiError(422, 'validation_error', 'The campaign has invalid fields', err.problems);
    if (err instanceof StartCompensatedError)
      throw new ApiError(503, 'service_unavailable', 'The campaign could not be started; nothing was recorded', undefined, {
        'Retry-After': '1',
      });
    throw err;
  }
}

async function postCampaign(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  // A restricted key names only its own lines (as `line_id` of POST /calls); unknown lines are the use case's 422.
  for (const lineId of (ctx.state.body as CreateBody).line_ids) assertLineAllowed(principal, lineId);
  const { id } = await createCampaignAnswering(deps, ctx, principal, ctx.state.body as CreateBody);
  ctx.status = 201;
  ctx.body = { campaign: await campaignRecord(deps.db, principal, id) };
}

async function listCampaigns(ctx: AppContext, deps: AppDeps): Promise<void> {
  const q = ctx.state.query as { limit: number; cursor?: string };
  const { page, has_more, next_cursor } = await newestFirstPage<CampaignRow>(
    visibleCampaigns(deps.db, principalOf(ctx)),
    q.cursor,
    q.limit,
  );
  ctx.body = { campaigns: await campaignRecords(deps.db, page), has_more, next_cursor };
}

async function getCampaign(ctx: AppContext, deps: AppDeps): Promise<void> {
  await assertCampaignAllowed(ctx, deps);
  const campaign = await campaignRecord(deps.db, principalOf(ctx), ctx.params.id);
  if (!campaign) throw notFound();
  ctx.body = { campaign };
}

async function listResults(ctx: AppContext, deps: AppDeps): Promise<void> {
  await assertCampaignAllowed(ctx, deps);
  const q = ctx.state.query as { limit: number; cursor?: string };
  const page = await resultsPage(deps.db, principalOf(ctx), ctx.params.id, q.cursor ? Number(q.cursor) : 0, q.limit);
  if (!page) throw notFound();
  ctx.body = page;
}

type ContactResult = ReturnType<typeof toContactResult>;

/** The results export's columns: the result record's fields, call ids space-separated, variables and metadata as JSON. */
export const RESULT_COLUMNS: ReadonlyArray<CsvColumn<ContactResult>> = [
  { header: 'row', cell: (r) => r.row },
  { header: 'to_number', cell: (r) => r.to_number },
  { header: 'status', cell: (r) => r.status },
  { header: 'outcome', cell: (r) => r.outcome },
  { header: 'skip_reason', cell: (r) => r.skip_reason },
  { header: 'attempts', cell: (r) => r.attempts },
  { header: 'next_attempt_at', cell: (r) => r.next_attempt_at },
  { header: 'duration_sec', cell: (r) => r.duration_sec },
  { header: 'charge_cents', cell: (r) => r.charge_cents },
  { header: 'call_ids', cell: (r) => r.call_ids.join(' ') },
  { header: 'variables', cell: (r) => JSON.stringify(r.variables) },
  { header: 'metadata', cell: (r) => JSON.stringify(r.metadata) },
];

async function exportResults(ctx: AppContext, deps: AppDeps): Promise<void> {
  await assertCampaignAllowed(ctx, deps);
  const principal = principalOf(ctx);
  const campaign = await readableCampaign(deps.db, principal, ctx.params.id);
  if (!campaign) throw notFound();
  sendCsv(ctx, `campaign-${campaign.id}-results`, principal.environment, RESULT_COLUMNS, allResults(deps.db, campaign.id));
}

function control(action: CampaignControl) {
  return async (ctx: AppContext, deps: AppDeps): Promise<void> => {
    // Only a campaign the key may read can be controlled by it.
    await assertCampaignAllowed(ctx, deps);
    const principal = principalOf(ctx);
    try {
      await controlCampaign({ ...deps, log: ctx.state.log }, principal, ctx.params.id, action);
    } catch (err) {
      if (err instanceof CampaignEndedError)
        throw new ApiError(409, 'campaign_ended', `The campaign is ${err.status}: it cannot be paused, resumed or cancelled`);
      throw err;
    }
    ctx.body = { campaign: await campaignRecord(deps.db, principal, ctx.params.id) };
  };
}

const contactSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['to_number'],
  properties: {
    to_number: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_TO_NUMBER_LENGTH,
      description:
        'The number to call, E.164. One that is not a phone number, or repeats an earlier contact’s, is recorded as skipped (`invalid_number`, `duplicate_number`).',
    },
    variables: VARIABLES,
    metadata: METADATA,
  },
};

const createDescription =
  'Records the campaign and its contacts (in list order: `row` 1, 2, …) and starts it at `start_at` (default now). Each call is placed as `POST /api/v1/calls` ' +
  'places one, from one of the pool `line_ids` that is free (a line carries one call at a time; a contact whose every line is busy waits for one), ' +
  'with the contact’s `variables` filling the line’s (or the `topic` conversation’s) texts and its `metadata` echoed in the call’s events. ' +
  'A contact refused as `POST /calls` would refuse it is skipped with its reason (`opted_out`, `consent_required`, `fraud_blocked`, `invalid_variables`); ' +
  'a refused hold (`insufficient_credits`, `agent_cap_exceeded`) or a pool with no usable line pauses the campaign (`paused_reason`) without using up an attempt. ' +
  '`retry` calls a contact again after `backoff_seconds` while its last attempt was one of `on` and fewer than `max_attempts` were made. ' +
  `At most \`max_concurrency\` calls at once (default and maximum: the number of pool lines) and \`calls_per_minute\` dials a minute (default 60); the workspace's campaigns together dial at most ${WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE} a minute (422 \`calls_per_minute\`).`;

const CONTROL_SUMMARIES: Record<CampaignControl, string> = {
  pause: 'Pause a campaign: no new dial; calls in progress go on to their end',
  resume: 'Resume a paused campaign (also one that paused itself: funds and lines are checked again at its next dial)',
  cancel: 'Cancel a campaign: contacts still waiting are `cancelled`; calls in progress go on to their end',
};

/** The body's example with `contacts` (every field's example but `contact_list_id`, its alternative). */
function exampleWithContacts(body: ReturnType<typeof jsonRequestBody>) {
  const media = body.content['application/json'];
  const example = { ...(exampleOf(media.schema) as Record<string, unknown>) };
  delete example.contact_list_id;
  return { ...body, content: { 'application/json': { ...media, example } } };
}

export function campaignRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/campaigns',
      operationId: 'createCampaign',
      auth: { kind: 'standard', scope: 'calls:create', verb: 'call' },
      rateLimit: 'campaigns.create',
      bodyLimitBytes: CAMPAIGN_BODY_LIMIT_BYTES,
      idempotency: { required: false },
      doc: {
        summary: 'Create a campaign: many outbound calls from a pool of lines, paced, retried and durable',
        description: createDescription,
        tags: ['campaigns'],
        requestBody: exampleWithContacts(
          jsonRequestBody({
            type: 'object',
            additionalProperties: false,
            required: ['line_ids'],
            properties: {
              name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH, pattern: NOT_BLANK_PATTERN },
              line_ids: {
                type: 'array',
                minItems: 1,
                maxItems: MAX_POOL_LINES,
                uniqueItems: true,
                items: { type: 'string', format: 'uuid' },
              },
              contacts: {
                type: 'array',
                minItems: 1,
                maxItems: MAX_CONTACTS,
                items: contactSchema,
                description: 'The contacts, in list order; or `contact_list_id` instead (exactly one of the two)',
              },
              contact_list_id: {
                type: 'string',
                format: 'uuid',
                description:
                  'A contact list uploaded as CSV (`POST /api/v1/campaigns/contact-lists`), instead of `contacts`: its rows become the contacts in file order ' +
                  '(422 `contact_list_id` when it is not this workspace’s or has expired)',
              },
              topic: {
                type: 'string',
                minLength: 1,
                maxLength: MAX_TOPIC_LENGTH,
                pattern: NOT_BLANK_PATTERN,
                description:
                  'Each call is a hosted conversation about this topic (as `POST /api/v1/calls/conversation`); without it the lines’ modes decide.',
              },
              begin_message: { type: 'string', minLength: 1, maxLength: 1000 },
              max_duration_seconds: { type: 'integer', minimum: MIN_CONVERSATION_SECONDS, maximum: MAX_CONVERSATION_SECONDS },
              machine_detection: MACHINE_DETECTION,
              answering_machine: {
                type: 'object',
                additionalProperties: false,
                required: ['action'],
                description:
                  'When a machine answers (machine detection is then asked for): `hang_up` at once (outcome `machine`), or `voicemail`: once the ' +
                  'machine’s greeting has ended (its beep, as the carrier detects it; at most 30 s after the machine was detected), speak ' +
                  '`voicemail_message` (required with it) to its end, then hang up (outcome `voicemail`). The call’s `end_cause` is `answering_machine`. ' +
                  'Without it, a machine’s answer goes on as the line decides.',
                properties: {
                  action: { type: 'string', enum: [...ANSWERING_MACHINE_ACTIONS] },
                  voicemail_message: { type: 'string', minLength: 1, maxLength: MAX_VOICEMAIL_MESSAGE_LENGTH, pattern: NOT_BLANK_PATTERN },
                },
                // A message with `voicemail` only, and always with it: stated here so clients (and the fuzzer) know it.
                if: { properties: { action: { const: 'voicemail' } } },
                then: { required: ['voicemail_message'] },
                else: { properties: { voicemail_message: false } },
                example: {
                  action: 'voicemail',
                  voicemail_message: 'Hello, this is Acme Dental about your appointment. Please call us back.',
                },
              },
              start_at: { type: 'string', format: 'date-time', description: 'When dialling starts (default: now)' },
              max_concurrency: { type: 'integer', minimum: 1, maximum: MAX_POOL_LINES },
              calls_per_minute: { type: 'integer', minimum: 1, maximum: WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE },
              retry: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  max_attempts: { type: 'integer', minimum: 1, maximum: MAX_ATTEMPTS, default: 1 },
                  backoff_seconds: { type: 'integer', minimum: 0, maximum: MAX_RETRY_BACKOFF_SECONDS, default: 600 },
                  on: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...RETRYABLE_OUTCOMES] } },
                },
              },
            },
            // Exactly one of contacts and contact_list_id: stated here so clients (and the fuzzer) know it.
            if: { required: ['contacts'] },
            then: { properties: { contact_list_id: false } },
            else: { required: ['contact_list_id'] },
          }),
        ),
        responses: {
          '201': jsonResponse('`{campaign}`', fields({ campaign: ref('Campaign') })),
          '503': errorResponse('`service_unavailable`: the campaign could not be started (nothing recorded); `Retry-After`'),
        },
      },
      handler: postCampaign,
    },
    {
      method: 'get',
      path: '/api/v1/campaigns',
      operationId: 'listCampaigns',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'Campaigns, newest first (cursor pagination), each with its progress',
        tags: ['campaigns'],
        parameters: cursorPaginationParams(),
        responses: {
          '200': jsonResponse('`{campaigns, has_more, next_cursor}`', fields({ campaigns: arrayOf(ref('Campaign')), ...cursorFields })),
        },
      },
      handler: listCampaigns,
    },
    {
      method: 'get',
      path: '/api/v1/campaigns/{id}',
      operationId: 'getCampaign',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'A campaign and its progress',
        tags: ['campaigns'],
        parameters: [campaignIdParam],
        responses: { '200': jsonResponse('`{campaign}`', fields({ campaign: ref('Campaign') })), '404': errorResponse('`not_found`') },
      },
      handler: getCampaign,
    },
    {
      method: 'get',
      path: '/api/v1/campaigns/{id}/results',
      operationId: 'listCampaignResults',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'Per-contact results in list order, readable while the campaign runs (cursor pagination)',
        tags: ['campaigns'],
        parameters: [
          campaignIdParam,
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          {
            name: 'cursor',
            in: 'query',
            schema: { type: 'string', pattern: '^[0-9]{1,6}$' },
            description: '`next_cursor` of the previous page (the last row number it returned)',
          },
        ],
        responses: {
          '200': jsonResponse(
            '`{results, has_more, next_cursor}`',
            fields({ results: arrayOf(ref('CampaignContactResult')), ...cursorFields }),
          ),
          '404': errorResponse('`not_found`'),
        },
      },
      handler: listResults,
    },
    {
      method: 'get',
      path: '/api/v1/campaigns/{id}/results.csv',
      operationId: 'exportCampaignResults',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'Every contact’s result as CSV (RFC 4180, in list order), readable while the campaign runs',
        description:
          'Columns: row, to_number, status, outcome, skip_reason, attempts, next_attempt_at, duration_sec, charge_cents, call_ids (space-separated), ' +
          'variables and metadata (JSON). A text cell a spreadsheet would read as a formula (starting with = + - @, tab or carriage return) is prefixed with an apostrophe.',
        tags: ['campaigns'],
        parameters: [campaignIdParam],
        responses: {
          '200': { description: 'The results, one record per contact', content: { 'text/csv': { schema: { type: 'string' } } } },
          '404': errorResponse('`not_found`'),
        },
      },
      handler: exportResults,
    },
    ...(['pause', 'resume', 'cancel'] as const).map((action): RouteDef => ({
      method: 'post',
      path: `/api/v1/campaigns/{id}/${action}`,
      operationId: `${action}Campaign`,
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      rateLimit: 'campaigns.control',
      doc: {
        summary: CONTROL_SUMMARIES[action],
        description:
          'Answers the campaign as it now is; the same request again changes nothing. An ended campaign (`completed`, `cancelled`) is 409 `campaign_ended`.',
        tags: ['campaigns'],
        parameters: [campaignIdParam],
        responses: {
          '200': jsonResponse('`{campaign}`', fields({ campaign: ref('Campaign') })),
          '404': errorResponse('`not_found`'),
          '409': errorResponse('`campaign_ended`'),
        },
      },
      handler: control(action),
    })),
  ];
}
