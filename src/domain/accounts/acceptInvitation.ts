import type { UseCaseDeps } from '../useCaseDeps';
import { hashPassword } from '../../platform/crypto/password';
import { addUser } from '../workspaces/service';
import { consumeAccessLimits } from './accessLimits';
import { passwordProblems, type FieldProblem } from './rules';
import { openSession, type OpenedSession } from './session';
import { findPendingInvitation, markInvitationAccepted, sessionTokenHash, setPasswordHash, type InvitationRow } from './store';

export type AcceptOutcome =
  | { ok: true; userId: string; workspaceId: string; session: OpenedSession }
  | { ok: false; refused: 'invalid_fields'; problems: FieldProblem[] }
  | { ok: false; refused: 'invitation_invalid' | 'email_taken' }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

const UNIQUE_VIOLATION = '23505';

/** The invitation a link names, if it can still be accepted (unknown, used, revoked and expired look alike). */
export async function pendingInvitation(deps: UseCaseDeps, token: string): Promise<InvitationRow | undefined> {
  return findPendingInvitation(deps.db, sessionTokenHash(token), deps.now());
}

/**
 * Accepts an invitation: the user is created in the workspace with the invited role and the chosen
 * password, the invitation is used up, and a session opens. Counted against the client address's
 * limit like a signup, before the token is looked at.
 */
export async function acceptInvitation(
  deps: UseCaseDeps,
  request: { token: string; password: string; clientAddress: string },
): Promise<AcceptOutcome> {
  const limited = await consumeAccessLimits(deps, [{ name: 'portal.invitation_accept', value: request.clientAddress }]);
  if (limited) return { ok: false, ...limited };
  const invitation = await pendingInvitation(deps, request.token);
  if (!invitation) return { ok: false, refused: 'invitation_invalid' };
  const problems = passwordProblems(request.password);
  if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  const passwordHash = await hashPassword(request.password, deps.config.passwordScryptN);
  let user: { id: string; workspace_id: string } | undefined;
  try {
    user = await deps.db.transaction(async (trx) => {
      if (!(await markInvitationAccepted(trx, invitation.id, deps.now()))) return undefined;
      const added = await addUser(trx, { workspaceId: invitation.workspace_id, email: invitation.email, role: invitation.role });
      await setPasswordHash(trx, added.id, passwordHash, deps.now());
      return added;
    });
  } catch (err) {
    // The address signed up (or accepted another invitation) since the invitation was made.
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return { ok: false, refused: 'email_taken' };
    throw err;
  }
  if (!user) return { ok: false, refused: 'invitation_invalid' };
  const session = await openSession(deps, user, request.clientAddress);
  return { ok: true, userId: user.id, workspaceId: user.workspace_id, session };
}
