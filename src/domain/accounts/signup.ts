import { hashPassword } from '../../platform/crypto/password';
import { createWorkspace } from '../workspaces/service';
import { consumeAccessLimits } from './accessLimits';
import { issueAccountToken } from './accountTokens';
import { sendAccountMail, verificationMail, type MailingDeps } from './mail';
import { defaultWorkspaceName, emailProblems, normalizeEmail, passwordProblems, workspaceNameProblems, type FieldProblem } from './rules';
import { findUserByEmail, setPasswordHash } from './store';

export interface SignupRequest {
  email: string;
  password: string;
  workspaceName?: string;
  clientAddress: string;
}

export type SignupOutcome =
  | { ok: true; workspaceId: string; userId: string; email: string; awaitingApproval: boolean; mailed: boolean }
  | { ok: false; refused: 'signup_closed' }
  | { ok: false; refused: 'invalid_fields'; problems: FieldProblem[] }
  | { ok: false; refused: 'email_taken' }
  | { ok: false; refused: 'rate_limited' | 'rate_limited_global'; retryAfterSeconds: number };

const UNIQUE_VIOLATION = '23505';

/**
 * Signs a new operator up (issue 27, H5), as SIGNUP_MODE allows: never under `invite`; under
 * `open` and `approval` the workspace and its owner are created by the same use case as the CLI's
 * `workspace create`, with the owner's address unverified (and, under `approval`, the workspace
 * awaiting an operator), and a verification link is mailed. No session opens: the workspace is
 * usable only once the link is followed (verifyEmail.ts) and, under `approval`, an operator
 * approved it. Limits: per client address, then the deployment's hourly signups.
 */
export async function signup(deps: MailingDeps, request: SignupRequest): Promise<SignupOutcome> {
  const mode = deps.config.signupMode;
  if (mode !== 'open' && mode !== 'approval') return { ok: false, refused: 'signup_closed' };
  const email = normalizeEmail(request.email);
  const workspaceName = request.workspaceName?.trim() || defaultWorkspaceName(email);
  const problems = [...emailProblems(email), ...passwordProblems(request.password), ...workspaceNameProblems(workspaceName)];
  if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  const limited = await consumeAccessLimits(deps, [{ name: 'portal.signup', value: request.clientAddress }]);
  if (limited) return { ok: false, ...limited };
  if (await findUserByEmail(deps.db, email)) return { ok: false, refused: 'email_taken' };
  const global = await consumeAccessLimits(deps, [{ name: 'portal.signup_global', value: '', limit: deps.config.signupRatePerHour }]);
  if (global) return { ok: false, refused: 'rate_limited_global', retryAfterSeconds: global.retryAfterSeconds };

  const passwordHash = await hashPassword(request.password, deps.config.passwordScryptN);
  const awaitingApproval = mode === 'approval';
  let created: { ownerId: string; workspaceId: string; token: string };
  try {
    created = await deps.db.transaction(async (trx) => {
      const { owner } = await createWorkspace(trx, { name: workspaceName, ownerEmail: email, ownerUnverified: true, awaitingApproval });
      await setPasswordHash(trx, owner.id, passwordHash, deps.now());
      const { token } = await issueAccountToken(trx, { userId: owner.id, purpose: 'email_verification', now: deps.now() });
      return { ownerId: owner.id, workspaceId: owner.workspace_id, token };
    });
  } catch (err) {
    // Two signups for one address at once: the unique email decides, the loser is told it is taken.
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return { ok: false, refused: 'email_taken' };
    throw err;
  }
  // Unsent, the account stands: the page offers to send the link again (resendVerification.ts).
  const mailed = await sendAccountMail(deps, verificationMail(deps.config.publicBaseUrl, email, created.token));
  return { ok: true, workspaceId: created.workspaceId, userId: created.ownerId, email, awaitingApproval, mailed };
}
