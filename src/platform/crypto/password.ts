import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt with N = 2^15, r = 8, p = 1 (32 MiB and about 0.1 s a hash on one core; OWASP's minimum is
 * N = 2^17 at r = 8 for 128 MiB, traded down so a login burst cannot exhaust a 2-core API's memory),
 * a 16-byte random salt per password and a 32-byte key. The stored string names its parameters,
 * so raising them later leaves old hashes verifiable: `scrypt$<N>$<r>$<p>$<salt b64url>$<key b64url>`.
 */
export const PASSWORD_KDF = { N: 2 ** 15, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;

function options(N: number, r: number, p: number): crypto.ScryptOptions {
  return { N, r, p, maxmem: 2 * 128 * N * r };
}

/** `N` is the deployment's (Config.passwordScryptN: PASSWORD_KDF.N but in test harnesses). */
export async function hashPassword(password: string, N: number = PASSWORD_KDF.N): Promise<string> {
  const { r, p, saltBytes, keyBytes } = PASSWORD_KDF;
  const salt = crypto.randomBytes(saltBytes);
  const key = await scrypt(password.normalize('NFC'), salt, keyBytes, options(N, r, p));
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time comparison; a malformed stored string verifies nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scrypt(
    password.normalize('NFC'),
    Buffer.from(salt, 'base64url'),
    expected.length,
    options(Number(n), Number(r), Number(p)),
  );
  return crypto.timingSafeEqual(actual, expected);
}

/**
 * A hash of a password no one has, verified against when the email is unknown so both answers take as long:
 * made with the deployment's N (one per N, made once; it never changes), so it costs what a member's hash costs.
 */
const decoys = new Map<number, Promise<string>>();
export function decoyPasswordHash(N: number = PASSWORD_KDF.N): Promise<string> {
  let decoy = decoys.get(N);
  if (!decoy) decoys.set(N, (decoy = hashPassword(crypto.randomBytes(16).toString('hex'), N)));
  return decoy;
}
