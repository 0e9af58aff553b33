import type { UseCaseDeps } from '../useCaseDeps';
import { open, seal } from '../../platform/crypto/secretBox';
import { newTotpSecret, totpStepOf, totpUri } from '../../platform/crypto/totp';
import { sealingKeyOf } from '../lines/secrets';
import { enableTotp, findAccountUser, findTotp, replaceRecoveryCodes, revokeOtherSessions, setPendingTotp } from './store';
import {
  newRecoveryCode,
  normalizeTotpCode,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
  TOTP_ISSUER,
  totpSealingContext,
} from './twoFactorRules';

/** A secret waiting for its first code: shown to its user as text and as an otpauth:// URI for apps. */
export interface PendingTotp {
  secret: string;
  uri: string;
}

export type EnrolmentStart = { ok: true; pending: PendingTotp } | { ok: false; refused: 'already_enabled' };

/**
 * Starts (or restarts) TOTP enrolment: a new secret, sealed with SECRETS_KEY, kept as pending. It
 * signs nothing in until `confirmTwoFactor` sees a code made with it.
 */
export async function startTwoFactor(deps: UseCaseDeps, userId: string): Promise<EnrolmentStart> {
  const user = await findAccountUser(deps.db, userId);
  const totp = await findTotp(deps.db, userId);
  if (!user || !totp || totp.totp_secret_sealed) return { ok: false, refused: 'already_enabled' };
  const secret = newTotpSecret();
  await setPendingTotp(deps.db, userId, seal(sealingKeyOf(deps.config), secret, totpSealingContext(userId)));
  return { ok: true, pending: { secret, uri: totpUri({ issuer: TOTP_ISSUER, account: user.email, secret }) } };
}

/** The pending secret again (a wrong confirmation code shows it once more), if there is one. */
export async function pendingTwoFactor(deps: UseCaseDeps, userId: string): Promise<PendingTotp | undefined> {
  const user = await findAccountUser(deps.db, userId);
  const totp = await findTotp(deps.db, userId);
  if (!user || !totp?.totp_pending_sealed) return undefined;
  const secret = open(sealingKeyOf(deps.config), totp.totp_pending_sealed, totpSealingContext(userId));
  return { secret, uri: totpUri({ issuer: TOTP_ISSUER, account: user.email, secret }) };
}

export type EnrolmentConfirmation =
  { ok: true; recoveryCodes: string[]; revokedSessions: number } | { ok: false; refused: 'not_started' | 'invalid_code' };

/**
 * Turns TOTP on once a code from the pending secret checks out: the code's step counts as used, ten
 * recovery codes are made (returned once, kept as SHA-256 only), and the user's other sessions,
 * which never showed a second factor, are signed out.
 */
export async function confirmTwoFactor(
  deps: UseCaseDeps,
  request: { userId: string; sessionId: string; code: string },
): Promise<EnrolmentConfirmation> {
  const totp = await findTotp(deps.db, request.userId);
  const sealed = totp?.totp_pending_sealed;
  if (!sealed || totp.totp_secret_sealed) return { ok: false, refused: 'not_started' };
  const secret = open(sealingKeyOf(deps.config), sealed, totpSealingContext(request.userId));
  const step = await totpStepOf(secret, normalizeTotpCode(request.code), deps.now());
  if (step === null) return { ok: false, refused: 'invalid_code' };
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const now = deps.now();
  return deps.db.transaction(async (trx) => {
    if (!(await enableTotp(trx, request.userId, sealed, step, now))) return { ok: false, refused: 'not_started' } as const;
    await replaceRecoveryCodes(trx, request.userId, recoveryCodes.map(recoveryCodeHash), now);
    const revokedSessions = await revokeOtherSessions(trx, request.userId, request.sessionId, now);
    return { ok: true, recoveryCodes, revokedSessions } as const;
  });
}
