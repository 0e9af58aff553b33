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

/** A user who may sign in: removed members are not found. */
export async function findAccountUser(db: Db, userId: string): Promise<AccountUser | undefined> {
  return db<AccountUser>('users')
    .where({ id: userId })
    .whereNull('removed_at')
    .first('id', 'workspace_id', 'email', 'role', 'password_hash');
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

export interface MemberRow {
  id: string;
  email: string;
  role: Role;
  created_at: Date;
}

export interface InvitationRow {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
}

export async function membersOf(db: Db, workspaceId: string): Promise<MemberRow[]> {
  return db('users')
    .where({ workspace_id: workspaceId })
    .whereNull('removed_at')
    .orderBy('created_at')
    .select('id', 'email', 'role', 'created_at');
}

/** The email addresses of these users of the workspace (removed members included: keys and events still name them), by id. */
export async function userEmailsOf(db: Db, workspaceId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db('users')
    .where({ workspace_id: workspaceId })
    .whereIn('id', [...ids])
    .select<Array<{ id: string; email: string }>>('id', 'email');
  return new Map(rows.map((row) => [row.id, row.email]));
}

export async function countOwners(db: Db | Knex.Transaction, workspaceId: string): Promise<number> {
  const [{ count }] = await db('users')
    .where({ workspace_id: workspaceId, role: 'owner' })
    .whereNull('removed_at')
    .count<{ count: string }[]>({ count: '*' });
  return Number(count);
}

export async function setRole(db: Db | Knex.Transaction, userId: string, role: Role): Promise<void> {
  await db('users').where({ id: userId }).update({ role });
}

export async function insertInvitation(
  db: Db,
  invitation: {
    workspaceId: string;
    email: string;
    role: Role;
    tokenHash: string;
    invitedBy: string | null;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<InvitationRow> {
  const [row] = await db('member_invitations')
    .insert({
      workspace_id: invitation.workspaceId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      created_at: invitation.createdAt,
      expires_at: invitation.expiresAt,
    })
    .returning(['id', 'workspace_id', 'email', 'role', 'created_at', 'expires_at']);
  return row;
}

/** Invitations of a workspace still waiting: neither accepted, revoked nor expired at `now`. */
export async function pendingInvitationsOf(db: Db, workspaceId: string, now: Date): Promise<InvitationRow[]> {
  return db<InvitationRow>('member_invitations')
    .where({ workspace_id: workspaceId })
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .select('id', 'workspace_id', 'email', 'role', 'created_at', 'expires_at');
}

export async function findPendingInvitation(db: Db | Knex.Transaction, tokenHash: string, now: Date): Promise<InvitationRow | undefined> {
  return db<InvitationRow & { token_hash: string }>('member_invitations')
    .where({ token_hash: tokenHash })
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .where('expires_at', '>', now)
    .first('id', 'workspace_id', 'email', 'role', 'created_at', 'expires_at');
}

/** Marks a pending invitation used; false when another request used, or someone revoked, it first. */
export async function markInvitationAccepted(db: Knex.Transaction, invitationId: string, at: Date): Promise<boolean> {
  const updated = await db('member_invitations')
    .where({ id: invitationId })
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .update({ accepted_at: at });
  return updated === 1;
}

export async function revokeInvitation(db: Db, workspaceId: string, invitationId: string, at: Date): Promise<boolean> {
  const updated = await db('member_invitations')
    .where({ id: invitationId, workspace_id: workspaceId })
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .update({ revoked_at: at });
  return updated === 1;
}

/** Marks a member removed: no password, no live session. Their keys are revoked by the caller. */
export async function markUserRemoved(db: Knex.Transaction, userId: string, at: Date): Promise<void> {
  await db('users').where({ id: userId }).update({ removed_at: at, password_hash: null });
  await db('portal_sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: at });
}

/**
 * Revokes the pending invitations `userId` issued, except those for a role in `keepRoles` (a
 * demoted member keeps the invitations they may still give; a removed one keeps none).
 */
export async function revokeInvitationsIssuedBy(
  db: Knex.Transaction,
  input: { userId: string; keepRoles: readonly Role[]; at: Date },
): Promise<number> {
  return db('member_invitations')
    .where({ invited_by: input.userId })
    .whereNull('accepted_at')
    .whereNull('revoked_at')
    .whereNotIn('role', [...input.keepRoles])
    .update({ revoked_at: input.at });
}
