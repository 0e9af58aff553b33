import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { Response } from 'express';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  CustomOAuthError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AppDeps } from '../context';
import type { Logger } from '../../src/platform/logger';
import { openAuthorizationRequest } from '../../src/domain/oauth/authorize';
import { registerPublicClient, type ClientMetadata } from '../../src/domain/oauth/registerClient';
import { isSameResource, mcpResourceOf } from '../../src/domain/oauth/rules';
import { findClient } from '../../src/domain/oauth/store';
import {
  challengeOfCode,
  exchangeCode,
  refreshTokens,
  resolveAccessToken,
  revokeClientToken,
  type TokenOutcome,
} from '../../src/domain/oauth/tokens';

/** The request an SDK handler serves: its log (with the request id) and client address, for the refusals it logs. */
export interface OAuthRequestScope {
  log: Logger;
  clientAddress: string;
}
export const oauthRequestScope = new AsyncLocalStorage<OAuthRequestScope>();

export const CONSENT_PATH = '/portal/oauth/consent';

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(verifier)) equals the challenge, compared in constant time. */
function pkceMatches(verifier: string | undefined, challenge: string): boolean {
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const derived = Buffer.from(crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return derived.length === expected.length && crypto.timingSafeEqual(derived, expected);
}

/**
 * The MCP SDK's OAuth server (its handlers parse requests and answer the RFCs' error responses)
 * over this service's own storage and rules (src/domain/oauth/). Every refusal is logged with the
 * client and the reason; PKCE is checked here (not by the SDK) so that its refusal is logged too.
 */
export function oauthProvider(deps: AppDeps): OAuthServerProvider {
  // Read at each use: PUBLIC_BASE_URL is known once the process listens (tests set it then).
  const resourceNow = () => mcpResourceOf(deps.config.publicBaseUrl);
  const scope = () => oauthRequestScope.getStore();
  const refuse = (clientId: string, error: Error & { errorCode?: string }, reason: string): never => {
    scope()?.log.warn(
      { client_id: clientId, error: error.errorCode, reason, client_address: scope()?.clientAddress },
      'oauth request refused',
    );
    throw error;
  };
  const tokensOr = (clientId: string, outcome: TokenOutcome): OAuthTokens => {
    if (outcome.ok) {
      scope()?.log.info({ client_id: clientId, grant_id: outcome.grantId }, 'oauth tokens issued');
      return outcome.tokens;
    }
    if (outcome.grantRevoked) scope()?.log.warn({ client_id: clientId, grant_id: outcome.grantRevoked }, 'oauth grant revoked on reuse');
    const error = outcome.error === 'invalid_target' ? new InvalidTargetError(outcome.reason) : new InvalidGrantError(outcome.reason);
    return refuse(clientId, error, outcome.reason);
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    async getClient(clientId) {
      const client = await findClient(deps.db, clientId);
      if (!client) scope()?.log.warn({ client_id: clientId.slice(0, 80), client_address: scope()?.clientAddress }, 'oauth unknown client');
      return client ? (client.metadata as OAuthClientInformationFull) : undefined;
    },
    async registerClient(requested) {
      const outcome = await registerPublicClient(deps.db, {
        metadata: requested as ClientMetadata,
        registeredFrom: scope()?.clientAddress ?? null,
        now: deps.now(),
      });
      if (!outcome.ok) {
        const error =
          outcome.refused === 'invalid_redirect_uri'
            ? new CustomOAuthError('invalid_redirect_uri', outcome.message)
            : new InvalidClientMetadataError(outcome.message);
        return refuse('(registration)', error, outcome.message);
      }
      scope()?.log.info({ client_id: outcome.client.client_id, client_name: outcome.client.client_name }, 'oauth client registered');
      return outcome.client.metadata as OAuthClientInformationFull;
    },
  };

  return {
    clientsStore,
    skipLocalPkceValidation: true,

    async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
      // RFC 8707: this server issues tokens for its MCP endpoint only; a request without `resource` gets it too.
      const resource = resourceNow();
      if (params.resource && !isSameResource(params.resource.href, resource))
        refuse(client.client_id, new InvalidTargetError(`This server issues tokens for ${resource} only`), 'unknown resource');
      const requestId = await openAuthorizationRequest(deps, {
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        state: params.state,
        scopes: params.scopes ?? [],
        resource,
      });
      res.redirect(302, `${CONSENT_PATH}?request=${encodeURIComponent(requestId)}`);
    },

    async challengeForAuthorizationCode(client, code) {
      const challenge = await challengeOfCode(deps, client.client_id, code);
      return challenge ?? refuse(client.client_id, new InvalidGrantError('Unknown authorization code'), 'unknown code');
    },

    async exchangeAuthorizationCode(client, code, codeVerifier, redirectUri, requestedResource) {
      const challenge = await challengeOfCode(deps, client.client_id, code);
      if (challenge === undefined) return refuse(client.client_id, new InvalidGrantError('Unknown authorization code'), 'unknown code');
      if (!pkceMatches(codeVerifier, challenge))
        return refuse(client.client_id, new InvalidGrantError('code_verifier does not match the challenge'), 'pkce mismatch');
      const outcome = await exchangeCode(deps, { clientId: client.client_id, code, redirectUri, resource: requestedResource?.href });
      return tokensOr(client.client_id, outcome);
    },

    async exchangeRefreshToken(client, refreshToken, _scopes, requestedResource) {
      const outcome = await refreshTokens(deps, { clientId: client.client_id, refreshToken, resource: requestedResource?.href });
      return tokensOr(client.client_id, outcome);
    },

    async verifyAccessToken(token): Promise<AuthInfo> {
      const resolved = await resolveAccessToken(deps, token, resourceNow(), deps.now());
      if (!resolved.ok) throw new InvalidTokenError('The access token is unknown, expired, revoked or for another resource');
      return {
        token,
        clientId: resolved.grant.client_id,
        scopes: [],
        expiresAt: Math.floor(resolved.expiresAt.getTime() / 1000),
        resource: new URL(resolved.grant.resource),
      };
    },

    async revokeToken(client, request: OAuthTokenRevocationRequest) {
      await revokeClientToken(deps, { clientId: client.client_id, token: request.token });
      scope()?.log.info({ client_id: client.client_id }, 'oauth token revoked by its client');
    },
  };
}
