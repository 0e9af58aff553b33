/** Webhook deliveries: their log and stats, and the test event (spec "Webhook delivery inspection"). */
import { principalOf, type AppContext, type AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { allowedLineIds, assertLineAllowed } from '../lineAccess';
import { arrayOf, errorResponse, fields, jsonResponse, offsetPaginationParams, ref, jsonRequestBody, total } from '../openapi/schemas';
import { offsetPage } from '../pagination';
import type { RouteDef } from '../routeTable';
import { EVENT_TYPES } from '../../src/domain/webhooks/events';
import { sendTestEvent } from '../../src/domain/webhooks/sendTest';
import { deliveriesOfTenant } from '../../src/domain/webhooks/store';

/** One delivery attempt on the wire. */
export function toDeliveryRecord(row: Record<string, unknown>) {
  return {
    id: row.id,
    event_id: row.event_id,
    line_id: row.line_id,
    call_id: row.call_id ?? null,
    event_type: row.event_type,
    url: row.url ?? null,
    status: row.status,
    http_status: row.http_status ?? null,
    error_message: row.error_message ?? null,
    attempt_count: row.attempt,
    request_body: row.request_body,
    response_body: row.response_body ?? null,
    duration_ms: row.duration_ms ?? null,
    created_at: (row.created_at as Date).toISOString(),
  };
}

function deliveriesOf(ctx: AppContext, deps: AppDeps) {
  const principal = principalOf(ctx);
  const query = deliveriesOfTenant(deps.db, principal);
  const allowed = allowedLineIds(principal);
  if (allowed) query.whereIn('line_id', [...allowed]);
  return query;
}

async function listDeliveries(ctx: AppContext, deps: AppDeps): Promise<void> {
  const q = ctx.state.query as { status?: string; line_id?: string; event_type?: string; limit: number; offset: number };
  if (q.line_id) assertLineAllowed(principalOf(ctx), q.line_id);
  const filtered = () => {
    const query = deliveriesOf(ctx, deps);
    if (q.status) query.andWhere({ status: q.status });
    if (q.line_id) query.andWhere({ line_id: q.line_id });
    if (q.event_type) query.andWhere({ event_type: q.event_type });
    return query;
  };
  const { rows, total } = await offsetPage(filtered, q);
  ctx.body = { deliveries: rows.map(toDeliveryRecord), total };
}

/** Stats cover a bounded window, so the query reads an index range, not a workspace's whole history. */
const STATS_WINDOW_MS = 7 * 24 * 3600_000;
const STATS_BY_HOUR_MS = 24 * 3600_000;

async function stats(ctx: AppContext, deps: AppDeps): Promise<void> {
  const q = ctx.state.query as { line_id?: string };
  if (q.line_id) assertLineAllowed(principalOf(ctx), q.line_id);
  const now = deps.now().getTime();
  const since = new Date(now - STATS_WINDOW_MS);
  const scoped = (from: Date) => {
    const query = deliveriesOf(ctx, deps).andWhere('created_at', '>=', from);
    if (q.line_id) query.andWhere({ line_id: q.line_id });
    return query;
  };
  const counts = (db: AppDeps['db']) => [
    db.raw('count(*)::int as total'),
    db.raw("count(*) filter (where status = 'success')::int as success"),
    db.raw("count(*) filter (where status = 'failed')::int as failed"),
  ];
  const [[overall], byType, byHour] = await Promise.all([
    scoped(since).select(counts(deps.db)),
    scoped(since)
      .select('event_type', ...counts(deps.db))
      .groupBy('event_type')
      .orderBy('event_type'),
    scoped(new Date(now - STATS_BY_HOUR_MS))
      .select(
        deps.db.raw("to_char(date_trunc('hour', created_at at time zone 'UTC'), 'YYYY-MM-DD\"T\"HH24:00:00\"Z\"') as hour"),
        ...counts(deps.db),
      )
      .groupByRaw('1')
      .orderBy('hour'),
  ]);
  const finished = overall.success + overall.failed;
  ctx.body = {
    total: overall.total,
    success: overall.success,
    failed: overall.failed,
    // Share of finished attempts that succeeded, 0..1 (pending attempts are not judged yet); 0 when
    // none finished, as the client types it a number, never null.
    success_rate: finished === 0 ? 0 : Math.round((overall.success / finished) * 10_000) / 10_000,
    by_event_type: byType,
    by_hour: byHour,
    since: since.toISOString(),
  };
}

async function sendTest(ctx: AppContext, deps: AppDeps): Promise<void> {
  const principal = principalOf(ctx);
  const { line_id: lineId } = ctx.state.body as { line_id: string };
  assertLineAllowed(principal, lineId);
  const outcome = await sendTestEvent(deps, { ...principal, keyId: principal.key.id }, lineId);
  if (!outcome.ok) {
    if (outcome.refused === 'not_found') throw errors.notFound('Line');
    throw new ApiError(409, 'line_released', 'This line is released');
  }
  const { eventId, finished, delivery: row } = outcome.attempt;
  if (!finished) ctx.status = 202;
  ctx.body = {
    delivery: row
      ? {
          id: row.id,
          event_id: eventId,
          status: row.status,
          http_status: row.http_status,
          duration_ms: row.duration_ms,
          response_body: row.response_body,
          error_message: row.error_message,
        }
      : { id: null, event_id: eventId, status: 'pending', http_status: null, duration_ms: null, response_body: null, error_message: null },
  };
}

const deliveryFilters = [
  { name: 'status', in: 'query' as const, schema: { type: 'string', enum: ['success', 'failed', 'pending'] } },
  { name: 'line_id', in: 'query' as const, schema: { type: 'string', format: 'uuid' } },
  { name: 'event_type', in: 'query' as const, schema: { type: 'string', enum: EVENT_TYPES } },
  ...offsetPaginationParams(),
];

export function webhookRoutes(): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/api/v1/webhooks/deliveries',
      operationId: 'listWebhookDeliveries',
      rateLimit: 'reads',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: {
        summary: 'Delivery attempts, newest first: one row per attempt',
        tags: ['webhooks'],
        parameters: deliveryFilters,
        responses: {
          '200': jsonResponse('`{deliveries, total}`', fields({ deliveries: arrayOf(ref('WebhookDelivery')), total })),
        },
      },
      handler: listDeliveries,
    },
    {
      method: 'get',
      path: '/api/v1/webhooks/stats',
      operationId: 'webhookStats',
      rateLimit: 'reads',
      auth: { kind: 'standard', scope: 'read', verb: 'read' },
      doc: {
        summary: 'Totals, success rate and counts by event type over the last 7 days (from `since`), and by hour for the last 24 hours',
        description:
          '`success_rate` is the share of finished attempts that succeeded, 0..1, and 0 when none has finished. Pending attempts count in `total` only.',
        tags: ['webhooks'],
        parameters: [{ name: 'line_id', in: 'query', schema: { type: 'string', format: 'uuid' } }],
        responses: { '200': jsonResponse('Unwrapped stats object', ref('WebhookStats')) },
      },
      handler: stats,
    },
    {
      method: 'post',
      path: '/api/v1/webhooks/test',
      operationId: 'sendTestWebhook',
      auth: { kind: 'standard', scope: 'webhooks:write', verb: 'admin' },
      rateLimit: 'webhooks.test',
      doc: {
        summary: "Send a signed `test` event to the line's webhook_url and return the attempt's result",
        description:
          'One attempt, 5 s timeout, no retries; the attempt is in the delivery log like any other. The request waits for the attempt a bounded time ' +
          '(`WEBHOOK_TEST_WAIT_MS`, 15 s); if it has not finished by then the answer is 202 with `status: pending` (and `id: null` when the attempt has not started), ' +
          'and the finished attempt appears in `GET /api/v1/webhooks/deliveries`.',
        tags: ['webhooks'],
        requestBody: jsonRequestBody({
          type: 'object',
          additionalProperties: false,
          required: ['line_id'],
          properties: { line_id: { type: 'string', format: 'uuid' } },
        }),
        responses: {
          '200': jsonResponse(
            '`{delivery: {id, event_id, status, http_status, duration_ms, response_body, error_message}}`: the finished attempt',
            fields({ delivery: ref('TestDelivery') }),
          ),
          '202': jsonResponse(
            '`{delivery: {id, event_id, status: "pending", ...}}`: the attempt had not finished within the wait',
            fields({ delivery: ref('TestDelivery') }),
          ),
          '404': errorResponse('`not_found`'),
          '409': errorResponse('`line_released`'),
        },
      },
      handler: sendTest,
    },
  ];
}
