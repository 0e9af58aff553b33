import type { RouteDef } from './types';
import { errorResponse, fields, jsonResponse } from '../openapi/schemas';
import { registry } from '../metrics';

/** Liveness, readiness, the OpenAPI document and metrics: no authentication. */
export function systemRoutes(openApiYaml: () => string): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      auth: { kind: 'public' },
      doc: { summary: 'Liveness: the process is serving requests', tags: ['system'], responses: { '200': jsonResponse('`{status: "ok"}`', fields({ status: { const: 'ok' } })) } },
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
        summary: 'Readiness: PostgreSQL and Temporal both answer',
        tags: ['system'],
        responses: {
          '200': jsonResponse('Both dependencies answered', fields({ status: { const: 'ready' }, checks: fields({ postgres: { const: 'ok' }, temporal: { const: 'ok' } }) })),
          '503': errorResponse('`not_ready`, with the failing dependency in details'),
        },
      },
      handler: async (ctx, deps) => {
        const checks = await Promise.all([
          check('postgres', () => deps.db.raw('select 1')),
          check('temporal', () => deps.temporal.workflowService.getSystemInfo({})),
        ]);
        const failing = checks.filter((c) => !c.ok);
        if (failing.length > 0) {
          ctx.status = 503;
          ctx.body = {
            error: { code: 'not_ready', message: 'A dependency is unavailable', details: failing.map((c) => ({ field: c.name, message: c.error ?? 'unavailable' })) },
          };
          return;
        }
        ctx.body = { status: 'ready', checks: Object.fromEntries(checks.map((c) => [c.name, 'ok'])) };
      },
    },
    {
      method: 'get',
      path: '/api/openapi.yaml',
      operationId: 'getOpenApiDocument',
      auth: { kind: 'public' },
      doc: { summary: 'This document', tags: ['system'], responses: { '200': { description: 'OpenAPI 3.1 as YAML' } } },
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
      doc: { summary: 'Prometheus metrics of this API process', tags: ['system'], responses: { '200': { description: 'Prometheus text format' } } },
      handler: async (ctx) => {
        ctx.type = registry.contentType;
        ctx.body = await registry.metrics();
      },
    },
  ];
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
