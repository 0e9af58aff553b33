import type { UseCaseDeps } from '../useCaseDeps';
import { hashPassword, verifyPassword } from '../../platform/crypto/password';
import { admitSignInAttempt } from './signInThrottle';
import { PASSWORD_MAX_LENGTH, passwordProblems, type FieldProblem } from './rules';
import { findAccountUser, revokeOtherSessions, setPasswordHash } from './store';

export type PasswordChangeOutcome =
  | { ok: true; revokedSessions: number }
  | { ok: false; refused: 'invalid_fields'; problems: FieldProblem[] }
  | { ok: false; refused: 'invalid_credentials' }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

/**
 * Changes a signed-in user's password after checking the current one, and signs out every other
 * session of the user (whoever held one may have known the old password). Each try counts against
 * the account's login limit, so a stolen session cannot guess the current password faster than a login.
 */
export async function changePassword(
  deps: UseCaseDeps,
  request: { userId: string; sessionId: string; currentPassword: string; newPassword: string; clientAddress: string },
): Promise<PasswordChangeOutcome> {
  const problems = passwordProblems(request.newPassword, 'new_password');
  if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  const user = await findAccountUser(deps.db, request.userId);
  if (!user) return { ok: false, refused: 'invalid_credentials' };
  const attempt = await admitSignInAttempt(deps, { account: user.email, clientAddress: request.clientAddress });
  if (!('admitted' in attempt)) return { ok: false, ...attempt };
  if (request.currentPassword.length > PASSWORD_MAX_LENGTH) return { ok: false, refused: 'invalid_credentials' };
  if (!user.password_hash || !(await verifyPassword(request.currentPassword, user.password_hash)))
    return { ok: false, refused: 'invalid_credentials' };
  await attempt.admitted.passed();
  const passwordHash = await hashPassword(request.newPassword, deps.config.passwordScryptN);
  const now = deps.now();
  const revokedSessions = await deps.db.transaction(async (trx) => {
    await setPasswordHash(trx, user.id, passwordHash, now);
    return revokeOtherSessions(trx, user.id, request.sessionId, now);
  });
  return { ok: true, revokedSessions };
}
