import { principalOf, type AppContext, type AppDeps } from '../context';
import { errors } from '../errors';
import { allowedLineIds, assertLineAllowed } from '../lineAccess';
import { beforeCursor, cursorPage, cursorPaginationParams, newestFirstPage, parseCursor } from '../pagination';
import { arrayOf, cursorFields, errorResponse, fields, jsonRequestBody, jsonResponse, ref } from '../openapi/schemas';
import { NOT_BLANK_PATTERN, phoneNumber } from '../openapi/fields';
import { answeringOutboundRefusals } from '../outboundRefusals';
import type { RouteDef } from '../routeTable';
import { findLine } from '../../src/domain/lines/store';
import { MAX_SMS_TEXT_LENGTH } from '../../src/domain/messages/rules';
import { sendMessage, type SendMessageRequest } from '../../src/domain/messages/send';
import {
  conversationMessagesOf,
  conversationsOf,
  toConversationRecord,
  type ConversationRow,
} from '../../src/domain/messages/conversations';
import { toLegacySmsRecord, toMessageRecord, type MessageRow } from '../../src/domain/messages/store';
import { toE164 } from '../../src/platform/phone';

/*
 * Sending SMS and reading conversations (spec "SMS and conversations"). `POST /messages`
 * refuses in a fixed order, each check only after the previous passed: scope and tier (auth),
 * validation, then the use case's own (src/domain/messages/send.ts): the line (scope, 404,
 * `line_not_active`), `number_opted_out`, `conversation_window_expired`, then the hold for its
 * price (`agent_cap_exceeded`, `insufficient_credits`). Accepted messages are answered once recorded and sent by
 * their batch's `sendMessageBatchWorkflow`, started off the request (src/domain/messages/dispatch.ts).
 */

/**
 * Sends the message (src/domain/messages/send.ts) and answers 201 with `answer(row)`, or its
 * refusal. The idempotent answer commits with the message, so a retry after a crash replays it.
 */
async function send(ctx: AppContext, deps: AppDeps, request: SendMessageRequest, answer: (row: MessageRow) => unknown): Promise<void> {
  const row = await answeringOutboundRefusals(ctx, deps, 'sms', () =>
    sendMessage({ ...deps, log: ctx.state.log }, principalOf(ctx), request, ctx.state.idempotency?.answerWithin(201, answer)),
  );
  ctx.status = 201;
  ctx.body = answer(row);
}

async function postMessage(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { line_id: string; to: string; text: string };
  await send(
    ctx,
    deps,
    { lineId: body.line_id, to: { value: body.to, field: 'to' }, text: { value: body.text, field: 'text' } },
    toMessageRecord,
  );
}

/** The client's older per-line path: `{to_number, message}` in, `{sms}` out; the same rules. */
async function sendLineSms(ctx: AppContext, deps: AppDeps): Promise<void> {
  const body = ctx.state.body as { to_number: string; message: string };
  const to = { value: body.to_number, field: 'to_number' };
  await send(ctx, deps, { lineId: ctx.params.id, to, text: { value: body.message, field: 'message' } }, (row) => ({
    sms: toLegacySmsRecord(row),
  }));
}

async function listConversations(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { line_id?: string; limit: number; cursor?: string };
  if (q.line_id) assertLineAllowed(principal, q.line_id);
  const query = conversationsOf(deps.db, principal, q.line_id ? [q.line_id] : allowedLineIds(principal));
  beforeCursor(query, parseCursor(q.cursor), 'c.last_message_at', 'c.last_message_id');
  const rows: ConversationRow[] = await query
    .orderBy([
      { column: 'c.last_message_at', order: 'desc' },
      { column: 'c.last_message_id', order: 'desc' },
    ])
    .limit(q.limit + 1);
  const { page, has_more, next_cursor } = cursorPage(rows, q.limit, (row) => ({ at: row.last_message_at, id: row.last_message_id }));
  ctx.body = { conversations: page.map(toConversationRecord), has_more, next_cursor };
}

async function conversationMessages(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const q = ctx.state.query as { limit: number; cursor?: string };
  // The router has already percent-decoded the segment (`%2B1415…` is `+1415…`).
  // The validator checked the PhoneNumber pattern (a number that cannot exist is 404, like an unknown id); toE164 only reads it.
  const phoneNumber = toE164(ctx.params.phoneNumber);
  if (!phoneNumber) throw errors.notFound();
  assertLineAllowed(principal, ctx.params.lineId);
  const line = await findLine(deps.db, principal, ctx.params.lineId);
  if (!line) throw errors.notFound('Line');
  const query = conversationMessagesOf(deps.db, principal, line.id, phoneNumber);
  const { page, has_more, next_cursor } = await newestFirstPage<MessageRow>(query, q.cursor, q.limit);
  ctx.body = { messages: page.map(toMessageRecord), has_more, next_cursor };
}

const sendResponses = {
  '402': errorResponse('`insufficient_credits` or `agent_cap_exceeded`'),
  '403': errorResponse('`number_opted_out`, `conversation_window_expired`, `agent_scope_error`, `agent_permission_denied`, `forbidden`'),
  '404': errorResponse('`not_found`: the line'),
  '409': errorResponse('`line_not_active`'),
};
const sendDescription =
  'Allowed only if the recipient sent an SMS to this line within the last 24 hours, or an active `explicit_outbound` consent exists for the (line, recipient) pair. ' +
  'Refusals, in this order: validation (422), the line (403/404/409), `number_opted_out` (403), `conversation_window_expired` (403), `agent_cap_exceeded` / `insufficient_credits` (402). ' +
  'The price (1 ¢ per segment in zone A, times the zone multiplier) is held at once and charged when the carrier reports the message sent on (a `failed` message is free). ' +
  'Status moves queued → sent → delivered | undelivered | failed as receipts arrive. A 201 means the message is recorded and will be sent: ' +
  'it is handed to the carrier right after the answer, or within about 20 s when the sending service is briefly unreachable; ' +
  'a message that could not be handed over within 10 hours becomes `failed` with `error_code` `not_sent`, and its hold is released. ' +
  '`Idempotency-Key` is honoured: a retry returns the same message and sends nothing twice.';

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
            to: phoneNumber(),
            text: { type: 'string', minLength: 1, maxLength: MAX_SMS_TEXT_LENGTH, pattern: NOT_BLANK_PATTERN },
          },
        }),
        responses: { '201': jsonResponse('The message, unwrapped', ref('Message')), ...sendResponses },
      },
      handler: postMessage,
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
          properties: {
            to_number: phoneNumber(),
            message: { type: 'string', minLength: 1, maxLength: MAX_SMS_TEXT_LENGTH, pattern: NOT_BLANK_PATTERN },
          },
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
          '200': jsonResponse(
            '`{conversations, has_more, next_cursor}`',
            fields({ conversations: arrayOf(ref('Conversation')), ...cursorFields }),
          ),
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
          { name: 'phoneNumber', in: 'path', required: true, schema: phoneNumber(), description: 'Percent-encoded (`%2B14155550123`)' },
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
