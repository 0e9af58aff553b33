import type http from 'node:http';
import Router from '@koa/router';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { principalOf, type AppDeps, type AppState } from '../context';
import { jsonBody } from '../middleware/jsonBody';
import { methodNotAllowed } from '../middleware/unmatched';
import type { RouteDef } from '../routeTable';
import type { KeyCache } from '../../src/domain/keys/cache';
import type { ApiKeyRow, LastUsedBatcher } from '../../src/domain/keys/store';
import { authenticateMcp } from './auth';
import { inProcessApi } from './dispatch';
import type { mcpServer } from './server';
import { offeredTo } from './access';
import { mcpTools, type Tool } from './tools';
import { acceptJsonOnlyClients, answersWithJson } from './transportMode';

export const MCP_PATH = '/mcp';

interface McpRuntime {
  tools: readonly Tool[];
  byName: ReadonlyMap<string, Tool>;
  mcpServer: typeof mcpServer;
  Transport: typeof StreamableHTTPServerTransport;
}

/**
 * The MCP SDK and the server built on it are loaded, and the tools derived from the routes, on the first MCP
 * request: an API process that never serves one does not pay for them at start (about 0.15 s of CPU).
 */
function loadMcp(routes: readonly RouteDef[]): McpRuntime {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said above */
  const server = require('./server') as typeof import('./server');
  const sdk =
    require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const tools = mcpTools(routes);
  return {
    tools,
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    mcpServer: server.mcpServer,
    Transport: sdk.StreamableHTTPServerTransport,
  };
}

/**
 * The MCP endpoint (Streamable HTTP, stateless; JSON answers, an SSE stream for follow_call, see
 * ./transportMode.ts): any regular key, or an OAuth access token issued for it, opens it (401 with
 * the RFC 9728 challenge otherwise, ./auth.ts); tools/list offers the tools the key may use
 * (./access.ts), and each tool call is a request to its route with that same key (a token's
 * delegated key), so the route's scope, tier, line binding, allow-list, cap, idempotency and rate
 * limit apply unchanged.
 * Only POST is served: without sessions there is no stream to GET and nothing to DELETE.
 */
export function mcpRouter(
  deps: AppDeps,
  routes: readonly RouteDef[],
  version: string,
  keys: { cache: KeyCache<ApiKeyRow>; lastUsed: LastUsedBatcher },
  listener: () => http.RequestListener,
): Router<AppState> {
  let mcp: McpRuntime | undefined;
  const api = inProcessApi(listener);
  const router = new Router<AppState>();
  router.post(MCP_PATH, authenticateMcp(deps, keys), jsonBody(deps.config.maxBodyBytes), async (ctx) => {
    const { tools, byName, mcpServer, Transport } = (mcp ??= loadMcp(routes));
    // An OAuth access token's tool calls carry the delegated key it stands for (./auth.ts).
    const authorization = ctx.state.delegatedKey ? `Bearer ${ctx.state.delegatedKey}` : ctx.get('authorization');
    const dispatch = api({ authorization, 'x-request-id': ctx.state.requestId });
    const server = mcpServer(tools, dispatch, version, offeredTo(principalOf(ctx)));
    const enableJsonResponse = answersWithJson(ctx.state.body, ctx.get('accept'), byName);
    if (enableJsonResponse) acceptJsonOnlyClients(ctx.req);
    const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse });
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The transport writes the answer itself (JSON-RPC, or its own 4xx for a malformed message).
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res, ctx.state.body);
  });
  // Preflights are answered before routing (cors.ts).
  router.all(MCP_PATH, (ctx) => {
    throw methodNotAllowed(ctx.method, ['OPTIONS', 'POST']);
  });
  return router;
}
