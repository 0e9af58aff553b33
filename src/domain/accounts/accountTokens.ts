import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { sessionTokenHash } from './store';

/**
 * The single-use links the portal mails (issue 27, H5): address verification and password reset.
 * A token has 256 random bits and is stored only as its SHA-256 (as sessions and invitations are);
 * it expires, and is used up by the first request that uses it (`used_at`, set under a row lock).
 * All SQL of `account_tokens` and of the usability of an account (verified address, approved
 * workspace) is here.
 */
export type AccountTokenPurpose = 'email_verification' | 'password_reset';

/** Verification links live a day; reset links an hour (OWASP Forgot Password cheat sheet: short-lived). */
export const ACCOUNT_TOKEN_LIFETIME_MS: Record<AccountTokenPurpose, number> = {
  email_verification: 24 * 60 * 60 * 1000,
  password_reset: 60 * 60 * 1000,
};

export interface AccountTokenRow {
  id: string;
  user_id: string;
  purpose: AccountTokenPurpose;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** A new link for `userId`: the plaintext token (mailed once) and its row. Earlier unused links of the purpose stop working. */
export async function issueAccountToken(
  db: Db | Knex.Transaction,
  input: { userId: string; purpose: AccountTokenPurpose; now: Date },
): Promise<{ token: string; row: AccountTokenRow }> {
  const token = crypto.randomBytes(32).toString('base64url');
  await db('account_tokens').where({ user_id: input.userId, purpose: input.purpose }).whereNull('used_at').update({ used_at: input.now });
  const [row] = await db<AccountTokenRow & { token_hash: string }>('account_tokens')
    .insert({
      user_id: input.userId,
      purpose: input.purpose,
      token_hash: sessionTokenHash(token),
      created_at: input.now,
      expires_at: new Date(input.now.getTime() + ACCOUNT_TOKEN_LIFETIME_MS[input.purpose]),
    })
    .returning(['id', 'user_id', 'purpose', 'created_at', 'expires_at', 'used_at']);
  return { token, row };
}

export type TokenUse = { ok: true; row: AccountTokenRow } | { ok: false; refused: 'unknown' | 'used' | 'expired'; row?: AccountTokenRow };

/**
 * Uses a link inside `trx`: the row is locked, so of two requests with one token only the first
 * gets `ok`; the second sees it `used`. Unknown, used and expired tokens change nothing.
 */
export async function useAccountToken(trx: Knex.Transaction, purpose: AccountTokenPurpose, token: string, now: Date): Promise<TokenUse> {
  const row = await trx<AccountTokenRow & { token_hash: string }>('account_tokens')
    .where({ token_hash: sessionTokenHash(token), purpose })
    .forUpdate()
    .first('id', 'user_id', 'purpose', 'created_at', 'expires_at', 'used_at');
  if (!row) return { ok: false, refused: 'unknown' };
  if (row.used_at) return { ok: false, refused: 'used', row };
  if (row.expires_at.getTime() <= now.getTime()) return { ok: false, refused: 'expired', row };
  await trx('account_tokens').where({ id: row.id }).update({ used_at: now });
  return { ok: true, row };
}

/** Whether a link can still be used (the reset form is shown only for one that can); changes nothing. */
export async function usableAccountToken(
  db: Db,
  purpose: AccountTokenPurpose,
  token: string,
  now: Date,
): Promise<AccountTokenRow | undefined> {
  return db<AccountTokenRow & { token_hash: string }>('account_tokens')
    .where({ token_hash: sessionTokenHash(token), purpose })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .first('id', 'user_id', 'purpose', 'created_at', 'expires_at', 'used_at');
}

export async function markEmailVerified(db: Db | Knex.Transaction, userId: string, at: Date): Promise<void> {
  await db('users').where({ id: userId }).whereNull('email_verified_at').update({ email_verified_at: at });
}

/** Ends every session of a user (a password reset: whoever held one may have known the old password). */
export async function revokeAllSessions(db: Db | Knex.Transaction, userId: string, at: Date): Promise<number> {
  return db('portal_sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: at });
}

/** Why an account may not sign in yet: its address is unverified, or its workspace awaits an operator's approval. */
export type AccountHold = 'email_unverified' | 'approval_pending';

export async function accountHold(db: Db | Knex.Transaction, userId: string): Promise<AccountHold | undefined> {
  const row = await db('users as u')
    .join('workspaces as w', 'w.id', 'u.workspace_id')
    .where('u.id', userId)
    .first<{ email_verified_at: Date | null; approval_requested_at: Date | null; approved_at: Date | null }>(
      'u.email_verified_at',
      'w.approval_requested_at',
      'w.approved_at',
    );
  if (!row) return undefined;
  if (!row.email_verified_at) return 'email_unverified';
  if (row.approval_requested_at && !row.approved_at) return 'approval_pending';
  return undefined;
}

export interface PendingWorkspace {
  id: string;
  name: string;
  owner_email: string;
  email_verified: boolean;
  approval_requested_at: Date;
}

/** Workspaces waiting for an operator (`SIGNUP_MODE=approval`), oldest first, for the CLI. */
export async function workspacesAwaitingApproval(db: Db): Promise<PendingWorkspace[]> {
  const rows = await db('workspaces as w')
    .join('users as u', function joinOwner() {
      this.on('u.workspace_id', 'w.id').andOnVal('u.role', 'owner');
    })
    .whereNotNull('w.approval_requested_at')
    .whereNull('w.approved_at')
    .orderBy('w.approval_requested_at')
    .select('w.id', 'w.name', 'u.email as owner_email', 'u.email_verified_at', 'w.approval_requested_at');
  return rows.map((row: PendingWorkspace & { email_verified_at: Date | null }) => ({
    id: row.id,
    name: row.name,
    owner_email: row.owner_email,
    email_verified: row.email_verified_at !== null,
    approval_requested_at: row.approval_requested_at,
  }));
}

/** Approves a waiting workspace; false when it is unknown or was not waiting. */
export async function approveWorkspaceRow(db: Db, workspaceId: string, at: Date): Promise<boolean> {
  const updated = await db('workspaces')
    .where({ id: workspaceId })
    .whereNotNull('approval_requested_at')
    .whereNull('approved_at')
    .update({ approved_at: at });
  return updated === 1;
}

/** A current member by address (removed members get no link: they have no password to reset). */
export async function findMemberByEmail(
  db: Db,
  email: string,
): Promise<{ id: string; workspace_id: string; email: string; email_verified_at: Date | null } | undefined> {
  return db('users').where({ email }).whereNull('removed_at').first('id', 'workspace_id', 'email', 'email_verified_at');
}

export async function isCurrentMember(db: Db | Knex.Transaction, userId: string): Promise<boolean> {
  return (await db('users').where({ id: userId }).whereNull('removed_at').first('id')) !== undefined;
}

export async function workspaceName(db: Db, workspaceId: string): Promise<string> {
  const row = await db('workspaces').where({ id: workspaceId }).first<{ name: string } | undefined>('name');
  return row?.name ?? 'a workspace';
}
