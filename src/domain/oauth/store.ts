/** All SQL of OAuth for /mcp (issue 29). Codes, tokens and request ids are stored as SHA-256 digests only. */
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';

type Q = Db | Knex.Transaction;

export interface OAuthClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  /** The registered metadata as answered to the client (RFC 7591 §3.2.1), never with a secret. */
  metadata: Record<string, unknown>;
  registered_from: string | null;
  created_at: Date;
}

export interface AuthorizationRequestRow {
  id: string;
  request_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  scopes: string[];
  resource: string;
  created_at: Date;
  expires_at: Date;
  completed_at: Date | null;
}

export interface GrantRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  client_id: string;
  user_id: string;
  key_id: string;
  key_sealed: string;
  resource: string;
  created_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export interface CodeRow {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  expires_at: Date;
  consumed_at: Date | null;
}

export interface TokenRow {
  token_hash: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  client_id: string;
  resource: string;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
}

export async function insertClient(db: Q, row: OAuthClientRow): Promise<void> {
  await db('oauth_clients').insert({ ...row, metadata: JSON.stringify(row.metadata) });
}

export async function findClient(db: Q, clientId: string): Promise<OAuthClientRow | undefined> {
  return db<OAuthClientRow>('oauth_clients').where({ client_id: clientId }).first();
}

export async function insertAuthorizationRequest(db: Q, row: Omit<AuthorizationRequestRow, 'id' | 'completed_at'>): Promise<void> {
  await db('oauth_authorization_requests').insert(row);
}

export async function findAuthorizationRequest(db: Q, requestHash: string): Promise<AuthorizationRequestRow | undefined> {
  return db<AuthorizationRequestRow>('oauth_authorization_requests').where({ request_hash: requestHash }).first();
}

/** Completes the request once: false when another answer (a second tab, a replayed form) completed it first. */
export async function completeAuthorizationRequest(trx: Knex.Transaction, id: string, now: Date): Promise<boolean> {
  const done = await trx('oauth_authorization_requests').where({ id }).whereNull('completed_at').update({ completed_at: now });
  return done === 1;
}

export async function insertGrant(trx: Knex.Transaction, row: Omit<GrantRow, 'revoked_at' | 'revoked_reason'>): Promise<void> {
  await trx('oauth_grants').insert(row);
}

export async function findGrant(db: Q, id: string): Promise<GrantRow | undefined> {
  return db<GrantRow>('oauth_grants').where({ id }).first();
}

/** Marks the grant revoked (idempotent); true when this call revoked it. */
export async function markGrantRevoked(trx: Knex.Transaction, id: string, reason: string, now: Date): Promise<boolean> {
  const done = await trx('oauth_grants').where({ id }).whereNull('revoked_at').update({ revoked_at: now, revoked_reason: reason });
  return done === 1;
}

export async function insertCode(trx: Knex.Transaction, row: Omit<CodeRow, 'consumed_at'>): Promise<void> {
  await trx('oauth_codes').insert(row);
}

export async function findCode(db: Q, codeHash: string): Promise<CodeRow | undefined> {
  return db<CodeRow>('oauth_codes').where({ code_hash: codeHash }).first();
}

/** The code row locked for its exchange (two concurrent exchanges: one waits and then sees it consumed). */
export async function lockCode(trx: Knex.Transaction, codeHash: string): Promise<CodeRow | undefined> {
  return trx<CodeRow>('oauth_codes').where({ code_hash: codeHash }).forUpdate().first();
}

export async function consumeCode(trx: Knex.Transaction, codeHash: string, now: Date): Promise<void> {
  await trx('oauth_codes').where({ code_hash: codeHash }).update({ consumed_at: now });
}

export async function insertTokens(trx: Knex.Transaction, rows: TokenRow[]): Promise<void> {
  await trx('oauth_tokens').insert(rows);
}

export async function findToken(db: Q, tokenHash: string): Promise<TokenRow | undefined> {
  return db<TokenRow>('oauth_tokens').where({ token_hash: tokenHash }).first();
}

export async function lockToken(trx: Knex.Transaction, tokenHash: string): Promise<TokenRow | undefined> {
  return trx<TokenRow>('oauth_tokens').where({ token_hash: tokenHash }).forUpdate().first();
}

export async function consumeToken(trx: Knex.Transaction, tokenHash: string, now: Date): Promise<void> {
  await trx('oauth_tokens').where({ token_hash: tokenHash }).update({ consumed_at: now });
}

/** An access token with its live grant and client (undefined for an unknown, expired or revoked one). */
export async function findLiveAccessToken(
  db: Q,
  tokenHash: string,
  now: Date,
): Promise<{ token: TokenRow; grant: GrantRow; clientName: string } | undefined> {
  const row = await db('oauth_tokens as t')
    .join('oauth_grants as g', 'g.id', 't.grant_id')
    .join('oauth_clients as c', 'c.client_id', 'g.client_id')
    .where({ 't.token_hash': tokenHash, 't.kind': 'access' })
    .andWhere('t.expires_at', '>', now)
    .whereNull('g.revoked_at')
    .first<Record<string, unknown> | undefined>(
      db.raw('row_to_json(t.*) as token'),
      db.raw('row_to_json(g.*) as grant'),
      'c.client_name as client_name',
    );
  if (!row) return undefined;
  const token = row.token as TokenRow & { expires_at: string; created_at: string; consumed_at: string | null };
  const grant = row.grant as GrantRow & { created_at: string };
  return {
    token: { ...token, expires_at: new Date(token.expires_at), created_at: new Date(token.created_at), consumed_at: null },
    grant: { ...grant, created_at: new Date(grant.created_at), revoked_at: null },
    clientName: row.client_name as string,
  };
}

/** A day past its expiry, nothing here can matter: reuse detection needs a code or refresh token only while it could be presented. */
const PURGE_GRACE_MS = 24 * 3600_000;

/**
 * Deletes authorization requests, codes and tokens that expired over a day ago (maintenance). Grants
 * stay: the audit log and the delegated keys name them.
 */
export async function purgeExpiredOAuthRecords(db: Q, now: Date): Promise<number> {
  const before = new Date(now.getTime() - PURGE_GRACE_MS);
  const requests = await db('oauth_authorization_requests').where('expires_at', '<', before).del();
  const codes = await db('oauth_codes').where('expires_at', '<', before).del();
  const tokens = await db('oauth_tokens').where('expires_at', '<', before).del();
  return requests + codes + tokens;
}
