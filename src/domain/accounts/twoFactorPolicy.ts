import type { UseCaseDeps } from '../useCaseDeps';
import { recordComplianceEvent } from '../compliance/events';
import { verifyPassword } from '../../platform/crypto/password';
import { admitSignInAttempt } from './signInThrottle';
import { PASSWORD_MAX_LENGTH } from './rules';
import {
  disableTotp,
  findAccountUser,
  replaceRecoveryCodes,
  setWorkspaceRequiresTwoFactor,
  twoFactorStanding,
  type AccountUser,
} from './store';
import { newRecoveryCode, RECOVERY_CODE_COUNT, recoveryCodeHash } from './twoFactorRules';

export type RequirementChange = { ok: true } | { ok: false; refused: 'not_owner' | 'two_factor_not_enabled' };

/**
 * An owner requires (or stops requiring) a second factor of every member of the workspace. Members
 * without one are then sent to enrol before any other page (api/portal/twoFactorGate.ts). The owner
 * turning it on must have one: the switch may not send its own author away.
 */
export async function setTwoFactorRequirement(
  deps: UseCaseDeps,
  request: { userId: string; required: boolean },
): Promise<RequirementChange> {
  const user = await findAccountUser(deps.db, request.userId);
  if (!user || user.role !== 'owner') return { ok: false, refused: 'not_owner' };
  if (request.required && !(await twoFactorStanding(deps.db, user.id)).enabled) return { ok: false, refused: 'two_factor_not_enabled' };
  const at = deps.now();
  await deps.db.transaction(async (trx) => {
    if (!(await setWorkspaceRequiresTwoFactor(trx, user.workspace_id, request.required))) return;
    // A workspace-wide sign-in rule: the compliance log of each environment names the owner who changed it (L21).
    for (const environment of ['test', 'live'] as const)
      await recordComplianceEvent(trx, {
        workspaceId: user.workspace_id,
        environment,
        eventType: 'settings_changed',
        actorKeyId: null,
        metadata: { changed: { require_two_factor: { from: !request.required, to: request.required } }, via: 'portal', user_id: user.id },
        at,
      });
  });
  return { ok: true };
}

export type TwoFactorRemoval =
  | { ok: true }
  | { ok: false; refused: 'required_by_workspace' | 'invalid_credentials' }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

/**
 * Turns a user's second factor off (their TOTP secret and recovery codes are deleted) after the
 * password checks out, counted as a sign-in attempt; refused while the workspace requires one.
 */
export async function removeTwoFactor(
  deps: UseCaseDeps,
  request: { userId: string; password: string; clientAddress: string },
): Promise<TwoFactorRemoval> {
  const user = await findAccountUser(deps.db, request.userId);
  if (!user) return { ok: false, refused: 'invalid_credentials' };
  if ((await twoFactorStanding(deps.db, user.id)).required) return { ok: false, refused: 'required_by_workspace' };
  const refusal = await passwordRefusal(deps, user, request);
  if (refusal) return { ok: false, ...refusal };
  await deps.db.transaction((trx) => disableTotp(trx, user.id));
  return { ok: true };
}

type PasswordRefusal = { refused: 'invalid_credentials' } | { refused: 'rate_limited'; retryAfterSeconds: number };

/**
 * A signed-in person's password asked again before a change to their second factor: counted as a sign-in attempt
 * (so a stolen session cannot guess it faster than the login form allows); undefined when it checks out.
 */
async function passwordRefusal(
  deps: UseCaseDeps,
  user: AccountUser,
  request: { password: string; clientAddress: string },
): Promise<PasswordRefusal | undefined> {
  const attempt = await admitSignInAttempt(deps, { account: user.email, clientAddress: request.clientAddress });
  if (!('admitted' in attempt)) return attempt;
  if (request.password.length > PASSWORD_MAX_LENGTH || !user.password_hash || !(await verifyPassword(request.password, user.password_hash)))
    return { refused: 'invalid_credentials' };
  await attempt.admitted.passed();
  return undefined;
}

export type RecoveryCodesRenewal =
  | { ok: true; recoveryCodes: string[] }
  | { ok: false; refused: 'two_factor_not_enabled' | 'invalid_credentials' }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

/**
 * A new set of recovery codes once the password checks out (as GitHub and Google ask): the old ones, used or not,
 * stop working at once; the new ones are returned once and kept as SHA-256 only.
 */
export async function renewRecoveryCodes(
  deps: UseCaseDeps,
  request: { userId: string; password: string; clientAddress: string },
): Promise<RecoveryCodesRenewal> {
  const user = await findAccountUser(deps.db, request.userId);
  if (!user) return { ok: false, refused: 'invalid_credentials' };
  if (!(await twoFactorStanding(deps.db, user.id)).enabled) return { ok: false, refused: 'two_factor_not_enabled' };
  const refusal = await passwordRefusal(deps, user, request);
  if (refusal) return { ok: false, ...refusal };
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await deps.db.transaction((trx) => replaceRecoveryCodes(trx, user.id, recoveryCodes.map(recoveryCodeHash), deps.now()));
  return { ok: true, recoveryCodes };
}
