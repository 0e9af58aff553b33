import crypto from 'node:crypto';
import { holdRefusalError } from '../billingErrors';
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { allowedLineIds, assertLineAllowed } from '../lineAccess';
import { errorResponse, offsetPaginationParams, jsonRequestBody } from '../openapi/schemas';
import type { RouteDef } from './types';
import { placeHold, releaseHold } from '../../src/billing/holds';
import { hasDefaultPaymentMethod } from '../../src/billing/paymentMethods';
import { oneMinuteReserveCents, zoneOf } from '../../src/billing/pricing';
import { isPremiumRate } from '../../src/calls/fraud';
import { CALL_STATUSES } from '../../src/calls/rules';
import { callOpening, toCallRecord, type CallRow } from '../../src/calls/store';
import { activeConsent } from '../../src/compliance/consent';
import { isOptedOut } from '../../src/compliance/optOuts';
import { findLine } from '../../src/lines/store';
import { toE164 } from '../../src/phone';
import { hangupSignal, type callWorkflow } from '../../workflows/calls';

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

async function findCall(ctx: AppContext, deps: AppDeps): Promise<CallRow> {
  const principal = principalOf(ctx);
  const row = await callsOf(ctx, deps).andWhere({ id: ctx.params.id }).first();
  if (!row) throw new ApiError(404, 'call_not_found', 'No call with this id');
  assertLineAllowed(principal, row.line_id);
  return row;
}

async function placeCall(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const body = ctx.state.body as { line_id: string; to_number: string };
  const to = toE164(body.to_number);
  if (!to) throw errors.validation([{ field: 'to_number', message: 'Must be a valid phone number in E.164 (+14155550123)' }]);
  assertLineAllowed(principal, body.line_id);
  const line = await findLine(deps.db, principal, body.line_id);
  if (!line) throw errors.notFound('Line');
  if (line.status !== 'active' || !line.phone_number) throw new ApiError(409, 'line_not_active', `The line is ${line.status}; calls need an active line`);
  if (line.mode === 'webhook' && !line.webhook_url) {
    const account = await deps.db('billing_accounts').where({ workspace_id: principal.workspaceId, environment: principal.environment }).first('default_webhook_url');
    if (!account?.default_webhook_url) throw new ApiError(422, 'line_no_webhook', 'This webhook line has no webhook_url (and the workspace has no default_webhook_url)');
  }
  if (await isOptedOut(deps.db, principal, to)) throw new ApiError(403, 'number_opted_out', 'This number has opted out of calls and messages from this workspace');
  if (line.compliance_enabled && !(await activeConsent(deps.db, principal, line.id, to, 'explicit_outbound'))) {
    throw new ApiError(403, 'consent_required', 'This line checks consent: record an explicit_outbound consent for the number first');
  }

  const zone = zoneOf(to);
  const reserve = oneMinuteReserveCents(line.mode, zone);
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
          mode: line.mode,
          zone,
          system_prompt: line.system_prompt,
          begin_message: line.begin_message,
          created_at: now,
        })
        .returning('*');
    } catch (err) {
      if ((err as { constraint?: string }).constraint === 'calls_one_active_per_line') throw new ApiError(409, 'call_in_progress', 'This line already has an active call');
      throw err;
    }
    if (isPremiumRate(to) && !(await hasDefaultPaymentMethod(trx, principal.userId))) {
      // No details on purpose: the heuristic is not explained to whoever trips it.
      throw new ApiError(403, 'm3_fraud_block', 'This destination is blocked');
    }
    const hold = await placeHold(trx, { tenant: principal, keyId: principal.key.id, reference: `call:${callId}`, amountCents: reserve, at: now });
    if (!hold.ok) throw holdRefusalError(hold.refusal);
    return inserted;
  });

  try {
    await deps.temporal.workflow.start<typeof callWorkflow>('callWorkflow', {
      taskQueue: deps.config.taskQueue,
      workflowId: callId,
      args: [
        {
          callId,
          workspaceId: principal.workspaceId,
          environment: principal.environment,
          lineId: line.id,
          keyId: principal.key.id,
          direction: 'outbound',
          from: row.from_number,
          to,
          mode: line.mode,
          zone,
          reservePerMinuteCents: reserve,
          ...(await callOpening(deps.db, line)),
        },
      ],
    });
  } catch (err) {
    ctx.state.log.error({ err, call_id: callId }, 'could not start the call workflow');
    await releaseHold(deps.db, { tenant: principal, reference: `call:${callId}`, at: deps.now() });
    await deps.db('calls').where({ id: callId }).update({ status: 'failed', end_cause: 'carrier_failed', ended_at: deps.now() });
    throw new ApiError(503, 'service_unavailable', 'The call could not be placed right now; retry shortly');
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
  if (['initiated', 'ringing', 'in_progress'].includes(row.status)) {
    const handle = deps.temporal.workflow.getHandle(row.id);
    await handle.signal(hangupSignal);
    // Answer with the ended call when it ends promptly (it usually does), else as it stands.
    await Promise.race([handle.result().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }
  const current = await callsOf(ctx, deps).andWhere({ id: row.id }).first();
  ctx.body = { call: toCallRecord(current ?? row) };
}

const callIdParam = { name: 'id', in: 'path' as const, required: true, schema: { type: 'string', format: 'uuid' } };

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
          '201': { description: '`{call}` with status `initiated`' },
          '402': errorResponse('`insufficient_credits` or `agent_cap_exceeded` (details spent_cents, cap_cents, cycle_reset_at)'),
          '403': errorResponse('`number_opted_out`, `consent_required`, `m3_fraud_block`, `agent_permission_denied`, `forbidden`'),
          '404': errorResponse('`not_found`: the line'),
          '409': errorResponse('`call_in_progress`, `line_not_active`'),
        },
      },
      handler: placeCall,
    },
    {
      method: 'get',
      path: '/api/v1/calls',
      operationId: 'listCalls',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: {
        summary: 'Calls, newest first',
        tags: ['calls'],
        parameters: [
          { name: 'line_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: [...CALL_STATUSES] } },
          ...offsetPaginationParams(),
        ],
        responses: { '200': { description: '`{calls, total}`' } },
      },
      handler: listCalls,
    },
    {
      method: 'get',
      path: '/api/v1/calls/{id}',
      operationId: 'getCall',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: { summary: 'One call, with its transcript', tags: ['calls'], parameters: [callIdParam], responses: { '200': { description: '`{call}`' }, '404': errorResponse('`call_not_found`') } },
      handler: async (ctx, deps) => {
        ctx.body = { call: toCallRecord(await findCall(ctx, deps)) };
      },
    },
    {
      method: 'post',
      path: '/api/v1/calls/{id}/hangup',
      operationId: 'hangUpCall',
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      doc: {
        summary: 'Hang up a call (an empty body is fine); answers with the ended call',
        tags: ['calls'],
        parameters: [callIdParam],
        responses: { '200': { description: '`{call}`' }, '404': errorResponse('`call_not_found`') },
      },
      handler: hangUp,
    },
  ];
}
