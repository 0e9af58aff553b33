import type Koa from 'koa';
import type { AppDeps, AppState } from '../context';
import { ApiError } from '../errors';
import { admit } from '../middleware/auth';
import { resourceMetadataUrlOf } from '../oauth/router';
import type { KeyCache } from '../../src/domain/keys/cache';
import { lookupKey, recordMcpUse, type ApiKeyRow, type LastUsedBatcher } from '../../src/domain/keys/store';
import { isOpaque, mcpResourceOf } from '../../src/domain/oauth/rules';
import { recordTokenUse, resolveAccessToken } from '../../src/domain/oauth/tokens';

/** `Authorization: Bearer <credential>`, as api/middleware/auth.ts reads it. */
function bearerOf(header: string): string | undefined {
  return /^\s*Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * RFC 6750 §3 with RFC 9728 §5.1: every 401 from /mcp names the protected resource metadata, so a
 * client that knows only the URL discovers the authorization server; `error="invalid_token"` when
 * a credential was presented.
 */
function challenge(deps: AppDeps, error?: { description: string }): Record<string, string> {
  const parts = [`resource_metadata="${resourceMetadataUrlOf(deps.config.publicBaseUrl)}"`];
  if (error) parts.push('error="invalid_token"', `error_description="${error.description}"`);
  return { 'WWW-Authenticate': `Bearer ${parts.join(', ')}` };
}

/**
 * Authenticates a request to /mcp: an API key exactly as before (any regular key; its routes then
 * authorise each tool call), or an OAuth access token issued for this resource (RFC 8707). A token
 * stands for the delegated key its grant minted: that key is authenticated at every use, so revoking
 * or narrowing it, an ancestor, or removing its member reaches the token at once; each use is recorded
 * in the audit log with the client's name. Every authenticated request records the key's MCP use
 * (the overview's "connect an agent by MCP" step).
 */
export function authenticateMcp(deps: AppDeps, keys: { cache: KeyCache<ApiKeyRow>; lastUsed: LastUsedBatcher }): Koa.Middleware<AppState> {
  // Read at each use: PUBLIC_BASE_URL is known once the process listens (tests set it then).
  const resourceNow = () => mcpResourceOf(deps.config.publicBaseUrl);
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (!header.trim())
      throw new ApiError(
        401,
        'unauthorized',
        'Missing Authorization header; send `Authorization: Bearer <API_KEY>` or sign in with OAuth',
        undefined,
        challenge(deps),
      );
    const presented = bearerOf(header);
    const now = deps.now();
    // Anything but an access token's form is taken as an API key, as before OAuth (the same codes).
    if (!presented || !isOpaque('access', presented)) {
      const found = presented ? await lookupKey(deps.db, presented, now, keys.cache) : ({ ok: false } as const);
      if (!found.ok || found.key.kind === 'service')
        throw new ApiError(401, 'invalid_api_key', 'The API key is malformed, unknown, expired or revoked', undefined, {
          ...challenge(deps, { description: 'The API key is unknown, expired or revoked' }),
        });
      admit(ctx, found.key, keys.lastUsed, now);
      await recordMcpUse(deps.db, found.key.id, now);
      return next();
    }
    const resolved = await resolveAccessToken(deps, presented, resourceNow(), now);
    if (!resolved.ok) {
      ctx.state.log.warn({ reason: resolved.reason }, 'mcp access token refused');
      throw new ApiError(
        401,
        'invalid_token',
        'The access token is unknown, expired or revoked, or was issued for another resource',
        undefined,
        challenge(deps, { description: 'The access token is unknown, expired, revoked or for another resource' }),
      );
    }
    const key = await lookupKey(deps.db, resolved.keyPlaintext, now, keys.cache);
    if (!key.ok) {
      ctx.state.log.warn(
        { grant_id: resolved.grant.id, client_id: resolved.grant.client_id, reason: key.reason },
        'mcp access token refused',
      );
      throw new ApiError(
        401,
        'invalid_token',
        'The key this access token acts as is revoked or expired: authorize the client again',
        undefined,
        challenge(deps, { description: 'The key behind this token is revoked' }),
      );
    }
    await recordTokenUse(deps.db, { grant: resolved.grant, clientName: resolved.clientName, keyId: key.key.id, at: now });
    ctx.state.delegatedKey = resolved.keyPlaintext;
    ctx.state.log = ctx.state.log.child({ oauth_client_id: resolved.grant.client_id, oauth_grant_id: resolved.grant.id });
    admit(ctx, key.key, keys.lastUsed, now);
    await recordMcpUse(deps.db, key.key.id, now);
    return next();
  };
}
