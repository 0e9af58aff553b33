/**
 * The authorization step (OAuth 2.1 §4.1.1): a client's request waits for its person to sign in to
 * the portal and consent; consent mints a delegated key under the `/api-tokens` rules
 * (src/domain/keys/scopedTokens.ts) and answers the client's redirect URI with a one-time code.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { recordComplianceEvent } from '../compliance/events';
import type { Grant } from '../keys/grants';
import type { Role } from '../keys/scopes';
import { mintScopedToken } from '../keys/scopedTokens';
import type { ApiKeyRow } from '../keys/store';
import { sealingKeyOf } from '../lines/secrets';
import type { UseCaseDeps } from '../useCaseDeps';
import { seal } from '../../platform/crypto/secretBox';
import { addSeconds, AUTHORIZATION_REQUEST_LIFETIME_S, CODE_LIFETIME_S, digestOf, isOpaque, keySealingContext, newOpaque } from './rules';
import {
  completeAuthorizationRequest,
  findAuthorizationRequest,
  findClient,
  insertAuthorizationRequest,
  insertCode,
  insertGrant,
  type AuthorizationRequestRow,
  type OAuthClientRow,
} from './store';

/** Opens a request for a validated client, redirect URI, PKCE challenge and resource; returns its one-time id. */
export async function openAuthorizationRequest(
  deps: Pick<UseCaseDeps, 'db' | 'now'>,
  input: { clientId: string; redirectUri: string; codeChallenge: string; state?: string; scopes: string[]; resource: string },
): Promise<string> {
  const id = newOpaque('request');
  const now = deps.now();
  await insertAuthorizationRequest(deps.db, {
    request_hash: digestOf(id),
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    code_challenge: input.codeChallenge,
    state: input.state ?? null,
    scopes: input.scopes,
    resource: input.resource,
    created_at: now,
    expires_at: addSeconds(now, AUTHORIZATION_REQUEST_LIFETIME_S),
  });
  return id;
}

export type OpenRequest = { ok: true; request: AuthorizationRequestRow; client: OAuthClientRow } | { ok: false; refused: 'not_found' };

/** The request behind a consent page: unknown, expired and already answered ones are all simply not found. */
export async function findOpenRequest(deps: Pick<UseCaseDeps, 'db' | 'now'>, requestId: string): Promise<OpenRequest> {
  if (!isOpaque('request', requestId)) return { ok: false, refused: 'not_found' };
  const request = await findAuthorizationRequest(deps.db, digestOf(requestId));
  if (!request || request.completed_at || request.expires_at <= deps.now()) return { ok: false, refused: 'not_found' };
  const client = await findClient(deps.db, request.client_id);
  if (!client) return { ok: false, refused: 'not_found' };
  return { ok: true, request, client };
}

/** Where the person's browser goes next: the client's redirect URI with the code (or error) and the state. */
export function redirectWith(request: Pick<AuthorizationRequestRow, 'redirect_uri' | 'state'>, params: Record<string, string>): string {
  const url = new URL(request.redirect_uri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (request.state !== null) url.searchParams.set('state', request.state);
  return url.href;
}

export type Consent = { ok: true; redirectTo: string; grantId: string; key: ApiKeyRow } | { ok: false; refused: 'not_found' };

/**
 * The person consents: in one transaction the request is answered (once), a delegated key is
 * minted below `parent` with `grant` (refused beyond the parent's authority: GrantExceededError,
 * MinterRevokedError, nothing written), the grant keeps that key's plaintext sealed, and a code
 * bound to the client, redirect URI, PKCE challenge and resource is issued.
 */
export async function consentToRequest(
  deps: UseCaseDeps,
  input: { requestId: string; userId: string; parent: ApiKeyRow; role: Role; name: string; grant: Grant },
): Promise<Consent> {
  const open = await findOpenRequest(deps, input.requestId);
  if (!open.ok) return open;
  const { request, client } = open;
  const now = deps.now();
  const sealing = sealingKeyOf(deps.config);
  return deps.db.transaction(async (trx: Knex.Transaction) => {
    if (!(await completeAuthorizationRequest(trx, request.id, now))) return { ok: false, refused: 'not_found' } as const;
    const minted = await mintScopedToken(trx, {
      parent: input.parent,
      role: input.role,
      name: input.name,
      grant: input.grant,
      now,
      mintedBy: { userId: input.userId, via: 'portal' },
    });
    const grantId = crypto.randomUUID();
    await insertGrant(trx, {
      id: grantId,
      workspace_id: minted.row.workspace_id,
      environment: minted.row.environment,
      client_id: client.client_id,
      user_id: input.userId,
      key_id: minted.row.id,
      key_sealed: seal(sealing, minted.plaintext, keySealingContext(grantId)),
      resource: request.resource,
      created_at: now,
    });
    const code = newOpaque('code');
    await insertCode(trx, {
      code_hash: digestOf(code),
      grant_id: grantId,
      client_id: client.client_id,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      resource: request.resource,
      expires_at: addSeconds(now, CODE_LIFETIME_S),
    });
    await recordComplianceEvent(trx, {
      workspaceId: minted.row.workspace_id,
      environment: minted.row.environment,
      eventType: 'oauth_client_authorized',
      actorKeyId: input.parent.id,
      metadata: {
        client_id: client.client_id,
        client_name: client.client_name,
        grant_id: grantId,
        key_id: minted.row.id,
        key_prefix: minted.row.key_prefix,
        user_id: input.userId,
        via: 'portal',
      },
      at: now,
    });
    return { ok: true, redirectTo: redirectWith(request, { code }), grantId, key: minted.row } as const;
  });
}

/** The person declines: the request is answered with `access_denied` (RFC 6749 §4.1.2.1). */
export async function declineRequest(
  deps: Pick<UseCaseDeps, 'db' | 'now'>,
  requestId: string,
): Promise<OpenRequest & { redirectTo?: string }> {
  const open = await findOpenRequest(deps, requestId);
  if (!open.ok) return open;
  const done = await deps.db.transaction((trx) => completeAuthorizationRequest(trx, open.request.id, deps.now()));
  if (!done) return { ok: false, refused: 'not_found' };
  return { ...open, redirectTo: redirectWith(open.request, { error: 'access_denied', error_description: 'The person declined' }) };
}
