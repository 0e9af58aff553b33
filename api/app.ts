import Koa from 'koa';
import Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from './context';
import { authenticate } from './middleware/auth';
import { ApiError } from './errors';
import { idempotency } from './middleware/idempotency';
import { rateLimit } from './middleware/rateLimit';
import { cors } from './middleware/cors';
import { jsonBody } from './middleware/jsonBody';
import { requestContext } from './middleware/requestContext';
import { buildOpenApiDocument, toYaml } from './openapi/document';
import { validateRequest } from './openapi/validator';
import { allRoutes } from './routes';
import { koaPath, type RouteDef } from './routes/types';

export const API_VERSION = '0.5.10.0';

export interface App {
  koa: Koa<AppState>;
  routes: RouteDef[];
  openApiDocument: Record<string, unknown>;
}

/**
 * Builds the Koa application. Per request: request id and error envelope, CORS, JSON body,
 * then the matched route's own chain: authenticate (scope from the route table), validate
 * (schemas from the OpenAPI document), handle.
 */
export function createApp(deps: AppDeps): App {
  let yaml = '';
  const routes = allRoutes(() => yaml);
  const openApiDocument = buildOpenApiDocument(routes, API_VERSION);
  yaml = toYaml(openApiDocument);

  const router = new Router<AppState>();
  const concrete = concretePaths(routes);
  for (const route of routes) {
    const chain: Koa.Middleware<AppState>[] = [authenticate(route.auth, deps)];
    // Replays, conflicts and malformed requests are answered before the rate limit counts
    // the request: a limit meters work the service would do, not typos.
    if (route.idempotency) chain.push(idempotency({ required: route.idempotency.required, scope: `${route.method.toUpperCase()} ${route.path}` }, deps));
    chain.push(validateRequest(route.doc));
    if (route.rateLimit) chain.push(rateLimit(route.rateLimit, `${route.method.toUpperCase()} ${route.path}`, deps));
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      const own = path.includes('{') ? [notAConcretePath(concrete)] : [];
      router[route.method](koaPath(path), ...own, ...chain, (ctx) => route.handler(ctx as unknown as AppContext, deps));
    }
  }

  const koa = new Koa<AppState>({ proxy: process.env.TRUST_PROXY === '1' });
  koa.silent = true;
  koa.use(requestContext(deps.logger));
  koa.use(cors());
  koa.use(jsonBody(deps.config.maxBodyBytes));
  koa.use(router.routes());
  koa.use(
    // Sets 405/501 and the Allow header; the request-context middleware renders the envelope.
    router.allowedMethods(),
  );
  return { koa, routes, openApiDocument };
}

/** The methods of each path without parameters, e.g. `/api/v1/calls/conversation` → POST. */
function concretePaths(routes: RouteDef[]): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const route of routes) {
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      if (!path.includes('{')) methods.set(path, [...(methods.get(path) ?? []), route.method.toUpperCase()]);
    }
  }
  return methods;
}

/**
 * A concrete path wins over a template, as OpenAPI matches paths: `GET /api/v1/calls/conversation`
 * is a method the conversation path does not serve (405 with `Allow`), not the call "conversation".
 */
function notAConcretePath(concrete: Map<string, string[]>): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const methods = concrete.get(ctx.path);
    if (!methods) return next();
    throw new ApiError(405, 'method_not_allowed', `This path does not support ${ctx.method}`, undefined, { Allow: methods.join(', ') });
  };
}
