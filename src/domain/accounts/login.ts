import type { UseCaseDeps } from '../useCaseDeps';
import { decoyPasswordHash, verifyPassword } from '../../platform/crypto/password';
import { accountHold, type AccountHold } from './accountTokens';
import { normalizeEmail, PASSWORD_MAX_LENGTH } from './rules';
import { openChallenge, type OpenedChallenge } from './secondFactor';
import { openSession, type OpenedSession } from './session';
import { admitSignInAttempt } from './signInThrottle';
import { findUserByEmail, twoFactorStanding } from './store';

export type LoginOutcome =
  | { ok: true; userId: string; session: OpenedSession }
  /** The password is right and the user has a second factor: the sign-in completes with a code (./secondFactor.ts). */
  | { ok: true; userId: string; challenge: OpenedChallenge }
  | { ok: false; refused: 'invalid_credentials' }
  | { ok: false; refused: AccountHold }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

/**
 * Signs an operator in. The attempt passes the sign-in throttle first (only failures count, per
 * account and address with a growing delay, and per address); a user with a second factor gets a
 * challenge instead of a session. An unknown address, a user without a password and a wrong
 * password are the same `invalid_credentials`, and take as long (a decoy hash is verified).
 */
export async function login(deps: UseCaseDeps, request: { email: string; password: string; clientAddress: string }): Promise<LoginOutcome> {
  const email = normalizeEmail(request.email);
  const attempt = await admitSignInAttempt(deps, { account: email, clientAddress: request.clientAddress });
  if (!('admitted' in attempt)) return { ok: false, ...attempt };
  if (request.password.length > PASSWORD_MAX_LENGTH) return { ok: false, refused: 'invalid_credentials' };
  const user = await findUserByEmail(deps.db, email);
  const matches = await verifyPassword(request.password, user?.password_hash ?? (await decoyPasswordHash(deps.config.passwordScryptN)));
  if (!user?.password_hash || !matches) return { ok: false, refused: 'invalid_credentials' };
  // Issue 27, H5: the right password does not open an unverified address's or an unapproved workspace's session.
  const hold = await accountHold(deps.db, user.id);
  if (hold) {
    await attempt.admitted.passed();
    return { ok: false, refused: hold };
  }
  if ((await twoFactorStanding(deps.db, user.id)).enabled) {
    // The failures stay counted until the code is right too: a known password buys no fresh guesses at codes.
    await attempt.admitted.passed();
    return { ok: true, userId: user.id, challenge: await openChallenge(deps, user.id, request.clientAddress) };
  }
  await attempt.admitted.succeeded();
  return { ok: true, userId: user.id, session: await openSession(deps, user, request.clientAddress) };
}
