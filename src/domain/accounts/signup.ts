import type { UseCaseDeps } from '../useCaseDeps';
import { hashPassword } from '../../platform/crypto/password';
import { createWorkspace } from '../workspaces/service';
import { consumeAccessLimits } from './accessLimits';
import { defaultWorkspaceName, emailProblems, normalizeEmail, passwordProblems, workspaceNameProblems, type FieldProblem } from './rules';
import { openSession, type OpenedSession } from './session';
import { findUserByEmail, setPasswordHash } from './store';

export interface SignupRequest {
  email: string;
  password: string;
  workspaceName?: string;
  clientAddress: string;
}

export type SignupOutcome =
  | { ok: true; workspaceId: string; userId: string; session: OpenedSession }
  | { ok: false; refused: 'invalid_fields'; problems: FieldProblem[] }
  | { ok: false; refused: 'email_taken' }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

const UNIQUE_VIOLATION = '23505';

/**
 * Signs a new operator up: the workspace and its owner are created together by the same use case
 * as the CLI's `workspace create` (with the signup credit of each environment), the owner gets the
 * password, and a session opens. An address already registered is `email_taken`.
 */
export async function signup(deps: UseCaseDeps, request: SignupRequest): Promise<SignupOutcome> {
  const email = normalizeEmail(request.email);
  const workspaceName = request.workspaceName?.trim() || defaultWorkspaceName(email);
  const problems = [...emailProblems(email), ...passwordProblems(request.password), ...workspaceNameProblems(workspaceName)];
  if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  const limited = await consumeAccessLimits(deps, [{ name: 'portal.signup', value: request.clientAddress }]);
  if (limited) return { ok: false, ...limited };
  if (await findUserByEmail(deps.db, email)) return { ok: false, refused: 'email_taken' };

  const passwordHash = await hashPassword(request.password);
  let owner: { id: string; workspace_id: string };
  try {
    owner = await deps.db.transaction(async (trx) => {
      const created = await createWorkspace(trx, { name: workspaceName, ownerEmail: email });
      await setPasswordHash(trx, created.owner.id, passwordHash, deps.now());
      return created.owner;
    });
  } catch (err) {
    // Two signups for one address at once: the unique email decides, the loser is told it is taken.
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return { ok: false, refused: 'email_taken' };
    throw err;
  }
  const session = await openSession(deps, owner, request.clientAddress);
  return { ok: true, workspaceId: owner.workspace_id, userId: owner.id, session };
}
