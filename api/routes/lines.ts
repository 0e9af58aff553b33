import { ApplicationFailure, WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { allowedLineIds, assertLineAllowed, assertMayAddLines } from '../lineAccess';
import { boundedListParams, errorResponse, ref, jsonRequestBody } from '../openapi/schemas';
import type { RouteDef } from './types';
import { hasDefaultPaymentMethod } from '../../src/domain/billing/paymentMethods';
import {
  DEFAULT_LANGUAGE,
  FIRST_LINE_GRACE_DAYS,
  isLanguagePinningRefused,
  lineFieldProblems,
  lineUpdateChanges,
  normalizeMode,
  type LineUpdate,
  normalizeVoice,
} from '../../src/domain/lines/rules';
import { createCurrentSecret, readSecret } from '../../src/domain/lines/secrets';
import { findLine, linesOf, toLineRecord, type LineRow } from '../../src/domain/lines/store';
import { requireSetting } from '../../src/platform/config';
import { egressPolicyFor } from '../../src/platform/net/egress';
import { parseSecretsKey, type SecretsKeyRing } from '../../src/platform/crypto/secretBox';
import { endActiveCall } from '../../src/domain/calls/hangup';
import { waitForResult } from '../../src/platform/temporal/waitForResult';
import { ACTIVE_CALL_STATUSES } from '../../src/domain/calls/rules';
import { workflowIds } from '../../workflows/definitions/ids';
import type { provisionLineWorkflow, releaseLineWorkflow } from '../../workflows/lines';
import { rotateSecretUpdate, type RotateSecretResult } from '../../workflows/definitions/lines';
import type { lineSecretsWorkflow } from '../../workflows/lineSecrets';

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
  await assertReachableUrls(deps, principal.environment, body);

  const now = deps.now();
  const { secret, ...row } = await deps.db.transaction(async (trx) => {
    // Serialise line creation per user so two concurrent "first lines" cannot both be free.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`lines:create:${principal.userId}`]);
    const previous = await trx('lines').where({ user_id: principal.userId, environment: principal.environment }).count<{ count: string }[]>('id as count');
    const isFirstLine = Number(previous[0].count) === 0;
    if (principal.environment === 'live' && !isFirstLine && !(await hasDefaultPaymentMethod(trx, principal.userId, 'live'))) {
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
        // The first line of each environment is free for 30 days: test bills as live does.
        grace_ends_at: isFirstLine ? new Date(now.getTime() + FIRST_LINE_GRACE_DAYS * DAY_MS) : null,
        created_by_key_id: principal.key.id,
        created_at: now,
        updated_at: now,
      })
      .returning('*');
    const secret = await createCurrentSecret(trx, sealingKey(deps), inserted.id, now);
    return { ...inserted, secret };
  });

  const handle = await startProvisioning(deps, row, ctx);
  ctx.state.log.info({ line_id: row.id, mode }, 'line created; provisioning its number');
  // Most numbers are ready within a second: answer with the active line when we can, and
  // with status `provisioning` (the workflow carries on) when the carrier is slow.
  await waitForResult(deps.temporal, handle, deps.config.lineProvisionWaitMs).catch(() => undefined);
  const current = (await findLine(deps.db, principal, row.id)) ?? row;
  ctx.status = 201;
  ctx.set('Location', `/api/v1/lines/${row.id}`);
  ctx.body = { line: toLineRecord(current), webhook_secret: secret };
  // The signing secret is shown once: an idempotent replay returns the line without it.
  ctx.state.replayBody = { line: toLineRecord(current) };
}

/** H2: a line's customer URLs must lead to public addresses, never to Switchboard's own services (src/platform/net/egress.ts). */
async function assertReachableUrls(deps: AppDeps, environment: 'test' | 'live', fields: { webhook_url?: unknown; status_callback_url?: unknown; audio_handler_url?: unknown }): Promise<void> {
  const { webhook_url, status_callback_url, audio_handler_url } = fields;
  const problems = await egressPolicyFor(deps.config).fieldProblems({ webhook_url, status_callback_url, audio_handler_url }, environment);
  if (problems.length > 0) throw errors.validation(problems);
}

/** Loads a line the key may act on; 404 across tenants, 409 once released. */
async function mutableLine(ctx: AppContext, deps: AppDeps): Promise<LineRow> {
  const principal = principalOf(ctx);
  assertLineAllowed(principal, ctx.params.id);
  const row = await findLine(deps.db, principal, ctx.params.id);
  if (!row) throw errors.notFound('Line');
  if (row.status === 'released') throw new ApiError(409, 'line_released', 'This line is released; it cannot be changed or used');
  return row;
}

async function updateLine(ctx: AppContext, deps: AppDeps): Promise<void> {
  const row = await mutableLine(ctx, deps);
  const update = ctx.state.body as LineUpdate;
  const changes = lineUpdateChanges(row, update);
  const merged = { ...row, ...changes } as LineRow;
  const problems = lineFieldProblems(merged, { webhookUrlOptional: merged.mode === row.mode });
  if (problems.length > 0) throw errors.validation(problems);
  if (isLanguagePinningRefused(merged.mode, update.language)) {
    throw new ApiError(400, 'hosted_mode_language_pinning_unsupported', 'Hosted lines detect the language of each utterance; they cannot be pinned to one');
  }
  // Only the URLs this request sets: a stored one was checked when it was saved (and is at every connection).
  await assertReachableUrls(deps, principalOf(ctx).environment, update);
  const now = deps.now();
  const [updated] = await deps.db<LineRow>('lines').where({ id: row.id }).update({ ...changes, updated_at: now }).returning('*');
  ctx.body = { line: toLineRecord(updated) };
}

async function releaseLine(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertLineAllowed(principal, ctx.params.id);
  const row = await findLine(deps.db, principal, ctx.params.id);
  if (!row) throw errors.notFound('Line');
  if (row.status === 'released') {
    ctx.body = { line: toLineRecord(row) };
    return;
  }
  const now = deps.now();
  const released = await deps.db.transaction(async (trx) => {
    const [updated] = await trx<LineRow>('lines').where({ id: row.id }).update({ status: 'released', released_at: now, updated_at: now }).returning('*');
    // Started inside the transaction: if Temporal is down the release rolls back (503); the
    // workflow itself waits until it sees the committed release before touching the carrier.
    try {
      await deps.temporal.workflow.start<typeof releaseLineWorkflow>('releaseLineWorkflow', {
        taskQueue: deps.config.taskQueue,
        workflowId: workflowIds.releaseLine(row.id),
        args: [{ lineId: row.id }],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        ctx.state.log.error({ err, line_id: row.id }, 'could not start line release');
        throw new ApiError(503, 'service_unavailable', 'The line could not be released right now; retry shortly');
      }
    }
    return updated;
  });
  // A released line keeps no call: hang up the active one (its workflow settles it as usual).
  const active = await deps.db('calls').where({ line_id: row.id }).whereIn('status', [...ACTIVE_CALL_STATUSES]).pluck('id');
  for (const callId of active) {
    try {
      // A call whose workflow is gone is ended by the recovery workflow (L11).
      await endActiveCall(deps.temporal, deps.config.taskQueue, callId);
    } catch (err) {
      // The release has committed; the recovery sweeper ends a call this could not reach.
      ctx.state.log.error({ err, call_id: callId, line_id: row.id }, 'could not hang up the released line’s call');
    }
  }
  ctx.state.log.info({ line_id: row.id, hung_up_calls: active.length }, 'line released');
  ctx.body = { line: toLineRecord(released) };
}

async function rotateSecret(ctx: AppContext, deps: AppDeps): Promise<void> {
  const row = await mutableLine(ctx, deps);
  const requestedAt = deps.now().toISOString();
  let result: RotateSecretResult;
  try {
    result = await deps.temporal.workflow.executeUpdateWithStart(rotateSecretUpdate, {
      args: [{ requestedAt }],
      startWorkflowOperation: new WithStartWorkflowOperation<typeof lineSecretsWorkflow>('lineSecretsWorkflow', {
        workflowId: workflowIds.lineSecrets(row.id),
        taskQueue: deps.config.taskQueue,
        args: [row.id],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'RotationTooSoon') {
      throw new ApiError(409, 'secret_rotation_too_soon', 'A secret is already staged; it can be promoted 24 hours after it was staged', [
        { field: 'promotable_at', message: String(cause.details?.[0]) },
      ]);
    }
    throw err;
  }
  const secret = await readSecret(deps.db, sealingKey(deps), result.secretId);
  if (!secret) throw new Error(`staged secret ${result.secretId} is missing`);
  ctx.state.log.info({ line_id: row.id, promoted: result.promotedPreviousNext }, 'webhook secret rotated');
  ctx.body = { webhook_secret: secret, rotated_at: result.rotatedAt, promoted_previous_next: result.promotedPreviousNext };
  ctx.state.replayBody = { rotated_at: result.rotatedAt, promoted_previous_next: result.promotedPreviousNext };
}

function sealingKey(deps: AppDeps): SecretsKeyRing {
  return parseSecretsKey(requireSetting(deps.config.secretsKey, 'SECRETS_KEY'));
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

export function lineRoutes(): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/api/v1/lines',
      operationId: 'createLine',
      // A system prompt of 20000 characters may take 120 KB as escaped JSON.
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'standard', scope: 'numbers:provision', verb: 'admin' },
      rateLimit: 'lines.create',
      idempotency: { required: false },
      doc: {
        summary: 'Create a line and provision its phone number',
        description:
          'Answers 201 once the number is assigned (`status: active`), or with `status: provisioning` if the carrier takes longer than a few seconds; ' +
          'provisioning is a durable workflow and completes on its own. A number that cannot be provisioned leaves the line `released`.',
        tags: ['lines'],
        requestBody: jsonRequestBody(ref('LineCreateRequest')),
        responses: {
          '201': { description: '`{line, webhook_secret}`: the secret is shown only here', content: { 'application/json': { schema: ref('LineCreateResponse') } } },
          '400': errorResponse('`hosted_mode_language_pinning_unsupported`, `invalid_json`'),
          '402': errorResponse('`payment_method_required`: live environment, the user already has a line and no default payment method. Replayed for 12 h under the same Idempotency-Key.'),
          '422': errorResponse('`validation_error`, one detail per field: among others a URL that leads to a non-public address or to one of Switchboard’s own services, or http/ws in live'),
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
      rateLimit: 'reads',
      auth: { kind: 'standard', scope: 'numbers:read', verb: 'read' },
      doc: {
        summary: "List the workspace's lines in this environment, newest first",
        description: 'Offset pagination; the default page (100) holds every line of most workspaces, and `total` tells when there are more.',
        tags: ['lines'],
        parameters: boundedListParams(),
        responses: {
          '200': {
            description: '`{lines: [line], total}`',
            content: {
              'application/json': { schema: { type: 'object', required: ['lines', 'total'], properties: { lines: { type: 'array', items: ref('Line') }, total: { type: 'integer' } } } },
            },
          },
        },
      },
      handler: async (ctx, deps) => {
        const principal = principalOf(ctx);
        const { limit, offset } = ctx.state.query as { limit: number; offset: number };
        const allowed = allowedLineIds(principal);
        const visible = () => {
          const query = linesOf(deps.db, principal);
          if (allowed) query.whereIn('id', [...allowed]);
          return query;
        };
        const [rows, [{ total }]] = await Promise.all([
          visible().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).offset(offset),
          visible().count<{ total: string }[]>('id as total'),
        ]);
        ctx.body = { lines: rows.map(toLineRecord), total: Number(total) };
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
    {
      method: 'patch',
      path: '/api/v1/lines/{id}',
      operationId: 'updateLine',
      bodyLimitBytes: 256 * 1024,
      auth: { kind: 'standard', scope: 'connections:write', verb: 'admin' },
      rateLimit: 'lines.update',
      doc: {
        summary: 'Change a line (the only way to set `language` after creation)',
        tags: ['lines'],
        parameters: [lineIdParam],
        requestBody: jsonRequestBody(ref('LineUpdateRequest')),
        responses: {
          '200': { description: '`{line}`', ...lineResponse },
          '400': errorResponse('`hosted_mode_language_pinning_unsupported` (judged on the effective mode)'),
          '422': errorResponse('`validation_error`, one detail per field: among others a URL set here that leads to a non-public address or to one of Switchboard’s own services, or http/ws in live'),
          '404': errorResponse('`not_found`'),
          '409': errorResponse('`line_released`'),
        },
      },
      handler: updateLine,
    },
    {
      method: 'delete',
      path: '/api/v1/lines/{id}',
      operationId: 'releaseLine',
      auth: { kind: 'standard', scope: 'numbers:release', verb: 'admin' },
      rateLimit: 'lines.delete',
      doc: {
        summary: 'Release a line: status `released`, its number given back to the carrier',
        description:
          'Idempotent: releasing a released line answers the same record. A released line cannot be changed, bound to keys or used. ' +
          'Its active call is hung up (a call whose workflow is gone is ended by the recovery workflow).',
        tags: ['lines'],
        parameters: [lineIdParam],
        responses: { '200': { description: '`{line}` with `status: released`', ...lineResponse }, '404': errorResponse('`not_found`') },
      },
      handler: releaseLine,
    },
    {
      method: 'post',
      path: '/api/v1/lines/{id}/webhook-secret/rotate',
      operationId: 'rotateLineWebhookSecret',
      rateLimit: 'lines.secret_rotate',
      auth: { kind: 'standard', scope: 'webhooks:write', verb: 'admin' },
      idempotency: { required: false },
      doc: {
        summary: 'Stage a new signing secret, or promote the staged one after 24 hours',
        description:
          'No body. First call: stages a new secret (returned once); the current one keeps signing. A call at least 24 hours after the staging promotes the staged secret ' +
          'to current and stages a fresh one (`promoted_previous_next: true`). A call within the 24 hours is 409 `secret_rotation_too_soon` with `promotable_at`.',
        tags: ['lines'],
        parameters: [lineIdParam],
        responses: {
          '200': { description: 'The rotation', content: { 'application/json': { schema: ref('SecretRotation') } } },
          '404': errorResponse('`not_found`'),
          '409': errorResponse('`secret_rotation_too_soon` or `line_released`'),
        },
      },
      handler: rotateSecret,
    },
  ];
}
