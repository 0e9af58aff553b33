import { hashPassword } from '../../platform/crypto/password';
import { isCurrentMember, issueAccountToken, markEmailVerified, revokeAllSessions, useAccountToken } from './accountTokens';
import { answerMailRequest, passwordResetMail, sendAccountMail, type MailingDeps, type MailRequestAnswer } from './mail';
import { passwordProblems, type FieldProblem } from './rules';
import { setPasswordHash } from './store';
import { refusedLink } from './verifyEmail';

/**
 * Asks for a password reset link (issue 27): mailed to a current member's address, valid an hour,
 * once. The same answer whether or not the address has an account (no existence leak); limited per
 * address and per client.
 */
export function requestPasswordReset(deps: MailingDeps, request: { email: string; clientAddress: string }): Promise<MailRequestAnswer> {
  return answerMailRequest(deps, request, async (user) => {
    const { token, row } = await issueAccountToken(deps.db, { userId: user.id, purpose: 'password_reset', now: deps.now() });
    deps.log.info({ user_id: user.id, account_token_id: row.id }, 'password reset requested');
    await sendAccountMail(deps, passwordResetMail(deps.config.publicBaseUrl, user.email, token));
  });
}

export type ResetOutcome =
  | { ok: true; userId: string; sessionsEnded: number }
  | { ok: false; refused: 'invalid_fields'; problems: FieldProblem[] }
  | { ok: false; refused: 'link_invalid' };

/**
 * Sets a new password with a reset link: the link is used up, every session of the user ends
 * (whoever held one may have known the old password), and the address counts as verified (the
 * link proves it). A weak password leaves the link usable; a link unknown, used or expired is
 * refused, changes nothing and is logged.
 */
export async function resetPassword(deps: MailingDeps, request: { token: string; password: string }): Promise<ResetOutcome> {
  const problems = passwordProblems(request.password);
  if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  const passwordHash = await hashPassword(request.password, deps.config.passwordScryptN);
  const now = deps.now();
  const outcome = await deps.db.transaction(async (trx) => {
    const use = await useAccountToken(trx, 'password_reset', request.token, now);
    if (!use.ok) return use;
    if (!(await isCurrentMember(trx, use.row.user_id))) return { ok: false as const, refused: 'unknown' as const, row: use.row };
    await setPasswordHash(trx, use.row.user_id, passwordHash, now);
    await markEmailVerified(trx, use.row.user_id, now);
    return { ok: true as const, userId: use.row.user_id, sessionsEnded: await revokeAllSessions(trx, use.row.user_id, now) };
  });
  if (!outcome.ok) return refusedLink(deps, outcome, 'password reset');
  deps.log.info({ user_id: outcome.userId, sessions_ended: outcome.sessionsEnded }, 'password reset');
  return outcome;
}
