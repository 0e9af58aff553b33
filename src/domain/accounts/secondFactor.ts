import crypto from 'node:crypto';
import type { UseCaseDeps } from '../useCaseDeps';
import { open } from '../../platform/crypto/secretBox';
import { totpStepOf } from '../../platform/crypto/totp';
import { sealingKeyOf } from '../lines/secrets';
import { openSession, type OpenedSession } from './session';
import { admitSignInAttempt } from './signInThrottle';
import {
  completeChallenge,
  countChallengeFailure,
  findAccountUser,
  findOpenChallenge,
  findTotp,
  insertChallenge,
  sessionTokenHash,
  useRecoveryCode,
  useTotpStep,
} from './store';
import {
  CHALLENGE_LIFETIME_MS,
  CHALLENGE_MAX_FAILURES,
  normalizeRecoveryCode,
  normalizeTotpCode,
  recoveryCodeHash,
  totpSealingContext,
} from './twoFactorRules';

/** A password checked, a second factor awaited: the token goes into a cookie once and is stored only as its hash. */
export interface OpenedChallenge {
  token: string;
  expiresAt: Date;
}

export async function openChallenge(deps: UseCaseDeps, userId: string, clientAddress: string): Promise<OpenedChallenge> {
  const token = crypto.randomBytes(32).toString('base64url');
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + CHALLENGE_LIFETIME_MS);
  await insertChallenge(deps.db, { tokenHash: sessionTokenHash(token), userId, clientAddress, createdAt: now, expiresAt });
  return { token, expiresAt };
}

/** Why a code was refused, for the log (the visitor is told only `invalid_code`). */
export type CodeRefusal = 'wrong_code' | 'replayed_code' | 'used_recovery_code';

export type SecondFactorOutcome =
  | { ok: true; userId: string; session: OpenedSession; usedRecoveryCode: boolean }
  | { ok: false; refused: 'challenge_expired' }
  | { ok: false; refused: 'invalid_code'; reason: CodeRefusal; userId: string; triesLeft: number }
  | { ok: false; refused: 'rate_limited'; retryAfterSeconds: number };

/**
 * The second step of a sign-in: a TOTP code (once per time step: a code just used, even by its
 * own user, is refused) or an unused recovery code (spent now). A wrong code counts as a failed
 * sign-in of the account from this address (the password's throttle) and against the challenge,
 * which dies after five: the password is asked again.
 */
export async function completeSecondFactor(
  deps: UseCaseDeps,
  request: { challengeToken: string; code: string; clientAddress: string },
): Promise<SecondFactorOutcome> {
  const challenge = await findOpenChallenge(deps.db, sessionTokenHash(request.challengeToken), deps.now(), CHALLENGE_MAX_FAILURES);
  const user = challenge && (await findAccountUser(deps.db, challenge.user_id));
  const totp = user && (await findTotp(deps.db, user.id));
  if (!challenge || !user || !totp?.totp_secret_sealed) return { ok: false, refused: 'challenge_expired' };
  const attempt = await admitSignInAttempt(deps, { account: user.email, clientAddress: request.clientAddress });
  if (!('admitted' in attempt)) return { ok: false, ...attempt };

  const now = deps.now();
  const refusal = await checkCode(deps, user.id, totp.totp_secret_sealed, request.code, now);
  if (refusal) {
    await countChallengeFailure(deps.db, challenge.id);
    return {
      ok: false,
      refused: 'invalid_code',
      reason: refusal.reason,
      userId: user.id,
      triesLeft: CHALLENGE_MAX_FAILURES - challenge.failures - 1,
    };
  }
  if (!(await completeChallenge(deps.db, challenge.id, now))) return { ok: false, refused: 'challenge_expired' };
  await attempt.admitted.succeeded();
  return {
    ok: true,
    userId: user.id,
    session: await openSession(deps, user, request.clientAddress),
    usedRecoveryCode: normalizeRecoveryCode(request.code) !== null,
  };
}

async function checkCode(
  deps: UseCaseDeps,
  userId: string,
  sealedSecret: string,
  typed: string,
  now: Date,
): Promise<{ reason: CodeRefusal } | undefined> {
  const recoveryCode = normalizeRecoveryCode(typed);
  if (recoveryCode) {
    const spent = await useRecoveryCode(deps.db, userId, recoveryCodeHash(recoveryCode), now);
    return spent ? undefined : { reason: 'used_recovery_code' };
  }
  const secret = open(sealingKeyOf(deps.config), sealedSecret, totpSealingContext(userId));
  const step = await totpStepOf(secret, normalizeTotpCode(typed), now);
  if (step === null) return { reason: 'wrong_code' };
  return (await useTotpStep(deps.db, userId, step)) ? undefined : { reason: 'replayed_code' };
}
