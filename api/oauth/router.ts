import type { IncomingMessage, ServerResponse } from 'node:http';
import type express from 'express';
import Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { accessBucketFor, RATE_LIMITS, type LimitName } from '../../src/domain/limits/policies';
import { consumeRateLimit } from '../../src/domain/limits/limiter';
import { mcpResourceOf } from '../../src/domain/oauth/rules';
import { oauthProvider, oauthRequestScope } from './provider';

/** Where the authorization server's endpoints are (RFC 8414 metadata names them). */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
} as const;

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** The issuer: PUBLIC_BASE_URL without a trailing slash (RFC 8414 §2: https, no query, no fragment). */
export function issuerOf(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** RFC 9728 §3: the protected resource metadata URL of /mcp (the path-suffixed form the MCP SDK asks first). */
export function resourceMetadataUrlOf(publicBaseUrl: string): string {
  return new URL(`${PROTECTED_RESOURCE_METADATA_PATH}/mcp`, publicBaseUrl).href;
}

/** RFC 9728 §2. */
export function protectedResourceMetadata(publicBaseUrl: string) {
  return {
    resource: mcpResourceOf(publicBaseUrl),
    authorization_servers: [issuerOf(publicBaseUrl)],
    bearer_methods_supported: ['header'],
    resource_name: 'Switchboard MCP',
    resource_documentation: new URL('/docs', publicBaseUrl).href,
  };
}

/** RFC 8414 §2: public clients only (`none`), authorization code with PKCE S256, rotated refresh tokens. */
export function authorizationServerMetadata(publicBaseUrl: string) {
  const at = (path: string) => new URL(path, publicBaseUrl).href;
  return {
    issuer: issuerOf(publicBaseUrl),
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    registration_endpoint: at(OAUTH_PATHS.register),
    revocation_endpoint: at(OAUTH_PATHS.revoke),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    service_documentation: at('/docs'),
  };
}

/**
 * OAuth 2.1 for /mcp (issue 29): the metadata documents (RFC 9728, RFC 8414) and the authorization
 * server's endpoints. The endpoints are the MCP SDK's own handlers (Express), each handed the raw
 * request from Koa, over the provider of ./provider.ts; their in-memory rate limiter is replaced by
 * the shared one in Postgres. The person's sign-in and consent are portal pages (api/portal/oauthRoutes.ts).
 */
export function oauthRouter(deps: AppDeps): Router<AppState> {
  const provider = oauthProvider(deps);
  // Built at the first OAuth request: Express and the SDK's handlers (with zod, about 60 ms to load) are not loaded
  // by an API that no MCP host signs in to, nor at the start of every test file.
  let built: express.Express | undefined;
  const app = (req: IncomingMessage, res: ServerResponse) => (built ??= sdkHandlers(deps, provider))(req, res);

  const router = new Router<AppState>();
  const metadata = (path: string, document: () => unknown) =>
    router.get(path, (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = document();
    });
  // RFC 9728 §3.1: the path-suffixed URL of /mcp, and the root one for clients that ask there.
  metadata(PROTECTED_RESOURCE_METADATA_PATH, () => protectedResourceMetadata(deps.config.publicBaseUrl));
  metadata(`${PROTECTED_RESOURCE_METADATA_PATH}/mcp`, () => protectedResourceMetadata(deps.config.publicBaseUrl));
  metadata(AUTHORIZATION_SERVER_METADATA_PATH, () => authorizationServerMetadata(deps.config.publicBaseUrl));

  for (const path of Object.values(OAUTH_PATHS)) {
    const limit: LimitName = path === OAUTH_PATHS.register ? 'oauth.register' : 'oauth.endpoints';
    router.all(path, async (rawCtx) => {
      const ctx = rawCtx as unknown as AppContext;
      if (ctx.method !== 'OPTIONS') {
        const decision = await consumeRateLimit(deps.db, accessBucketFor(limit, ctx.ip), RATE_LIMITS[limit], deps.now());
        if (!decision.allowed) {
          ctx.state.log.warn({ path, client_address: ctx.ip }, 'oauth request refused: rate limited');
          ctx.status = 429;
          ctx.set('Retry-After', String(decision.retryAfterSeconds));
          ctx.set('Cache-Control', 'no-store');
          ctx.body = { error: 'too_many_requests', error_description: 'Too many requests from this address; try again later' };
          return;
        }
      }
      ctx.respond = false;
      await new Promise<void>((resolve) => {
        ctx.res.on('finish', resolve);
        ctx.res.on('close', resolve);
        oauthRequestScope.run({ log: ctx.state.log, clientAddress: ctx.ip }, () => app(ctx.req, ctx.res));
      });
      logRefusal(ctx, path);
    });
  }
  return router;
}

/** The MCP SDK's OAuth endpoints (Express), over the provider; their in-memory rate limiter off (the router limits). */
function sdkHandlers(deps: AppDeps, provider: ReturnType<typeof oauthProvider>): express.Express {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said in oauthRouter */
  const express = require('express') as typeof import('express');
  const { authorizationHandler } =
    require('@modelcontextprotocol/sdk/server/auth/handlers/authorize.js') as typeof import('@modelcontextprotocol/sdk/server/auth/handlers/authorize.js');
  const { tokenHandler } =
    require('@modelcontextprotocol/sdk/server/auth/handlers/token.js') as typeof import('@modelcontextprotocol/sdk/server/auth/handlers/token.js');
  const { clientRegistrationHandler } =
    require('@modelcontextprotocol/sdk/server/auth/handlers/register.js') as typeof import('@modelcontextprotocol/sdk/server/auth/handlers/register.js');
  const { revocationHandler } =
    require('@modelcontextprotocol/sdk/server/auth/handlers/revoke.js') as typeof import('@modelcontextprotocol/sdk/server/auth/handlers/revoke.js');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxyHops);
  app.use(OAUTH_PATHS.authorize, authorizationHandler({ provider, rateLimit: false }));
  app.use(OAUTH_PATHS.token, tokenHandler({ provider, rateLimit: false }));
  app.use(
    OAUTH_PATHS.register,
    clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit: false, clientIdGeneration: false }),
  );
  app.use(OAUTH_PATHS.revoke, revocationHandler({ provider, rateLimit: false }));
  return app;
}

/**
 * Every refusal the SDK's handlers answered, logged once here whatever refused it (a malformed
 * request, an unknown client, a redirect carrying `error`); the provider's own refusals also log their reason.
 */
function logRefusal(ctx: AppContext, path: string): void {
  const status = ctx.res.statusCode;
  const location = status === 302 ? ctx.res.getHeader('location') : undefined;
  const redirectedError = typeof location === 'string' && URL.canParse(location) ? new URL(location).searchParams.get('error') : null;
  if (status < 400 && !redirectedError) return;
  ctx.state.log.warn({ path, status, error: redirectedError ?? undefined, client_address: ctx.ip }, 'oauth endpoint refused the request');
}
