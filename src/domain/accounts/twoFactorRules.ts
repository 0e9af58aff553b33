import crypto from 'node:crypto';

/** Two-factor sign-in rules (issue 27): recovery codes, challenge lifetime and tries. Pure. */

export const RECOVERY_CODE_COUNT = 10;
/** A password checked, a second factor awaited: how long, and how many wrong codes before the password is asked again. */
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
export const CHALLENGE_MAX_FAILURES = 5;
/** The name authenticator apps show beside the account. */
export const TOTP_ISSUER = 'Switchboard';

// Crockford's base32 without the letters people misread (I, L, O, U): 16 characters carry 80 bits.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A new recovery code, `xxxx-xxxx-xxxx-xxxx`: 80 random bits, so its SHA-256 alone is safe to keep. */
export function newRecoveryCode(): string {
  const bytes = crypto.randomBytes(10);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let text = '';
  for (let i = 0; i < 16; i += 1) {
    text = ALPHABET[Number(bits & 31n)] + text;
    bits >>= 5n;
  }
  return text.match(/.{4}/g)!.join('-');
}

/** A code as typed (any case, spaces or dashes) in its canonical form, or null when it cannot be a recovery code. */
export function normalizeRecoveryCode(typed: string): string | null {
  const compact = typed.toLowerCase().replace(/[\s-]/g, '');
  if (!/^[0-9a-hjkmnp-tv-z]{16}$/.test(compact)) return null;
  return compact.match(/.{4}/g)!.join('-');
}

export function recoveryCodeHash(code: string): string {
  return crypto.createHash('sha256').update(code).digest('hex');
}

/** A typed TOTP code without the spaces apps show in the middle ("123 456"). */
export function normalizeTotpCode(typed: string): string {
  return typed.replace(/\s/g, '');
}

/** What a sealed TOTP secret is bound to: one moved to another user's row does not open. */
export function totpSealingContext(userId: string): string {
  return `users.totp:${userId}`;
}
