/**
 * Codes and tokens (OAuth 2.1 §4.1.3, §4.3): a code is exchanged once, a refresh token is rotated on
 * every use, and presenting either a second time revokes the whole grant (every token of the family
 * and the delegated key behind them). Every refusal names its RFC error and why, for the log.
 */
import type { Knex } from 'knex';
import { recordComplianceEvent } from '../compliance/events';
import { revokeWithDescendants } from '../keys/ancestry';
import type { ApiKeyRow } from '../keys/store';
import { sealingKeyOf } from '../lines/secrets';
import type { UseCaseDeps } from '../useCaseDeps';
import { open } from '../../platform/crypto/secretBox';
import {
  ACCESS_TOKEN_LIFETIME_S,
  addSeconds,
  digestOf,
  isOpaque,
  isSameResource,
  keySealingContext,
  newOpaque,
  REFRESH_TOKEN_LIFETIME_S,
} from './rules';
import {
  consumeCode,
  consumeToken,
  findCode,
  findGrant,
  findLiveAccessToken,
  insertTokens,
  lockCode,
  lockToken,
  markGrantRevoked,
  type GrantRow,
} from './store';

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** `invalid_grant` / `invalid_target` (RFC 6749 §5.2, RFC 8707 §2) with the reason the log records. */
export type TokenRefusal = { ok: false; error: 'invalid_grant' | 'invalid_target'; reason: string; grantRevoked?: string };
export type TokenOutcome = { ok: true; tokens: IssuedTokens; grantId: string } | TokenRefusal;

/** The PKCE challenge a code was issued with; undefined for anything that is not a live code of this client. */
export async function challengeOfCode(deps: Pick<UseCaseDeps, 'db' | 'now'>, clientId: string, code: string): Promise<string | undefined> {
  if (!isOpaque('code', code)) return undefined;
  const row = await findCode(deps.db, digestOf(code));
  if (!row || row.client_id !== clientId) return undefined;
  return row.code_challenge;
}

/**
 * Exchanges a code whose PKCE verifier the caller has checked against `challengeOfCode`. A code
 * presented again revokes its grant (RFC 6749 §4.1.2: tokens issued from it SHOULD be revoked).
 */
export async function exchangeCode(
  deps: UseCaseDeps,
  input: { clientId: string; code: string; redirectUri?: string; resource?: string },
): Promise<TokenOutcome> {
  if (!isOpaque('code', input.code)) return refused('invalid_grant', 'unknown code');
  const now = deps.now();
  const outcome = await deps.db.transaction(async (trx): Promise<TokenOutcome> => {
    const code = await lockCode(trx, digestOf(input.code));
    if (!code || code.client_id !== input.clientId) return refused('invalid_grant', 'unknown code');
    if (code.consumed_at) {
      await revokeGrant(trx, code.grant_id, 'code_reused', now);
      return { ...refused('invalid_grant', 'code already used: its grant is revoked'), grantRevoked: code.grant_id };
    }
    if (code.expires_at <= now) return refused('invalid_grant', 'code expired');
    if (input.redirectUri !== undefined && input.redirectUri !== code.redirect_uri)
      return refused('invalid_grant', 'redirect_uri differs from the authorization request');
    if (input.resource !== undefined && !isSameResource(input.resource, code.resource))
      return refused('invalid_target', 'resource differs from the authorization request');
    await consumeCode(trx, code.code_hash, now);
    return issue(trx, await liveGrant(trx, code.grant_id), now);
  });
  return outcome;
}

/** Rotates a refresh token: the old one is consumed; presenting a consumed one revokes the grant (reuse detection). */
export async function refreshTokens(
  deps: UseCaseDeps,
  input: { clientId: string; refreshToken: string; resource?: string },
): Promise<TokenOutcome> {
  if (!isOpaque('refresh', input.refreshToken)) return refused('invalid_grant', 'unknown refresh token');
  const now = deps.now();
  return deps.db.transaction(async (trx): Promise<TokenOutcome> => {
    const token = await lockToken(trx, digestOf(input.refreshToken));
    if (!token || token.kind !== 'refresh' || token.client_id !== input.clientId) return refused('invalid_grant', 'unknown refresh token');
    if (token.consumed_at) {
      await revokeGrant(trx, token.grant_id, 'refresh_token_reused', now);
      return { ...refused('invalid_grant', 'refresh token already used: its grant is revoked'), grantRevoked: token.grant_id };
    }
    if (token.expires_at <= now) return refused('invalid_grant', 'refresh token expired');
    if (input.resource !== undefined && !isSameResource(input.resource, token.resource))
      return refused('invalid_target', 'resource differs from the grant');
    await consumeToken(trx, token.token_hash, now);
    return issue(trx, await liveGrant(trx, token.grant_id), now);
  });
}

async function liveGrant(trx: Knex.Transaction, grantId: string): Promise<{ grant: GrantRow; key: ApiKeyRow | undefined } | undefined> {
  const grant = await findGrant(trx, grantId);
  if (!grant || grant.revoked_at) return undefined;
  const key = await trx<ApiKeyRow>('api_keys').where({ id: grant.key_id }).first();
  return { grant, key };
}

async function issue(trx: Knex.Transaction, live: Awaited<ReturnType<typeof liveGrant>>, now: Date): Promise<TokenOutcome> {
  if (!live) return refused('invalid_grant', 'grant revoked');
  const { grant, key } = live;
  // The key behind the grant was revoked (by itself, an ancestor or its member's removal): no new tokens.
  if (!key || (key.revoked_at && key.revoked_at <= now)) return refused('invalid_grant', 'the key behind this grant is revoked');
  const access = newOpaque('access');
  const refresh = newOpaque('refresh');
  const common = { grant_id: grant.id, client_id: grant.client_id, resource: grant.resource, created_at: now, consumed_at: null };
  await insertTokens(trx, [
    { ...common, token_hash: digestOf(access), kind: 'access', expires_at: addSeconds(now, ACCESS_TOKEN_LIFETIME_S) },
    { ...common, token_hash: digestOf(refresh), kind: 'refresh', expires_at: addSeconds(now, REFRESH_TOKEN_LIFETIME_S) },
  ]);
  return {
    ok: true,
    grantId: grant.id,
    tokens: {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_LIFETIME_S,
      refresh_token: refresh,
      scope: key.scopes.join(' '),
    },
  };
}

function refused(error: TokenRefusal['error'], reason: string): TokenRefusal {
  return { ok: false, error, reason };
}

/**
 * Revokes a grant: its tokens stop at once (every lookup joins the grant) and its delegated key is
 * revoked with its subtree, with the key's own event and an `oauth_grant_revoked` event naming why.
 */
export async function revokeGrant(trx: Knex.Transaction, grantId: string, reason: string, now: Date): Promise<void> {
  const grant = await findGrant(trx, grantId);
  if (!grant || !(await markGrantRevoked(trx, grantId, reason, now))) return;
  const key = await trx<ApiKeyRow>('api_keys').where({ id: grant.key_id }).first();
  if (key)
    await revokeWithDescendants(trx, {
      key,
      actorKeyId: null,
      now,
      targetEvent: 'scoped_key_revoked',
      metadata: { reason, grant_id: grantId },
    });
  await recordComplianceEvent(trx, {
    workspaceId: grant.workspace_id,
    environment: grant.environment,
    eventType: 'oauth_grant_revoked',
    actorKeyId: null,
    metadata: { grant_id: grantId, client_id: grant.client_id, key_id: grant.key_id, reason },
    at: now,
  });
}

/** RFC 7009: the client revokes one of its tokens; revoking a refresh token ends its grant, an access token only itself. */
export async function revokeClientToken(deps: UseCaseDeps, input: { clientId: string; token: string }): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (trx) => {
    const token = await lockToken(trx, digestOf(input.token));
    if (!token || token.client_id !== input.clientId) return;
    if (token.kind === 'refresh') await revokeGrant(trx, token.grant_id, 'revoked_by_client', now);
    else await trx('oauth_tokens').where({ token_hash: token.token_hash }).update({ expires_at: now });
  });
}

export type ResolvedToken =
  | { ok: true; grant: GrantRow; clientName: string; keyPlaintext: string; expiresAt: Date }
  | { ok: false; reason: 'unknown' | 'wrong_resource' };

/**
 * The credential behind an access token presented to `resource`: its grant's delegated key, opened
 * from its seal. The caller then authenticates that key as any other (revocation of it or of any
 * ancestor, expiry and narrowing apply at each use). A token issued for another resource is refused.
 */
export async function resolveAccessToken(
  deps: Pick<UseCaseDeps, 'db' | 'config'>,
  token: string,
  resource: string,
  now: Date,
): Promise<ResolvedToken> {
  if (!isOpaque('access', token)) return { ok: false, reason: 'unknown' };
  const found = await findLiveAccessToken(deps.db, digestOf(token), now);
  if (!found) return { ok: false, reason: 'unknown' };
  if (!isSameResource(found.token.resource, resource)) return { ok: false, reason: 'wrong_resource' };
  const keyPlaintext = open(sealingKeyOf(deps.config), found.grant.key_sealed, keySealingContext(found.grant.id));
  return { ok: true, grant: found.grant, clientName: found.clientName, keyPlaintext, expiresAt: found.token.expires_at };
}

/** An audit event for each use of an access token, naming the client, so the audit log shows who acted through it. */
export async function recordTokenUse(db: Knex, input: { grant: GrantRow; clientName: string; keyId: string; at: Date }): Promise<void> {
  await recordComplianceEvent(db, {
    workspaceId: input.grant.workspace_id,
    environment: input.grant.environment,
    eventType: 'oauth_token_used',
    actorKeyId: input.keyId,
    metadata: { client_id: input.grant.client_id, client_name: input.clientName, grant_id: input.grant.id },
    at: input.at,
  });
}
