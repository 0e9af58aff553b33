import type { RouteDef } from '../routeTable';
import type { AppContext, AppDeps } from '../context';
import { ApiError, errors } from '../errors';
import { errorResponse, fields, jsonResponse } from '../openapi/schemas';
import { registry } from '../metrics';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';
import { configurationProblems } from '../../src/platform/startupCheck';
import { metricsAccess, METRICS_UNAUTHORIZED_MESSAGE } from '../../src/platform/metrics/access';

/**
 * Liveness, readiness and the OpenAPI document: no authentication. Metrics: a bearer when
 * METRICS_TOKEN is set, otherwise only in the dev profile (security review L5).
 */
export function systemRoutes(openApiYaml: () => string): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      auth: { kind: 'public' },
      doc: {
        summary: 'Liveness: the process is serving requests',
        tags: ['system'],
        responses: { '200': jsonResponse('`{status: "ok"}`', fields({ status: { const: 'ok' } })) },
      },
      handler: async (ctx) => {
        ctx.body = { status: 'ok' };
      },
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      auth: { kind: 'public' },
      doc: {
        summary: 'Readiness: PostgreSQL and Temporal both answer, and the configuration passes the startup check',
        tags: ['system'],
        responses: {
          '200': jsonResponse(
            'Both dependencies answered',
            fields({ status: { const: 'ready' }, checks: fields({ postgres: { const: 'ok' }, temporal: { const: 'ok' } }) }),
          ),
          '503': errorResponse(
            '`not_ready`, naming what failed (`postgres`, `temporal`, `configuration`) without its error text, which is logged, or `draining` once the process is shutting down',
          ),
        },
      },
      handler: async (ctx, deps) => {
        // A draining process answers at once, so a load balancer stops routing to it without waiting on checks.
        if (deps.draining?.()) return notReady(ctx, [{ field: 'draining', message: 'shutting down' }]);
        const checks = await Promise.all([
          check('postgres', () => deps.db.raw('select 1')),
          check('temporal', () => deps.temporal.workflowService.getSystemInfo({})),
        ]);
        const problems = configurationProblems('api', deps.config, PROVIDER_SETTINGS);
        const failing = checks.filter((c) => !c.ok);
        if (problems.length > 0)
          failing.push({ name: 'configuration', ok: false, error: `settings refused: ${problems.map((p) => p.setting).join(', ')}` });
        if (failing.length > 0) {
          // The detail (host:port, driver text, setting names) is for the operator's log, not for anyone who can reach /readyz.
          for (const c of failing) ctx.state.log.warn({ check: c.name, error: c.error }, 'not ready');
          return notReady(
            ctx,
            failing.map((c) => ({ field: c.name, message: 'unavailable' })),
          );
        }
        ctx.body = { status: 'ready', checks: Object.fromEntries(checks.map((c) => [c.name, 'ok'])) };
      },
    },
    {
      method: 'get',
      path: '/api/openapi.yaml',
      operationId: 'getOpenApiDocument',
      auth: { kind: 'public' },
      doc: {
        summary: 'This document',
        tags: ['system'],
        responses: {
          '200': {
            description: 'OpenAPI 3.1 as YAML',
            content: {
              // Described as what a YAML reader makes of it (as schema checkers parse it), an OpenAPI document.
              'application/yaml': {
                schema: {
                  type: 'object',
                  required: ['openapi', 'info', 'paths'],
                  properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
                },
                example: { openapi: '3.1.0', info: { title: 'Switchboard API' }, paths: {} },
              },
            },
          },
        },
      },
      handler: async (ctx) => {
        ctx.type = 'application/yaml';
        ctx.body = openApiYaml();
      },
    },
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      auth: { kind: 'public' },
      doc: {
        summary: 'Prometheus metrics of this API process',
        description:
          'Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; without it, served only in the dev profile (404 otherwise).',
        tags: ['system'],
        responses: {
          '200': {
            description: 'Prometheus text format',
            content: {
              'text/plain': {
                schema: { type: 'string' },
                example:
                  '# HELP http_requests_total Requests answered\n# TYPE http_requests_total counter\nhttp_requests_total{method="GET",status="200"} 42\n',
              },
            },
          },
          '401': errorResponse('`unauthorized`: METRICS_TOKEN is set and was not presented'),
          '404': errorResponse('`not_found`: metrics are not enabled'),
        },
      },
      handler: async (ctx, deps) => {
        assertMetricsAccess(ctx, deps);
        ctx.type = registry.contentType;
        ctx.body = await registry.metrics();
      },
    },
  ];
}

/** The rule every process's /metrics shares (src/platform/metrics/access.ts), as this API's errors. */
function assertMetricsAccess(ctx: AppContext, deps: AppDeps): void {
  const access = metricsAccess(deps.config, ctx.get('authorization'));
  if (access === 'not_found') throw errors.notFound('Route');
  if (access === 'unauthorized') throw new ApiError(401, 'unauthorized', METRICS_UNAUTHORIZED_MESSAGE);
}

function notReady(ctx: AppContext, details: Array<{ field: string; message: string }>): void {
  ctx.status = 503;
  ctx.body = { error: { code: 'not_ready', message: 'The service is not ready', details } };
}

async function check(name: string, probe: () => Promise<unknown>): Promise<{ name: string; ok: boolean; error?: string }> {
  try {
    await withTimeout(probe(), 2_000);
    return { name, ok: true };
  } catch (err) {
    return { name, ok: false, error: (err as Error).message };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
