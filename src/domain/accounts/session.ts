import crypto from 'node:crypto';
import type { UseCaseDeps } from '../useCaseDeps';
import { SESSION_LIFETIME_MS } from './rules';
import { findAccountUser, findLiveSession, insertSession, sessionTokenHash, type AccountUser, type SessionRow } from './store';

/** A session just opened: the token goes into the cookie once and is stored only as its hash. */
export interface OpenedSession {
  token: string;
  expiresAt: Date;
}

export async function openSession(
  deps: UseCaseDeps,
  user: { id: string; workspace_id: string },
  clientAddress: string | null,
): Promise<OpenedSession> {
  const token = crypto.randomBytes(32).toString('base64url');
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await insertSession(deps.db, {
    tokenHash: sessionTokenHash(token),
    userId: user.id,
    workspaceId: user.workspace_id,
    clientAddress,
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt };
}

export interface SignedIn {
  session: SessionRow;
  user: AccountUser;
}

/** Who a session token signs in, if its session is live. */
export async function resolveSession(deps: UseCaseDeps, token: string): Promise<SignedIn | undefined> {
  const session = await findLiveSession(deps.db, sessionTokenHash(token), deps.now());
  if (!session) return undefined;
  const user = await findAccountUser(deps.db, session.user_id);
  return user ? { session, user } : undefined;
}
