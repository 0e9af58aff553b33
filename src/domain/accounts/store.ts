import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import type { Role } from '../keys/scopes';

/** All SQL on portal accounts: users' password hashes and `portal_sessions`. */

export interface AccountUser {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  password_hash: string | null;
}

export interface SessionRow {
  id: string;
  user_id: string;
  workspace_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

interface StoredSession extends SessionRow {
  token_hash: string;
  client_address: string | null;
}

/** The session token's stored form: a token has 256 random bits, so one SHA-256 suffices (as for API keys). */
export function sessionTokenHash(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export async function findUserByEmail(db: Db, email: string): Promise<AccountUser | undefined> {
  return db<AccountUser>('users').where({ email }).first('id', 'workspace_id', 'email', 'role', 'password_hash');
}

export async function findAccountUser(db: Db, userId: string): Promise<AccountUser | undefined> {
  return db<AccountUser>('users').where({ id: userId }).first('id', 'workspace_id', 'email', 'role', 'password_hash');
}

export async function setPasswordHash(db: Db | Knex.Transaction, userId: string, passwordHash: string, at: Date): Promise<void> {
  await db('users').where({ id: userId }).update({ password_hash: passwordHash, password_changed_at: at });
}

export async function insertSession(
  db: Db,
  session: { tokenHash: string; userId: string; workspaceId: string; clientAddress: string | null; createdAt: Date; expiresAt: Date },
): Promise<SessionRow> {
  const [row] = await db<StoredSession>('portal_sessions')
    .insert({
      token_hash: session.tokenHash,
      user_id: session.userId,
      workspace_id: session.workspaceId,
      client_address: session.clientAddress,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    })
    .returning(['id', 'user_id', 'workspace_id', 'created_at', 'expires_at', 'revoked_at']);
  return row;
}

/** The session a token names, if it is neither revoked nor expired at `now`. */
export async function findLiveSession(db: Db, tokenHash: string, now: Date): Promise<SessionRow | undefined> {
  return db<StoredSession>('portal_sessions')
    .where({ token_hash: tokenHash })
    .whereNull('revoked_at')
    .where('expires_at', '>', now)
    .first('id', 'user_id', 'workspace_id', 'created_at', 'expires_at', 'revoked_at');
}

export async function revokeSession(db: Db, sessionId: string, at: Date): Promise<void> {
  await db('portal_sessions').where({ id: sessionId }).whereNull('revoked_at').update({ revoked_at: at });
}

/** Revokes every live session of a user but `keepSessionId` (a password change keeps the session that made it). */
export async function revokeOtherSessions(db: Db | Knex.Transaction, userId: string, keepSessionId: string, at: Date): Promise<number> {
  return db('portal_sessions')
    .where({ user_id: userId })
    .whereNot({ id: keepSessionId })
    .whereNull('revoked_at')
    .update({ revoked_at: at });
}
