import type { UseCaseDeps } from '../useCaseDeps';
import { revokeSession } from './store';

/** Ends a session: its token no longer signs anyone in, on any API process. */
export async function logout(deps: UseCaseDeps, sessionId: string): Promise<void> {
  await revokeSession(deps.db, sessionId, deps.now());
}
