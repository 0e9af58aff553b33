import type { UseCaseDeps } from '../useCaseDeps';
import { decoyPasswordHash, verifyPassword } from '../../platform/crypto/password';
import { consumeAccessLimits } from './accessLimits';
import { accountHold, type AccountHold } from './accountTokens';
import { normalizeEmail, PASSWORD_MAX_LENGTH } from './rules';
import { openSession, type OpenedSession } from './session';
import { findUserByEmail } from './store';

export type LoginOutcome =
  | { ok: true; userId: string; session: OpenedSession }
  | { ok: false; refused: 'invalid_credentials' }
  | { ok: false; refused: AccountHold }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

/**
 * Signs an operator in. Every attempt counts against the account's and the client address's
 * limits before the password is checked. An unknown address, a user without a password and a
 * wrong password are the same `invalid_credentials`, and take as long (a decoy hash is verified).
 */
export async function login(deps: UseCaseDeps, request: { email: string; password: string; clientAddress: string }): Promise<LoginOutcome> {
  const email = normalizeEmail(request.email);
  const limited = await consumeAccessLimits(deps, [
    { name: 'portal.login_account', value: email },
    { name: 'portal.login_address', value: request.clientAddress },
  ]);
  if (limited) return { ok: false, ...limited };
  if (request.password.length > PASSWORD_MAX_LENGTH) return { ok: false, refused: 'invalid_credentials' };
  const user = await findUserByEmail(deps.db, email);
  const matches = await verifyPassword(request.password, user?.password_hash ?? (await decoyPasswordHash()));
  if (!user?.password_hash || !matches) return { ok: false, refused: 'invalid_credentials' };
  // Issue 27, H5: the right password does not open an unverified address's or an unapproved workspace's session.
  const hold = await accountHold(deps.db, user.id);
  if (hold) return { ok: false, refused: hold };
  return { ok: true, userId: user.id, session: await openSession(deps, user, request.clientAddress) };
}
