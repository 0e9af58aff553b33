/** Dynamic client registration (RFC 7591) of public clients only: no client secret is ever issued or stored. */
import crypto from 'node:crypto';
import type { Db } from '../../platform/db/knex';
import { redirectUriProblem } from './rules';
import { insertClient, type OAuthClientRow } from './store';

/** What a client asks to register (RFC 7591 §2); the SDK has parsed it against the RFC's schema. */
export interface ClientMetadata {
  redirect_uris: string[];
  client_name?: string;
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  response_types?: string[];
  [field: string]: unknown;
}

export type Registration =
  { ok: true; client: OAuthClientRow } | { ok: false; refused: 'invalid_redirect_uri' | 'invalid_client_metadata'; message: string };

const CLIENT_NAME_MAX = 100;
const REDIRECT_URIS_MAX = 10;

/**
 * Registers a public client. The server replaces what it does not allow (RFC 7591 §3.2.1 lets it):
 * `token_endpoint_auth_method` is always `none` and no secret is issued (PKCE protects the code), the
 * grant types are authorization_code and refresh_token, the response type `code`. Refused: redirect
 * URIs that are neither https, loopback http nor a private-use scheme (OAuth 2.1 §7.5.1), and a client
 * asking for grant or response types this server does not have (`implicit`, `password`, `token`).
 */
export async function registerPublicClient(
  db: Db,
  input: { metadata: ClientMetadata; registeredFrom: string | null; now: Date },
): Promise<Registration> {
  const { metadata } = input;
  if (metadata.redirect_uris.length === 0 || metadata.redirect_uris.length > REDIRECT_URIS_MAX)
    return { ok: false, refused: 'invalid_redirect_uri', message: `Register 1 to ${REDIRECT_URIS_MAX} redirect_uris` };
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, refused: 'invalid_redirect_uri', message: `redirect_uri ${uri} ${problem}` };
  }
  const unsupportedGrant = (metadata.grant_types ?? []).find((type) => type !== 'authorization_code' && type !== 'refresh_token');
  if (unsupportedGrant)
    return {
      ok: false,
      refused: 'invalid_client_metadata',
      message: `grant_type ${unsupportedGrant} is not supported: use authorization_code`,
    };
  const unsupportedResponse = (metadata.response_types ?? []).find((type) => type !== 'code');
  if (unsupportedResponse)
    return { ok: false, refused: 'invalid_client_metadata', message: `response_type ${unsupportedResponse} is not supported: use code` };
  const clientId = `sbo_client_${crypto.randomBytes(16).toString('base64url')}`;
  const name = (metadata.client_name ?? '').trim().slice(0, CLIENT_NAME_MAX) || 'Unnamed MCP client';
  const issuedAt = Math.floor(input.now.getTime() / 1000);
  const registered: Record<string, unknown> = {
    ...withoutSecrets(metadata),
    client_id: clientId,
    client_id_issued_at: issuedAt,
    client_name: name,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  const client: OAuthClientRow = {
    client_id: clientId,
    client_name: name,
    redirect_uris: [...metadata.redirect_uris],
    metadata: registered,
    registered_from: input.registeredFrom,
    created_at: input.now,
  };
  await insertClient(db, client);
  return { ok: true, client };
}

function withoutSecrets(metadata: ClientMetadata): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...metadata };
  delete copy.client_secret;
  delete copy.client_secret_expires_at;
  return copy;
}
