import { generateSecret, generateURI, verify } from 'otplib';

/**
 * TOTP as authenticator apps do it (RFC 6238: SHA-1, 6 digits, 30 s), with otplib. A code is
 * accepted one step either side of now, for clocks that drift; which step it matched is returned so
 * the caller can refuse a step already used (RFC 6238 §5.2: a code is good once).
 */
export const TOTP_PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(input: { issuer: string; account: string; secret: string }): string {
  return generateURI({ issuer: input.issuer, label: input.account, secret: input.secret });
}

/** The time step `code` matches at `now`, or null when it matches none in the window. */
export async function totpStepOf(secret: string, code: string, now: Date): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: TOTP_PERIOD_SECONDS,
  });
  // The TOTP strategy's result names the step; the HOTP one (not used here) has none.
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}
