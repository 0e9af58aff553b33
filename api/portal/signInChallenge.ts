import type { AppContext, AppDeps } from '../context';
import type { OpenedChallenge } from '../../src/domain/accounts/secondFactor';
import { CHALLENGE_LIFETIME_MS } from '../../src/domain/accounts/twoFactorRules';
import { changed } from './answer';
import { setCookie } from './http';

/** The cookie of a sign-in whose password checked out and whose second factor is awaited (issue 27). */
export const CHALLENGE_COOKIE = 'sb_portal_challenge';

/** After the right password of a user with a second factor: the challenge cookie, then the code page (or JSON saying so). */
export function askForSecondFactor(ctx: AppContext, deps: AppDeps, challenge: OpenedChallenge): void {
  setCookie(ctx, deps, CHALLENGE_COOKIE, challenge.token, { sameSite: 'Strict', maxAgeSeconds: Math.floor(CHALLENGE_LIFETIME_MS / 1000) });
  changed(ctx, '/portal/login/code', 200, { second_factor_required: true, next: '/portal/login/code' });
}
