/**
 * API key wire format: `sk_<env>_<32 base62>` for standard keys and
 * `sk_svc_<env>_<32 base62>` for service keys. The random part carries ~190 bits,
 * so a plain SHA-256 is a sufficient at-rest hash (as Stripe and GitHub do).
 */
import crypto from 'node:crypto';

export type Environment = 'test' | 'live';
export type KeyKind = 'standard' | 'service';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
/** Random characters kept in `key_prefix` (displayed, and used to narrow the lookup). */
const PREFIX_RANDOM_CHARS = 8;
const KEY_PATTERN = /^sk_(svc_)?(test|live)_([0-9A-Za-z]{32})$/;

export interface ParsedKey {
  kind: KeyKind;
  environment: Environment;
  prefix: string;
}

export function keyTypePrefix(kind: KeyKind, environment: Environment): string {
  return kind === 'service' ? `sk_svc_${environment}_` : `sk_${environment}_`;
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniformly distributed.
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function generateKey(kind: KeyKind, environment: Environment): { plaintext: string; prefix: string; hash: string } {
  const plaintext = keyTypePrefix(kind, environment) + randomBase62(RANDOM_LENGTH);
  return { plaintext, prefix: displayPrefix(plaintext), hash: hashKey(plaintext) };
}

function displayPrefix(plaintext: string): string {
  const typeLength = plaintext.startsWith('sk_svc_') ? 'sk_svc_test_'.length : 'sk_test_'.length;
  return plaintext.slice(0, typeLength + PREFIX_RANDOM_CHARS);
}

/** Returns undefined for anything that is not a well-formed key. */
export function parseKey(plaintext: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(plaintext);
  if (!match) return undefined;
  return { kind: match[1] ? 'service' : 'standard', environment: match[2] as Environment, prefix: displayPrefix(plaintext) };
}

/**
 * SHA-256, hex, of a string: on every authenticated request. Node's one-shot `crypto.hash` (20.12 on) costs less than
 * half a `Hash` object's create, update and digest; older Node 20 releases take the object.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

export function hashKey(plaintext: string): string {
  return sha256Hex(plaintext);
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && crypto.timingSafeEqual(left, right);
}
