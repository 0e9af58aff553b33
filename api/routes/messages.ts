import crypto from 'node:crypto';
import { refuseHold } from '../billingErrors';
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { allowedLineIds, assertLineAllowed } from '../lineAccess';
import { beforeCursor, cursorPage, cursorPaginationParams, parseCursor } from '../pagination';
import { arrayOf, cursorFields, errorResponse, fields, jsonRequestBody, jsonResponse, ref } from '../openapi/schemas';
import type { RouteDef } from './types';
import { placeHold, releaseHold } from '../../src/domain/billing/holds';
import { smsChargeCents, smsSegments, zoneOf } from '../../src/domain/billing/pricing';
import { recordComplianceEvent } from '../../src/domain/compliance/events';
import { isOptedOut } from '../../src/domain/compliance/optOuts';
import { findLine } from '../../src/domain/lines/store';
import { MAX_SMS_TEXT_LENGTH } from '../../src/domain/messages/rules';
import { advanceMessageStatus, insertMessage, messagesOf, sendAuthorization, toLegacySmsRecord, toMessageRecord, type MessageRow } from '../../src/domain/messages/store';
import { toE164 } from '../../src/platform/phone';
import { workflowIds } from '../../workflows/definitions/ids';
import { startResolvingAmbiguity } from '../../src/platform/temporal/starts';

/**
 * Sending SMS and reading conversations (spec "SMS and conversations"). `POST /messages`
 * refuses in a fixed order, each check only after the previous passed: scope and tier (auth),
 * validation, the line (scope, 404, `line_not_active`), `number_opted_out`,
 * `conversation_window_expired`, then the hold for its price (`agent_cap_exceeded`,
 * `insufficient_credits`). Accepted messages are sent by `sendMessageWorkflow`.
 */
async function send(ctx: AppContext, deps: AppDeps, lineId: string, toInput: string, text: string, fields: { to: string; text: string }): Promise<MessageRow> {
  const principal = principalOf(ctx);
  const to = toE164(toInput);
  if (!to) throw errors.validation([{ field: fields.to, message: 'Must be a valid phone number in E.164 (+14155550123)' }]);
  if (text.trim() === '') throw errors.validation([{ field: fields.text, message: 'Must not be blank' }]);
  assertLineAllowed(principal, lineId);
  const line = await findLine(deps.db, principal, lineId);
  if (!line) throw errors.notFound('Line');
  if (line.status !== 'active' || !line.phone_number) throw new ApiError(409, 'line_not_active', `The line is ${line.status}; messages need an active line`);
  if (await isOptedOut(deps.db, principal, to)) throw new ApiError(403, 'number_opted_out', 'This number has opted out of calls and messages from this workspace');
  const now = deps.now();
  const authorization = await sendAuthorization(deps.db, principal, line.id, to, now);
  if (!authorization) {
    throw new ApiError(
      403,
      'conversation_window_expired',
      'No SMS from this number to the line in the last 24 hours and no active explicit_outbound consent for the pair; record consent first or wait for them to write',
    );
  }

  const messageId = crypto.randomUUID();
  const segments = smsSegments(text);
  const chargeCents = smsChargeCents(zoneOf(to), text);
  const reference = `sms:${messageId}`;
  const row = await deps.db.transaction(async (trx) => {
    const hold = await placeHold(trx, { tenant: principal, keyId: principal.key.id, reference, amountCents: chargeCents, at: now });
    if (!hold.ok) throw refuseHold(hold.refusal, { deps, tenant: principal, log: ctx.state.log });
    const { row: stored } = await insertMessage(trx, {
      id: messageId,
      workspace_id: principal.workspaceId,
      environment: principal.environment,
      line_id: line.id,
      actor_key_id: principal.key.id,
      direction: 'outbound',
      origin: 'customer',
      from_number: line.phone_number!,
      to_number: to,
      body: text,
      segments,
      status: 'queued',
      carrier_message_id: null,
      authorization_basis: authorization.basis,
      consent_id: authorization.basis === 'explicit_consent' ? authorization.consentId : null,
      created_at: now,
    });
    await recordComplianceEvent(trx, {
      workspaceId: principal.workspaceId,
      environment: principal.environment,
      eventType: 'sms_sent',
      actorKeyId: principal.key.id,
      lineId: line.id,
      phoneNumber: to,
      metadata: {
        message_id: messageId,
        authorization_basis: authorization.basis,
        ...(authorization.basis === 'explicit_consent' ? { consent_record_id: authorization.consentId } : { inbound_message_id: authorization.inboundMessageId }),
      },
      at: now,
    });
    return stored;
  });

  // A failed start is resolved before anything is compensated: the server may have started the
  // workflow and the answer been lost (then the message is on its way and stays `queued`).
  const started = await startResolvingAmbiguity(deps.temporal, 'sendMessageWorkflow', {
    taskQueue: deps.config.taskQueue,
    workflowId: workflowIds.sendMessage(messageId),
    args: [{ messageId, workspaceId: principal.workspaceId, environment: principal.environment, lineId: line.id, from: row.from_number, to, text, segments, chargeCents }],
  });
  if (started === 'not_started') {
    ctx.state.log.error({ message_id: messageId }, 'could not start the send-message workflow');
    await releaseHold(deps.db, { tenant: principal, reference, at: deps.now() });
    await advanceMessageStatus(deps.db, messageId, 'failed', { errorCode: 'not_sent', at: deps.now() });
    throw new ApiError(503, 'service_unavailable', 'The message could not be queued right now; retry shortly', undefined, { 'Retry-After': '1' });
  }
  // `unknown` (Temporal could not be asked either): the message is recorded and held, so it is
  // accepted as `queued`; the recovery sweeper fails it (and releases the hold) if it never got a workflow.
  if (started === 'unknown') ctx.state.log.error({ message_id: messageId }, 'send-message workflow start unconfirmed; the recovery sweeper settles it');
  ctx.state.log.info({ message_id: messageId, line_id: line.id, segments, basis: authorization.basis }, 'message queued');
  return row;
}

async function sendMessage(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { line_id: string; to: string; text: string };
  const row = await send(ctx, deps, body.line_id, body.to, body.text, { to: 'to', text: 'text' });
  ctx.status = 201;
  ctx.body = toMessageRecord(row);
}

/** The client's older per-line path: `{to_number, message}` in, `{sms}` out; the same rules. */
async function sendLineSms(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { to_number: string; message: string };
  const row = await send(ctx, deps, ctx.params.id, body.to_number, body.message, { to: 'to_number', text: 'message' });
  ctx.status = 201;
  ctx.body = { sms: toLegacySmsRecord(row) };
}

interface ConversationRow {
  line_id: string;
  remote_number: string;
  line_phone_number: string;
  message_count: number;
  last_message_id: string;
  last_message_at: Date;
  last_message_text: string;
  last_message_direction: 'inbound' | 'outbound';
}

function toConversationRecord(row: ConversationRow) {
  return {
    line_id: row.line_id,
    phone_number: row.remote_number,
    line_phone_number: row.line_phone_number,
    message_count: row.message_count,
    last_message_at: row.last_message_at.toISOString(),
    last_message_text: row.last_message_text,
    last_message_direction: row.last_message_direction,
  };
}

async function listConversations(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { line_id?: string; limit: number; cursor?: string };
  if (q.line_id) assertLineAllowed(principal, q.line_id);
  const allowed = allowedLineIds(principal);
  const query = deps
    .db('conversations as c')
    .join('messages as m', 'm.id', 'c.last_message_id')
    .join('lines as l', 'l.id', 'c.line_id')
    .where({ 'c.workspace_id': principal.workspaceId, 'c.environment': principal.environment });
  if (q.line_id) query.andWhere('c.line_id', q.line_id);
  else if (allowed) query.whereIn('c.line_id', [...allowed]);
  beforeCursor(query, parseCursor(q.cursor), 'c.last_message_at', 'c.last_message_id');
  const rows: ConversationRow[] = await query
    .orderBy([{ column: 'c.last_message_at', order: 'desc' }, { column: 'c.last_message_id', order: 'desc' }])
    .limit(q.limit + 1)
    .select(
      'c.line_id',
      'c.remote_number',
      'l.phone_number as line_phone_number',
      'c.message_count',
      'c.last_message_id',
      'c.last_message_at',
      'm.body as last_message_text',
      'm.direction as last_message_direction',
    );
  const { page, has_more, next_cursor } = cursorPage(rows, q.limit, (row) => ({ at: row.last_message_at, id: row.last_message_id }));
  ctx.body = { conversations: page.map(toConversationRecord), has_more, next_cursor };
}

async function conversationMessages(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { limit: number; cursor?: string };
  // The router has already percent-decoded the segment (`%2B1415…` is `+1415…`).
  const phoneNumber = toE164(ctx.params.phoneNumber);
  if (!phoneNumber) throw errors.validation([{ field: 'phoneNumber', message: 'Must be a phone number in E.164, percent-encoded (%2B14155550123)' }]);
  assertLineAllowed(principal, ctx.params.lineId);
  const line = await findLine(deps.db, principal, ctx.params.lineId);
  if (!line) throw errors.notFound('Line');
  const query = messagesOf(deps.db, principal).andWhere({ line_id: line.id, remote_number: phoneNumber });
  beforeCursor(query, parseCursor(q.cursor), 'created_at', 'id');
  const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(q.limit + 1);
  const { page, has_more, next_cursor } = cursorPage(rows, q.limit, (row) => ({ at: row.created_at, id: row.id }));
  ctx.body = { messages: page.map(toMessageRecord), has_more, next_cursor };
}

const sendResponses = {
  '402': errorResponse('`insufficient_credits` or `agent_cap_exceeded`'),
  '403': errorResponse('`number_opted_out`, `conversation_window_expired`, `agent_scope_error`, `agent_permission_denied`, `forbidden`'),
  '404': errorResponse('`not_found`: the line'),
  '409': errorResponse('`line_not_active`'),
  '503': errorResponse('`service_unavailable`: the message could not be handed to the send workflow (it is `failed`, nothing held); `Retry-After`'),
};
const sendDescription =
  'Allowed only if the recipient sent an SMS to this line within the last 24 hours, or an active `explicit_outbound` consent exists for the (line, recipient) pair. ' +
  'Refusals, in this order: validation (422), the line (403/404/409), `number_opted_out` (403), `conversation_window_expired` (403), `agent_cap_exceeded` / `insufficient_credits` (402). ' +
  'The price (1 ¢ per segment in zone A, times the zone multiplier) is held at once and charged when the carrier reports the message sent on (a `failed` message is free). ' +
  'Status moves queued → sent → delivered | undelivered | failed as receipts arrive. `Idempotency-Key` is honoured: a retry returns the same message and sends nothing twice.';

export function messageRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/messages',
      operationId: 'sendMessage',
      auth: { kind: 'standard', scope: 'messages:create', verb: 'sms' },
      rateLimit: 'messages.create',
      idempotency: { required: false },
      doc: {
        summary: 'Send an SMS from a line',
        description: sendDescription,
        tags: ['messages'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['line_id', 'to', 'text'],
          properties: {
            line_id: { type: 'string', format: 'uuid' },
            to: { type: 'string', minLength: 3, maxLength: 32, description: 'E.164' },
            text: { type: 'string', minLength: 1, maxLength: MAX_SMS_TEXT_LENGTH },
          },
        }),
        responses: { '201': jsonResponse('The message, unwrapped', ref('Message')), ...sendResponses },
      },
      handler: sendMessage,
    },
    {
      method: 'post',
      path: '/api/v1/lines/{id}/sms',
      operationId: 'sendLineSms',
      auth: { kind: 'standard', scope: 'messages:create', verb: 'sms' },
      rateLimit: 'messages.create',
      idempotency: { required: false },
      doc: {
        summary: 'Send an SMS from this line (older form of POST /api/v1/messages)',
        description: `${sendDescription} Answers \`{sms: {id, line_id, from_number, to_number, message, status, created_at}}\`.`,
        tags: ['messages'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['to_number', 'message'],
          properties: { to_number: { type: 'string', minLength: 3, maxLength: 32 }, message: { type: 'string', minLength: 1, maxLength: MAX_SMS_TEXT_LENGTH } },
        }),
        responses: { '201': jsonResponse('`{sms}`', fields({ sms: ref('LegacySms') })), ...sendResponses },
      },
      handler: sendLineSms,
    },
    {
      method: 'get',
      path: '/api/v1/conversations',
      operationId: 'listConversations',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: 'Conversations (one per line and remote number), most recent first (cursor pagination)',
        tags: ['messages'],
        parameters: [{ name: 'line_id', in: 'query', schema: { type: 'string', format: 'uuid' } }, ...cursorPaginationParams()],
        responses: {
          '200': jsonResponse('`{conversations, has_more, next_cursor}`', fields({ conversations: arrayOf(ref('Conversation')), ...cursorFields })),
        },
      },
      handler: listConversations,
    },
    {
      method: 'get',
      path: '/api/v1/conversations/{lineId}/{phoneNumber}',
      operationId: 'getConversation',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      rateLimit: 'reads',
      doc: {
        summary: "A conversation's messages, newest first (cursor pagination)",
        description: 'The phone number is percent-encoded in the path (`%2B14155550123`); a literal `+` is accepted too.',
        tags: ['messages'],
        parameters: [
          { name: 'lineId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          { name: 'phoneNumber', in: 'path', required: true, schema: { type: 'string', minLength: 3, maxLength: 32 } },
          ...cursorPaginationParams(),
        ],
        responses: {
          '200': jsonResponse('`{messages, has_more, next_cursor}`', fields({ messages: arrayOf(ref('Message')), ...cursorFields })),
          '404': errorResponse('`not_found`: the line'),
        },
      },
      handler: conversationMessages,
    },
  ];
}
