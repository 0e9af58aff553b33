import type { AppContext, AppDeps } from '../context';
import { resolveSession, type SignedIn } from '../../src/domain/accounts/session';
import type { Environment } from '../../src/domain/keys/format';
import { workspaceTimeZone } from '../../src/domain/workspaces/store';
import { noteAction } from './actionLog';
import { renderInTimeZone } from './timeZoneScope';
import { newPreSessionToken, PRE_SESSION_CSRF_COOKIE, readCookie, SESSION_COOKIE, sessionCsrfToken, setCookie } from './http';

/** A signed-in operator, the CSRF token of their session, the environment the page shows and their workspace's time zone. */
export interface Operator extends SignedIn {
  csrfToken: string;
  environment: Environment;
  timeZone: string;
}

/** Who sent the request: the session cookie's operator when the session is live. The cookie is read only here, never by the API's authentication. */
export async function signedInOperator(ctx: AppContext, deps: AppDeps, environment: string | undefined): Promise<Operator | undefined> {
  const token = readCookie(ctx, SESSION_COOKIE);
  if (!token) return undefined;
  const signedIn = await resolveSession(deps, token);
  if (!signedIn) return undefined;
  const { user } = signedIn;
  noteAction(ctx, { operator: { userId: user.id, workspaceId: user.workspace_id, email: user.email } });
  const timeZone = await workspaceTimeZone(deps.db, user.workspace_id);
  renderInTimeZone(timeZone);
  return { ...signedIn, csrfToken: sessionCsrfToken(token), environment: environment === 'live' ? 'live' : 'test', timeZone };
}

/** The double-submit token of the signup and login forms: the cookie's, or a new one set now. */
export function preSessionToken(ctx: AppContext, deps: AppDeps): string {
  const existing = readCookie(ctx, PRE_SESSION_CSRF_COOKIE);
  if (existing) return existing;
  const token = newPreSessionToken();
  setCookie(ctx, deps, PRE_SESSION_CSRF_COOKIE, token, { sameSite: 'Strict' });
  return token;
}
