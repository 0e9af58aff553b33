import type { AppContext, AppDeps } from '../context';
import { clearCookie, readCookie, setCookie } from './http';

/** Where a sign-in goes back to when it was asked for by a page that needs one (issue 29: the OAuth consent page). */
const RETURN_COOKIE = 'sb_portal_return';
/** Only these pages are returned to: nothing else can be named, so the cookie is no open redirect. */
const RETURNABLE = /^\/portal\/oauth\/consent\?request=[A-Za-z0-9_-]{1,100}(&env=(test|live))?$/;
const RETURN_LIFETIME_S = 15 * 60;

/** Sends a visitor without a session to the login page, to come back to `path` once signed in. */
export function signInThenReturn(ctx: AppContext, deps: AppDeps, path: string): void {
  if (RETURNABLE.test(path))
    setCookie(ctx, deps, RETURN_COOKIE, encodeURIComponent(path), { sameSite: 'Lax', maxAgeSeconds: RETURN_LIFETIME_S });
  ctx.redirect('/portal/login');
}

/** After a sign-in: the page that asked for it (once), else the overview. */
export function takeReturnPath(ctx: AppContext, deps: AppDeps): string {
  const stored = readCookie(ctx, RETURN_COOKIE);
  if (!stored) return '/portal';
  clearCookie(ctx, deps, RETURN_COOKIE);
  const path = decodeURIComponent(stored);
  return RETURNABLE.test(path) ? path : '/portal';
}
