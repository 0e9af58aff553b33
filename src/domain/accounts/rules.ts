/** Portal accounts (issue 17): what a signup may contain and how long a session lasts. Pure. */
import type { Role } from '../keys/scopes';

/** A session lasts 12 hours from sign-in, whatever its use; logout and a password change end it earlier. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

export const PASSWORD_MIN_LENGTH = 10;
/** scrypt reads the whole password: a ceiling keeps one request's work bounded. */
export const PASSWORD_MAX_LENGTH = 256;
export const EMAIL_MAX_LENGTH = 254;
export const WORKSPACE_NAME_MAX_LENGTH = 100;

export interface FieldProblem {
  field: string;
  message: string;
}

/** Addresses compare without case, as `users.email` is stored (src/domain/workspaces/service.ts). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblems(email: string): FieldProblem[] {
  if (email.length === 0) return [{ field: 'email', message: 'is required' }];
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL_SHAPE.test(email)) return [{ field: 'email', message: 'must be an email address' }];
  return [];
}

export function passwordProblems(password: string, field = 'password'): FieldProblem[] {
  if (password.length < PASSWORD_MIN_LENGTH) return [{ field, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` }];
  if (password.length > PASSWORD_MAX_LENGTH) return [{ field, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` }];
  return [];
}

export function workspaceNameProblems(name: string): FieldProblem[] {
  if (name.length > WORKSPACE_NAME_MAX_LENGTH)
    return [{ field: 'workspace_name', message: `must be at most ${WORKSPACE_NAME_MAX_LENGTH} characters` }];
  return [];
}

/** A workspace the signup did not name is called after its owner's address. */
export function defaultWorkspaceName(email: string): string {
  return `${email}'s workspace`;
}

/** An invitation link works for 7 days, once. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export type MemberChangeRefusal = 'forbidden' | 'last_owner';

/**
 * Who may give or take which role: owners and admins manage members, only an owner touches an
 * owner (making, demoting or removing one), and the last owner always stays an owner.
 */
export function memberChangeRefusal(change: {
  actorRole: Role;
  targetRole?: Role;
  newRole?: Role;
  ownerCount: number;
}): MemberChangeRefusal | undefined {
  if (change.actorRole === 'member') return 'forbidden';
  const touchesOwner = change.targetRole === 'owner' || change.newRole === 'owner';
  if (touchesOwner && change.actorRole !== 'owner') return 'forbidden';
  if (change.targetRole === 'owner' && change.newRole !== 'owner' && change.ownerCount <= 1) return 'last_owner';
  return undefined;
}

/** The roles a member of `role` may give by invitation or role change (the rule above, without a target). */
export function rolesGrantableBy(role: Role): Role[] {
  if (role === 'member') return [];
  return role === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member'];
}
