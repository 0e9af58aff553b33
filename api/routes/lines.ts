import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { allowedLineIds, assertLineAllowed, assertMayAddLines } from '../lineAccess';
import { errorResponse, ref } from '../openapi/schemas';
import type { RouteDef } from './types';
import { hasDefaultPaymentMethod } from '../../src/billing/paymentMethods';
import {
  DEFAULT_LANGUAGE,
  FIRST_LINE_GRACE_DAYS,
  isLanguagePinningRefused,
  lineFieldProblems,
  normalizeMode,
  normalizeVoice,
} from '../../src/lines/rules';
import { findLine, linesOf, toLineRecord, type LineRow } from '../../src/lines/store';
import { workflowIds } from '../../workflows/ids';
import type { provisionLineWorkflow } from '../../workflows/lines';

interface LineCreateBody {
  name: string;
  mode: string;
  display_name?: string | null;
  system_prompt?: string | null;
  begin_message?: string | null;
  voice?: string | null;
  context_limit?: number | null;
  webhook_url?: string | null;
  audio_handler_url?: string | null;
  status_callback_url?: string | null;
  recording_enabled?: boolean;
  compliance_enabled?: boolean;
  language?: string;
  endpointing_ms?: number | null;
}

const lineIdParam = { name: 'id', in: 'path' as const, required: true, schema: { type: 'string', format: 'uuid' } };
const lineResponse = { content: { 'application/json': { schema: { type: 'object', required: ['line'], properties: { line: ref('Line') } } } } };

const DAY_MS = 24 * 60 * 60 * 1000;

async function createLine(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertMayAddLines(principal);
  const body = ctx.state.body as LineCreateBody;
  const mode = normalizeMode(body.mode);
  const voice = normalizeVoice(body.voice);
  const problems = lineFieldProblems({ ...body, mode, voice });
  if (problems.length > 0) throw errors.validation(problems);
  if (isLanguagePinningRefused(mode, body.language)) {
    throw new ApiError(400, 'hosted_mode_language_pinning_unsupported', 'Hosted lines detect the language of each utterance; they cannot be pinned to one');
  }

  const now = deps.now();
  const row = await deps.db.transaction(async (trx) => {
    // Serialise line creation per user so two concurrent "first lines" cannot both be free.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`lines:create:${principal.userId}`]);
    const previous = await trx('lines').where({ user_id: principal.userId, environment: principal.environment }).count<{ count: string }[]>('id as count');
    const isFirstLine = Number(previous[0].count) === 0;
    if (principal.environment === 'live' && !isFirstLine && !(await hasDefaultPaymentMethod(trx, principal.userId))) {
      throw new ApiError(402, 'payment_method_required', 'Add a default payment method before creating another live line; the first line is free for 30 days');
    }
    const [inserted] = await trx<LineRow>('lines')
      .insert({
        workspace_id: principal.workspaceId,
        user_id: principal.userId,
        environment: principal.environment,
        name: body.name,
        display_name: body.display_name ?? null,
        mode,
        system_prompt: body.system_prompt ?? null,
        begin_message: body.begin_message ?? null,
        voice: voice ?? null,
        context_limit: body.context_limit ?? null,
        webhook_url: body.webhook_url ?? null,
        audio_handler_url: body.audio_handler_url ?? null,
        status_callback_url: body.status_callback_url ?? null,
        recording_enabled: body.recording_enabled ?? false,
        compliance_enabled: body.compliance_enabled ?? false,
        language: body.language ?? DEFAULT_LANGUAGE,
        endpointing_ms: body.endpointing_ms ?? null,
        status: 'provisioning',
        grace_ends_at: principal.environment === 'live' && isFirstLine ? new Date(now.getTime() + FIRST_LINE_GRACE_DAYS * DAY_MS) : null,
        created_by_key_id: principal.key.id,
        created_at: now,
        updated_at: now,
      })
      .returning('*');
    return inserted;
  });

  const handle = await startProvisioning(deps, row, ctx);
  ctx.state.log.info({ line_id: row.id, mode }, 'line created; provisioning its number');
  // Most numbers are ready within a second: answer with the active line when we can, and
  // with status `provisioning` (the workflow carries on) when the carrier is slow.
  await Promise.race([handle.result().catch(() => undefined), delay(deps.config.lineProvisionWaitMs)]);
  const current = (await findLine(deps.db, principal, row.id)) ?? row;
  ctx.status = 201;
  ctx.set('Location', `/api/v1/lines/${row.id}`);
  ctx.body = { line: toLineRecord(current) };
}

async function startProvisioning(deps: AppDeps, row: LineRow, ctx: AppContext) {
  try {
    return await deps.temporal.workflow.start<typeof provisionLineWorkflow>('provisionLineWorkflow', {
      taskQueue: deps.config.taskQueue,
      workflowId: workflowIds.provisionLine(row.id),
      args: [{ lineId: row.id }],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return deps.temporal.workflow.getHandle(workflowIds.provisionLine(row.id));
    ctx.state.log.error({ err, line_id: row.id }, 'could not start line provisioning');
    await deps.db('lines').where({ id: row.id, status: 'provisioning' }).update({ status: 'released', failure_reason: 'provisioning could not start', released_at: deps.now() });
    throw new ApiError(503, 'service_unavailable', 'The line could not be provisioned right now; retry shortly');
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export function lineRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/lines',
      operationId: 'createLine',
      auth: { kind: 'standard', scope: 'numbers:provision', verb: 'admin' },
      rateLimit: 'lines.create',
      idempotency: { required: false },
      doc: {
        summary: 'Create a line and provision its phone number',
        description:
          'Answers 201 once the number is assigned (`status: active`), or with `status: provisioning` if the carrier takes longer than a few seconds; ' +
          'provisioning is a durable workflow and completes on its own. A number that cannot be provisioned leaves the line `released`.',
        tags: ['lines'],
        requestBody: { required: true, content: { 'application/json': { schema: ref('LineCreateRequest') } } },
        responses: {
          '201': { description: 'The new line, wrapped as `{line}`', ...lineResponse },
          '400': errorResponse('`hosted_mode_language_pinning_unsupported`, `invalid_json`'),
          '402': errorResponse('`payment_method_required`: live environment, the user already has a line and no default payment method. Replayed for 12 h under the same Idempotency-Key.'),
          '409': errorResponse('`idempotency_key_reused` or `idempotency_in_progress`'),
          '429': errorResponse('`rate_limited` (10 per hour per workspace and environment)'),
          '503': errorResponse('`service_unavailable`: provisioning could not be started'),
        },
      },
      handler: createLine,
    },
    {
      method: 'get',
      path: '/api/v1/lines',
      operationId: 'listLines',
      auth: { kind: 'standard', scope: 'numbers:read', verb: 'read' },
      doc: {
        summary: "List the workspace's lines in this environment, newest first",
        tags: ['lines'],
        responses: {
          '200': {
            description: '`{lines: [line]}`',
            content: { 'application/json': { schema: { type: 'object', required: ['lines'], properties: { lines: { type: 'array', items: ref('Line') } } } } },
          },
        },
      },
      handler: async (ctx, deps) => {
        const principal = principalOf(ctx);
        const allowed = allowedLineIds(principal);
        const query = linesOf(deps.db, principal);
        if (allowed) query.whereIn('id', [...allowed]);
        const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
        ctx.body = { lines: rows.map(toLineRecord) };
      },
    },
    {
      method: 'get',
      path: '/api/v1/lines/{id}',
      operationId: 'getLine',
      auth: { kind: 'standard', scope: 'numbers:read', verb: 'read' },
      doc: {
        summary: 'Fetch one line',
        tags: ['lines'],
        parameters: [lineIdParam],
        responses: { '200': { description: '`{line}`', ...lineResponse }, '404': errorResponse('`not_found`') },
      },
      handler: async (ctx, deps) => {
        const principal = principalOf(ctx);
        assertLineAllowed(principal, ctx.params.id);
        const row = await findLine(deps.db, principal, ctx.params.id);
        if (!row) throw errors.notFound('Line');
        ctx.body = { line: toLineRecord(row) };
      },
    },
  ];
}
