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

/** The workspace's owners, counted with their rows locked until the transaction ends. */
export async function countOwnersLocked(trx: Knex.Transaction, workspaceId: string): Promise<number> {
  await trx('users').where({ workspace_id: workspaceId, role: 'owner' }).forUpdate().select('id');
  return countOwners(trx, workspaceId);
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

/** Two-factor sign-in (issue 27): a user's TOTP state, without the secret. */
export interface TwoFactorStanding {
  enabled: boolean;
  pending: boolean;
  /** The user's workspace requires a second factor of every member. */
  required: boolean;
}

export async function twoFactorStanding(db: Db, userId: string): Promise<TwoFactorStanding> {
  const row = await db('users')
    .join('workspaces', 'workspaces.id', 'users.workspace_id')
    .where('users.id', userId)
    .first<{ enabled: boolean; pending: boolean; required: boolean }>(
      db.raw('users.totp_enabled_at is not null as enabled'),
      db.raw('users.totp_pending_sealed is not null as pending'),
      'workspaces.require_two_factor as required',
    );
  return { enabled: Boolean(row?.enabled), pending: Boolean(row?.pending), required: Boolean(row?.required) };
}

export interface TotpRow {
  totp_pending_sealed: string | null;
  totp_secret_sealed: string | null;
  totp_last_step: string | null;
}

export async function findTotp(db: Db, userId: string): Promise<TotpRow | undefined> {
  return db('users').where('id', userId).first<TotpRow | undefined>('totp_pending_sealed', 'totp_secret_sealed', 'totp_last_step');
}

export async function setPendingTotp(db: Db, userId: string, sealed: string): Promise<void> {
  await db('users').where({ id: userId }).whereNull('totp_enabled_at').update({ totp_pending_sealed: sealed });
}

/** Turns the pending secret on (only if it is still the one confirmed), its code's step used. */
export async function enableTotp(
  db: Db | Knex.Transaction,
  userId: string,
  pendingSealed: string,
  step: number,
  at: Date,
): Promise<boolean> {
  const updated = await db('users')
    .where({ id: userId, totp_pending_sealed: pendingSealed })
    .whereNull('totp_enabled_at')
    .update({ totp_secret_sealed: pendingSealed, totp_pending_sealed: null, totp_enabled_at: at, totp_last_step: step });
  return updated === 1;
}

export async function disableTotp(db: Db | Knex.Transaction, userId: string): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ totp_secret_sealed: null, totp_pending_sealed: null, totp_enabled_at: null, totp_last_step: null });
  await db('recovery_codes').where({ user_id: userId }).del();
}

/** Records `step` as used, unless it (or a later one) already was: false means a replayed code. */
export async function useTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const updated = await db('users')
    .where({ id: userId })
    .whereNotNull('totp_enabled_at')
    .where((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
    .update({ totp_last_step: step });
  return updated === 1;
}

export async function replaceRecoveryCodes(db: Db | Knex.Transaction, userId: string, codeHashes: string[], at: Date): Promise<void> {
  await db('recovery_codes').where({ user_id: userId }).del();
  await db('recovery_codes').insert(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: at })));
}

/** Spends a recovery code: false when it is not the user's or was used. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string, at: Date): Promise<boolean> {
  const updated = await db('recovery_codes').where({ user_id: userId, code_hash: codeHash }).whereNull('used_at').update({ used_at: at });
  return updated === 1;
}

export async function unusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const [{ count }] = await db('recovery_codes').where({ user_id: userId }).whereNull('used_at').count<{ count: string }[]>({ count: '*' });
  return Number(count);
}

export interface ChallengeRow {
  id: string;
  user_id: string;
  client_address: string | null;
  failures: number;
}

export async function insertChallenge(
  db: Db,
  challenge: { tokenHash: string; userId: string; clientAddress: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db('sign_in_challenges').insert({
    token_hash: challenge.tokenHash,
    user_id: challenge.userId,
    client_address: challenge.clientAddress,
    created_at: challenge.createdAt,
    expires_at: challenge.expiresAt,
  });
}

/** A challenge still awaiting its code at `now`, with tries left. */
export async function findOpenChallenge(db: Db, tokenHash: string, now: Date, maxFailures: number): Promise<ChallengeRow | undefined> {
  return db('sign_in_challenges')
    .where('token_hash', tokenHash)
    .whereNull('completed_at')
    .where('expires_at', '>', now)
    .where('failures', '<', maxFailures)
    .first<ChallengeRow | undefined>('id', 'user_id', 'client_address', 'failures');
}

export async function countChallengeFailure(db: Db, challengeId: string): Promise<void> {
  await db('sign_in_challenges').where({ id: challengeId }).increment('failures', 1);
}

/** Completes a challenge once: false when another request completed it first. */
export async function completeChallenge(db: Db, challengeId: string, at: Date): Promise<boolean> {
  const updated = await db('sign_in_challenges').where({ id: challengeId }).whereNull('completed_at').update({ completed_at: at });
  return updated === 1;
}

/** Sets the workspace's requirement; false when it already was `required` (nothing changed). */
export async function setWorkspaceRequiresTwoFactor(db: Db | Knex.Transaction, workspaceId: string, required: boolean): Promise<boolean> {
  const updated = await db('workspaces')
    .where({ id: workspaceId })
    .whereNot({ require_two_factor: required })
    .update({ require_two_factor: required });
  return updated === 1;
}

/** A user of the workspace, present or removed (`removed_at`), as a confirmation step describes them; undefined for another workspace's. */
export async function findMemberOrFormer(
  db: Db,
  workspaceId: string,
  userId: string,
): Promise<(MemberRow & { removed_at: Date | null }) | undefined> {
  return db('users').where({ workspace_id: workspaceId, id: userId }).first('id', 'email', 'role', 'created_at', 'removed_at');
}

/** An invitation of the workspace in any state (pending, accepted, revoked, expired); undefined for another workspace's. */
export async function findInvitation(
  db: Db,
  workspaceId: string,
  invitationId: string,
): Promise<(InvitationRow & { accepted_at: Date | null; revoked_at: Date | null }) | undefined> {
  return db('member_invitations')
    .where({ workspace_id: workspaceId, id: invitationId })
    .first('id', 'workspace_id', 'email', 'role', 'created_at', 'expires_at', 'accepted_at', 'revoked_at');
}
