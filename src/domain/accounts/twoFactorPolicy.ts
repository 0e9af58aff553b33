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

/** A change to one's own second factor: the password is asked again. */
export interface PasswordAgain {
  userId: string;
  password: string;
  clientAddress: string;
}

/** Why such a change was refused: its own reason, a wrong password, or too many attempts. */
type Refused<Reason extends string> =
  { ok: false; refused: Reason | 'invalid_credentials' } | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

export type TwoFactorRemoval = { ok: true } | Refused<'required_by_workspace'>;

/**
 * Turns a user's second factor off (their TOTP secret and recovery codes are deleted) after the
 * password checks out, counted as a sign-in attempt; refused while the workspace requires one.
 */
export async function removeTwoFactor(deps: UseCaseDeps, request: PasswordAgain): Promise<TwoFactorRemoval> {
  const checked = await passwordChecked(deps, request, (standing) => (standing.required ? 'required_by_workspace' : undefined));
  if (!checked.ok) return checked;
  await deps.db.transaction((trx) => disableTotp(trx, checked.user.id));
  return { ok: true };
}

/**
 * A signed-in person's password asked again before a change to their second factor, once `refusalOf` (their
 * standing) has no objection: counted as a sign-in attempt, so a stolen session cannot guess it faster than the login
 * form allows.
 */
async function passwordChecked<Refusal extends string>(
  deps: UseCaseDeps,
  request: PasswordAgain,
  refusalOf: (standing: { enabled: boolean; required: boolean }) => Refusal | undefined,
): Promise<{ ok: true; user: AccountUser } | Refused<Refusal>> {
  const user = await findAccountUser(deps.db, request.userId);
  if (!user) return { ok: false, refused: 'invalid_credentials' };
  const refused = refusalOf(await twoFactorStanding(deps.db, user.id));
  if (refused) return { ok: false, refused };
  const attempt = await admitSignInAttempt(deps, { account: user.email, clientAddress: request.clientAddress });
  if (!('admitted' in attempt)) return { ok: false, ...attempt };
  if (request.password.length > PASSWORD_MAX_LENGTH || !user.password_hash || !(await verifyPassword(request.password, user.password_hash)))
    return { ok: false, refused: 'invalid_credentials' };
  await attempt.admitted.passed();
  return { ok: true, user };
}

export type RecoveryCodesRenewal = { ok: true; recoveryCodes: string[] } | Refused<'two_factor_not_enabled'>;

/**
 * A new set of recovery codes once the password checks out (as GitHub and Google ask): the old ones, used or not,
 * stop working at once; the new ones are returned once and kept as SHA-256 only.
 */
export async function renewRecoveryCodes(deps: UseCaseDeps, request: PasswordAgain): Promise<RecoveryCodesRenewal> {
  const checked = await passwordChecked(deps, request, (standing) => (standing.enabled ? undefined : 'two_factor_not_enabled'));
  if (!checked.ok) return checked;
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await deps.db.transaction((trx) => replaceRecoveryCodes(trx, checked.user.id, recoveryCodes.map(recoveryCodeHash), deps.now()));
  return { ok: true, recoveryCodes };
}
