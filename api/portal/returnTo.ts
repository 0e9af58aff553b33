import type { AppContext, AppDeps } from '../context';
import { clearCookie, readCookie, setCookie } from './http';

/**
 * Where a sign-in goes back to when a page that needs one asked for it: the OAuth consent page (issue 29)
 * and any portal page opened from a bookmark or a shared link (issue 30, the deep link kept across sign-in).
 */
const RETURN_COOKIE = 'sb_portal_return';
/**
 * Only a portal page's own path and query can be named: the path starts with `/portal`, its segments are plain
 * words (no `//`, no `..`, no backslash, no scheme), so the cookie is no open redirect. Pages that are not
 * destinations (sign-in, sign-up, assets) are never stored.
 */
const RETURNABLE = /^\/portal(\/[A-Za-z0-9_%+-]{1,100}){0,5}(\?[A-Za-z0-9_.~%+:@=&-]{0,900})?$/;
const NOT_DESTINATIONS = /^\/portal\/(login|logout|signup|verify|assets|invite|password|overview)(\/|\?|$)/;
const RETURN_LIFETIME_S = 15 * 60;

export function isReturnable(path: string): boolean {
  return RETURNABLE.test(path) && !NOT_DESTINATIONS.test(path);
}

/**
 * Sends a visitor without a session to the login page, to come back to `path` once signed in. A fragment
 * htmx asks for (HX-Request) is no page to come back to: it only sends the visitor to sign in.
 */
export function signInThenReturn(ctx: AppContext, deps: AppDeps, path: string): void {
  if (ctx.method === 'GET' && !ctx.get('HX-Request') && isReturnable(path))
    setCookie(ctx, deps, RETURN_COOKIE, encodeURIComponent(path), { sameSite: 'Lax', maxAgeSeconds: RETURN_LIFETIME_S });
  ctx.redirect('/portal/login');
}

/** After a sign-in: the page that asked for it (once), else the overview. */
export function takeReturnPath(ctx: AppContext, deps: AppDeps): string {
  const stored = readCookie(ctx, RETURN_COOKIE);
  if (!stored) return '/portal';
  clearCookie(ctx, deps, RETURN_COOKIE);
  let path: string;
  try {
    path = decodeURIComponent(stored);
  } catch {
    return '/portal';
  }
  return isReturnable(path) ? path : '/portal';
}
