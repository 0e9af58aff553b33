/** Lines (spec "Line"): the HTTP side; creating, changing, releasing a line and rotating its secret are use cases in src/domain/lines/. */
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { lineCreationError, lineReleaseError, lineUpdateError, secretRotationError } from '../lineErrors';
import { allowedLineIds, assertLineAllowed, assertMayAddLines } from '../lineAccess';
import { boundedListParams, carrierErrorResponse, errorResponse, ref, jsonRequestBody } from '../openapi/schemas';
import { offsetPage } from '../pagination';
import type { RouteDef } from '../routeTable';
import type { LineUpdate } from '../../src/domain/lines/rules';
import { linesOf, findLine, toLineRecord } from '../../src/domain/lines/store';
import { provisionLine, type LineRequest } from '../../src/domain/lines/provision';
import { releaseLine } from '../../src/domain/lines/release';
import { rotateLineSecret } from '../../src/domain/lines/rotateSecret';
import { updateLineSettings } from '../../src/domain/lines/update';
import { toCallRecord } from '../../src/domain/calls/store';
import { DEFAULT_INBOUND_WAIT_SECONDS, MAX_INBOUND_WAIT_SECONDS, waitForInboundCall } from '../../src/domain/calls/waitForInbound';

const lineIdParam = { name: 'id', in: 'path' as const, required: true, schema: { type: 'string', format: 'uuid' } };
const lineResponse = {
  content: { 'application/json': { schema: { type: 'object', required: ['line'], properties: { line: ref('Line') } } } },
};

async function createLine(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertMayAddLines(principal);
  const { workspaceId, userId, environment } = principal;
  const creator = { workspaceId, userId, environment, keyId: principal.key.id };
  const outcome = await provisionLine(deps, ctx.state.log, creator, ctx.state.body as LineRequest);
  if (!outcome.ok) throw lineCreationError(outcome);
  const line = toLineRecord(outcome.line);
  ctx.status = 201;
  ctx.set('Location', `/api/v1/lines/${line.id}`);
  ctx.body = { line, webhook_secret: outcome.webhookSecret };
  // The signing secret is shown once: an idempotent replay returns the line without it.
  ctx.state.replayBody = { line };
}

async function updateLine(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertLineAllowed(principal, ctx.params.id);
  const outcome = await updateLineSettings(deps, principal, ctx.params.id, ctx.state.body as LineUpdate);
  if (!outcome.ok) throw lineUpdateError(outcome);
  ctx.body = { line: toLineRecord(outcome.line) };
}

async function release(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertLineAllowed(principal, ctx.params.id);
  const outcome = await releaseLine(deps, ctx.state.log, principal, ctx.params.id);
  if (!outcome.ok) throw lineReleaseError(outcome);
  ctx.body = { line: toLineRecord(outcome.line) };
}

async function rotateSecret(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertLineAllowed(principal, ctx.params.id);
  const outcome = await rotateLineSecret(deps, ctx.state.log, principal, ctx.params.id);
  if (!outcome.ok) throw secretRotationError(outcome);
  const { rotatedAt, promotedPreviousNext } = outcome.rotation;
  ctx.body = { webhook_secret: outcome.webhookSecret, rotated_at: rotatedAt, promoted_previous_next: promotedPreviousNext };
  ctx.state.replayBody = { rotated_at: rotatedAt, promoted_previous_next: promotedPreviousNext };
}

/**
 * Holds the request until the line's next inbound call (src/domain/calls/waitForInbound.ts) or the
 * timeout. A client that goes away stops the wait, so no call is taken for nobody.
 */
async function waitForCall(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  assertLineAllowed(principal, ctx.params.id);
  const line = await findLine(deps.db, principal, ctx.params.id);
  if (!line) throw errors.notFound('Line');
  if (line.status === 'released') throw new ApiError(409, 'line_released', 'The line is released: it receives no calls');
  const body = (ctx.state.body ?? {}) as { timeout_seconds?: number };
  const gone = new AbortController();
  const onClose = () => {
    if (!ctx.res.writableFinished) gone.abort();
  };
  ctx.res.once('close', onClose);
  // Gone before the wait began (while the line was looked up).
  if (ctx.req.socket.destroyed) gone.abort();
  try {
    const call = await waitForInboundCall(
      deps,
      { workspaceId: principal.workspaceId, environment: principal.environment, lineId: line.id },
      { timeoutSeconds: body.timeout_seconds ?? DEFAULT_INBOUND_WAIT_SECONDS, signal: gone.signal },
    );
    ctx.body = call ? { call: toCallRecord(call, deps.config.publicBaseUrl), timed_out: false } : { call: null, timed_out: true };
  } finally {
    ctx.res.off('close', onClose);
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
          'provisioning is a durable workflow and completes on its own. A number that cannot be provisioned leaves the line `released`. ' +
          'The number is a local US one unless `country`, `number_type` and `area_code` ask otherwise, or `phone_number` imports one the carrier account owns. ' +
          'When the carrier has no number as asked, the answer is 422 `number_unavailable` (its detail names the field) and nothing is created; ' +
          'When the carrier refuses the number for another reason (Twilio’s 21631 “Phone Number Requires an Address”, a Telnyx order waiting on regulatory requirements, …), ' +
          'the answer is 502 `carrier_error` naming the provider and its code, and nothing is created either. ' +
          'If either is only known after the 201 (a slow carrier), the line ends `released` with `provisioning_error` saying the same.',
        tags: ['lines'],
        requestBody: jsonRequestBody(ref('LineCreateRequest')),
        responses: {
          '201': {
            description: '`{line, webhook_secret}`: the secret is shown only here',
            content: { 'application/json': { schema: ref('LineCreateResponse') } },
          },
          '400': errorResponse('`hosted_mode_language_pinning_unsupported`, `invalid_json`'),
          '402': errorResponse(
            '`payment_method_required`: live environment, the user already has a line and no default payment method. Replayed for 12 h under the same Idempotency-Key.',
          ),
          '422': errorResponse(
            '`validation_error`, one detail per field: among others a URL that leads to a non-public address or to one of Switchboard’s own services, or http/ws in live, ' +
              'an area code that is not one of the country’s (or not of that number type), or `phone_number` with search criteria. ' +
              '`number_unavailable`: the carrier has no number as asked (detail `field`: `area_code`, `number_type` or `country`), or `phone_number` cannot be imported ' +
              '(not granted to this workspace, held by a line, or not owned by the account: one answer for all); nothing was created.',
          ),
          '409': errorResponse('`idempotency_key_reused` or `idempotency_in_progress`'),
          '429': errorResponse('`rate_limited` (10 per hour per workspace and environment)'),
          '502': carrierErrorResponse('the number (to buy or to import it)'),
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
        description:
          'Offset pagination; the default page (100) holds every line of most workspaces, and `total` tells when there are more.',
        tags: ['lines'],
        parameters: boundedListParams(),
        responses: {
          '200': {
            description: '`{lines: [line], total}`',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['lines', 'total'],
                  properties: { lines: { type: 'array', items: ref('Line') }, total: { type: 'integer' } },
                },
              },
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
        const { rows, total } = await offsetPage(visible, { limit, offset });
        ctx.body = { lines: rows.map(toLineRecord), total };
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
          '422': errorResponse(
            '`validation_error`, one detail per field: among others a URL set here that leads to a non-public address or to one of Switchboard’s own services, or http/ws in live',
          ),
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
          'An imported number (`number_source: imported`) is only detached: the carrier account keeps it, no longer routed to Switchboard. ' +
          'Its active call is hung up (a call whose workflow is gone is ended by the recovery workflow).',
        tags: ['lines'],
        parameters: [lineIdParam],
        responses: { '200': { description: '`{line}` with `status: released`', ...lineResponse }, '404': errorResponse('`not_found`') },
      },
      handler: release,
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
    {
      method: 'post',
      path: '/api/v1/lines/{id}/calls/wait',
      operationId: 'waitForInboundCall',
      rateLimit: 'calls.control',
      auth: { kind: 'standard', scope: 'calls:control', verb: 'call' },
      doc: {
        summary: 'Wait for the next inbound call on a line',
        description:
          'Holds the request until a call comes in on the line, then answers with it (`timed_out: false`), or after `timeout_seconds` with `call: null, timed_out: true`. ' +
          'Each inbound call is given to one wait only: the oldest that no wait has taken yet and that is still ringing or in progress, or that arrived since the wait began ' +
          '(so a call already ringing when the wait starts is returned at once, and a short call that ended during the wait is returned with its final status). ' +
          'Concurrent waits on one line, from any client, each get a different call. A wait whose client disconnects takes nothing. ' +
          'The call is answered as the line’s mode says (`hosted`, `webhook`, `audio`); once `in_progress` it can be controlled (`speak`, `wait`, `press`, `transfer`, `hangup`).',
        tags: ['lines'],
        parameters: [lineIdParam],
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  timeout_seconds: {
                    type: 'integer',
                    minimum: 1,
                    maximum: MAX_INBOUND_WAIT_SECONDS,
                    default: DEFAULT_INBOUND_WAIT_SECONDS,
                    description:
                      'How long to wait for a call, in seconds (at most 50, so the answer comes within a client’s usual 60 s request timeout)',
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description:
              '`{call, timed_out}`: the call (status as it stands: `ringing`, `in_progress`, or ended), or null when none came in time',
            content: { 'application/json': { schema: ref('InboundCallWait') } },
          },
          '404': errorResponse('`not_found`: the line'),
          '409': errorResponse('`line_released`: a released line receives no calls'),
          '429': errorResponse('`rate_limited`'),
        },
      },
      handler: waitForCall,
    },
  ];
}
