import { accountHold, issueAccountToken, markEmailVerified, useAccountToken, type TokenUse } from './accountTokens';
import { answerMailRequest, sendAccountMail, verificationMail, type MailingDeps, type MailRequestAnswer } from './mail';
import { openSession, type OpenedSession } from './session';
import { findAccountUser } from './store';

export type VerifyOutcome =
  | { ok: true; userId: string; workspaceId: string; session: OpenedSession }
  | { ok: true; userId: string; workspaceId: string; awaitingApproval: true }
  | { ok: false; refused: 'link_invalid' };

/**
 * Follows a verification link (issue 27, H5): the address is verified and, when the workspace needs
 * no operator's approval (or has it), a session opens: the link proves the address, as signing in
 * would. A link unknown, used already or expired is refused, changes nothing and is logged with
 * why (a replay names the token's row and user, never the token).
 */
export async function verifyEmail(deps: MailingDeps, request: { token: string; clientAddress: string }): Promise<VerifyOutcome> {
  const used = await deps.db.transaction(async (trx) => {
    const use = await useAccountToken(trx, 'email_verification', request.token, deps.now());
    if (use.ok) await markEmailVerified(trx, use.row.user_id, deps.now());
    return use;
  });
  if (!used.ok) return refusedLink(deps, used, 'verification');
  const user = await findAccountUser(deps.db, used.row.user_id);
  if (!user) return refusedLink(deps, { ok: false, refused: 'unknown' }, 'verification');
  if ((await accountHold(deps.db, user.id)) === 'approval_pending')
    return { ok: true, userId: user.id, workspaceId: user.workspace_id, awaitingApproval: true };
  return { ok: true, userId: user.id, workspaceId: user.workspace_id, session: await openSession(deps, user, request.clientAddress) };
}

/** Logs a refused link (at warn: a replay or a guess is worth an operator's look) and answers `link_invalid`. */
export function refusedLink(
  deps: MailingDeps,
  use: TokenUse & { ok: false },
  kind: 'verification' | 'password reset',
): { ok: false; refused: 'link_invalid' } {
  deps.log.warn({ why: use.refused, account_token_id: use.row?.id, user_id: use.row?.user_id }, `${kind} link refused`);
  return { ok: false, refused: 'link_invalid' };
}

/**
 * Sends a new verification link to an address whose owner has not followed theirs (the old one
 * stops working). The same answer whatever the address (no existence leak); limited per address
 * and per client.
 */
export function resendVerification(deps: MailingDeps, request: { email: string; clientAddress: string }): Promise<MailRequestAnswer> {
  return answerMailRequest(deps, request, async (user) => {
    if (user.email_verified_at) return;
    const { token } = await issueAccountToken(deps.db, { userId: user.id, purpose: 'email_verification', now: deps.now() });
    await sendAccountMail(deps, verificationMail(deps.config.publicBaseUrl, user.email, token));
  });
}
