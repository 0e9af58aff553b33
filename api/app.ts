import type http from 'node:http';
import type { Duplex } from 'node:stream';
import Koa from 'koa';
import type { AppContext, AppDeps, AppState } from './context';
import { authenticate } from './middleware/auth';
import { ApiError } from './errors';
import { idempotency } from './middleware/idempotency';
import { rateLimit } from './middleware/rateLimit';
import { cors } from './middleware/cors';
import { csvUpload } from './middleware/csvUpload';
import { jsonBody } from './middleware/jsonBody';
import { requestContext } from './middleware/requestContext';
import { traceRequest } from './middleware/tracing';
import { allowedMethodsOf, unmatchedRequest, type AllowedMethods } from './middleware/unmatched';
import { KeyCache } from '../src/domain/keys/cache';
import { listenForKeyChanges, type KeyChangeListener } from '../src/domain/keys/keyChangeListener';
import { LastUsedBatcher, type ApiKeyRow } from '../src/domain/keys/store';
import { buildOpenApiDocument, toYaml } from './openapi/document';
import { validateRequest } from './openapi/validator';
import { allRoutes } from './routes';
import { environmentsOnCarrier } from '../src/platform/config';
import { twilioCallbackRouter } from './routes/carrier/twilio';
import { twilioRelayEndpoint } from './routes/carrier/twilioRelay';
import { mcpRouter } from './mcp/endpoint';
import { oauthRouter } from './oauth/router';
import { portalRouter } from './portal/router';
import { referenceRouter } from './reference/router';
import { temporalCodecRouter } from './routes/temporalCodec';
import { ResourceRouters, routePattern } from './resourceRouters';
import { DEFAULT_BODY_LIMIT_BYTES, type RouteAuth, type RouteDef } from './routeTable';
import { MessageDispatcher } from '../src/domain/messages/dispatch';

export const API_VERSION = '0.5.10.0';

export interface App {
  koa: Koa<AppState>;
  routes: RouteDef[];
  openApiDocument: Record<string, unknown>;
  /** Methods served at a path (undefined: unknown path); also answers CONNECT outside Koa (api/server.ts). */
  allowedMethods: AllowedMethods;
  /** Key rows cached for authentication (see src/domain/keys/cache.ts for when entries are dropped). */
  keyCache: KeyCache<ApiKeyRow>;
  /** Starts dropping cached keys as soon as any process announces a change (every API process should). */
  listenForKeyChanges(databaseUrl: string): Promise<void>;
  /** Serves the WebSocket endpoints (Twilio's ConversationRelay) on `server`; any other upgrade is refused. */
  acceptWebSockets(server: http.Server): void;
  /** Starts the send workflows of accepted SMS off the request (its `pending()` is what it has not started yet). */
  messageDispatcher: MessageDispatcher;
  /** Stops listening, gives waiting SMS starts MESSAGE_DRAIN_MS, and writes the last `last_used_at` uses; call on shutdown. */
  close(): Promise<void>;
}

/** How long closing waits for SMS starts still in the dispatcher (the dispatch sweep takes any left, 15 s on). */
const MESSAGE_DRAIN_MS = 5_000;

/**
 * Routes whose caller is not identified by an API key (public routes, and any kind whose
 * authenticator verifies a signature over the raw body) read the body first, so the
 * authenticator can see `ctx.state.rawBody`. Key-authenticated routes read it only after the
 * key is checked: an unauthenticated body is never buffered or parsed.
 */
function readsBodyBeforeAuth(auth: RouteAuth): boolean {
  return auth.kind !== 'standard' && auth.kind !== 'service';
}

/**
 * Builds the Koa application. Per request: request id and error envelope, CORS, then the
 * matched route's own chain: authenticate (scope from the route table), read the JSON body
 * (the route's size limit), idempotency, validate (schemas from the OpenAPI document), rate
 * limit, handle. A request no route matches is 404 or 405 without its body being read.
 */
/**
 * The simulator's callback routes (`/carrier/events`, `/carrier/messages`) exist only while an
 * environment runs on the simulator (security review L20): in a deployment on Twilio or Telnyx alone
 * they answer 404, and CARRIER_WEBHOOK_SECRET, which nothing legitimate would use, authorises nothing.
 */
function servedBy(deps: AppDeps): (route: RouteDef) => boolean {
  const simulated = environmentsOnCarrier(deps.config, 'simulator').length > 0;
  return (route) => simulated || route.auth.kind !== 'carrier' || route.auth.scheme !== undefined;
}

export function createApp(deps: AppDeps): App {
  // The YAML is written on its first request (the document never changes): most API processes never serve it.
  let yaml: string | undefined;
  const routes = allRoutes(() => (yaml ??= toYaml(openApiDocument)));
  const openApiDocument = buildOpenApiDocument(routes, API_VERSION);

  const keyCache = new KeyCache<ApiKeyRow>(deps.config.apiKeyCacheTtlMs);
  // Accepted SMS have their send workflow started after the answer (src/domain/messages/dispatch.ts). Read through
  // `deps` at each use, as the handlers do, so a harness that swaps the Temporal client or the clock is followed.
  const messageDispatcher = new MessageDispatcher(
    {
      get db() {
        return deps.db;
      },
      get temporal() {
        return deps.temporal;
      },
      config: deps.config,
      now: () => deps.now(),
      log: deps.logger,
    },
    deps.messageBatching,
  );
  deps.messageHandOver ??= messageDispatcher;
  const lastUsed = new LastUsedBatcher(deps.db, deps.config.apiLastUsedFlushMs, (err) =>
    deps.logger.warn({ err }, 'last_used_at flush failed'),
  );
  let listener: KeyChangeListener | undefined;

  const router = new ResourceRouters();
  const concrete = concretePaths(routes);
  for (const route of routes.filter(servedBy(deps))) {
    const readBody = route.upload
      ? csvUpload(Math.min(route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES, deps.config.maxUploadBytes))
      : jsonBody(Math.min(route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES, deps.config.maxBodyBytes));
    const auth = authenticate(route.auth, deps, { cache: keyCache, lastUsed });
    // A GET's body is never read (jsonBody passes GETs on), so a GET's chain has no body reader at all.
    const bodyReader = route.method === 'get' ? [] : [readBody];
    const chain: Koa.Middleware<AppState>[] = readsBodyBeforeAuth(route.auth) ? [...bodyReader, auth] : [auth, ...bodyReader];
    // Replays, conflicts and malformed requests are answered before the rate limit counts
    // the request: a limit meters work the service would do, not typos.
    // With both, the claim counts the hit (one round trip) and the rate limit applies it after validation.
    const operation = `${route.method.toUpperCase()} ${route.path}`;
    const limit = route.rateLimit && { name: route.rateLimit, route: operation };
    if (route.idempotency) chain.push(idempotency({ required: route.idempotency.required, scope: operation, limit }, deps));
    chain.push(validateRequest(route.doc));
    if (limit) chain.push(rateLimit(limit.name, limit.route, deps));
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      const own = shadowsAConcretePath(path, concrete) ? [notAConcretePath(concrete)] : [];
      router.add(route.method, path, ...own, ...chain, (ctx) => route.handler(ctx as unknown as AppContext, deps));
    }
  }

  // Behind N trusted proxies the client address is the N-th entry from the right of X-Forwarded-For:
  // the one the outermost trusted proxy appended. Entries left of it are the client's own writing (L12).
  const hops = deps.config.trustProxyHops;
  const koa = new Koa<AppState>({ proxy: hops > 0, maxIpsCount: hops });
  koa.silent = true;
  koa.use(traceRequest());
  koa.use(requestContext(deps.logger, () => deps.draining?.() ?? false));
  koa.use(cors());
  koa.use(router.routes());
  koa.use(twilioCallbackRouter(deps).routes());
  koa.use(portalRouter(deps).routes());
  koa.use(referenceRouter().routes());
  koa.use(temporalCodecRouter(deps).routes());
  koa.use(oauthRouter(deps).routes());
  // MCP tools call the routes above in-process; the listener is built once all middleware is in place.
  let requestListener: ReturnType<typeof koa.callback> | undefined;
  koa.use(mcpRouter(deps, routes, API_VERSION, { cache: keyCache, lastUsed }, () => (requestListener ??= koa.callback())).routes());
  const allowedMethods = allowedMethodsOf(routes.filter(servedBy(deps)));
  koa.use(unmatchedRequest(allowedMethods));
  const relay = twilioRelayEndpoint(deps);
  return {
    koa,
    routes,
    openApiDocument,
    allowedMethods,
    keyCache,
    async listenForKeyChanges(databaseUrl) {
      listener ??= listenForKeyChanges(databaseUrl, keyCache, deps.logger);
      await listener.ready;
    },
    acceptWebSockets(server) {
      server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
        if (relay.upgrade(req, socket, head)) return;
        socket.on('error', () => socket.destroy());
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      });
    },
    messageDispatcher,
    async close() {
      // Starts still waiting are the dispatch sweep's after this (they are recorded as undispatched).
      await messageDispatcher.drain(MESSAGE_DRAIN_MS);
      await relay.close();
      await listener?.close();
      keyCache.detach();
      await lastUsed.close();
    },
  };
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

/** Whether a template such as `/api/v1/calls/{id}` matches one of the concrete paths (`/api/v1/calls/conversation`). */
function shadowsAConcretePath(path: string, concrete: Map<string, string[]>): boolean {
  if (!path.includes('{')) return false;
  const { regexp } = routePattern(path);
  return [...concrete.keys()].some((other) => regexp.test(other));
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
