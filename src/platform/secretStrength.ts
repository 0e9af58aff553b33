import { parseKeyRing } from './crypto/secretBox';

/*
 * How strong a secret setting is (security review C1, M9): the rules the startup check
 * (./startupCheck.ts) holds every secret and key ring to.
 */

/**
 * Values known from documentation, examples, old defaults and tutorials: refused whatever their
 * length (compared case-insensitively). Placeholders are caught by `PLACEHOLDER_WORDS` too.
 */
export const KNOWN_WEAK_SECRETS: readonly string[] = [
  'dev-carrier-secret',
  'simulator',
  'secret',
  'changeme',
  'change-me',
  'password',
  'test',
  'dev',
  '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  'deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeef',
  'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
];
const PLACEHOLDER_WORDS = [
  'changeme',
  'change-me',
  'change_me',
  'replaceme',
  'replace-me',
  'replace_me',
  'placeholder',
  'example',
  'your-secret',
  'your_secret',
];

export const MIN_SECRET_BYTES = 32;
/** Fewer distinct characters than this is a pattern, not key material (e.g. `a` repeated 64 times). */
const MIN_DISTINCT_CHARACTERS = 8;

/**
 * Bytes of key material a secret carries: hex counts half its length, base64 three quarters,
 * anything else its UTF-8 length.
 */
export function keyMaterialBytes(value: string): number {
  if (/^(?:[0-9a-fA-F]{2})+$/.test(value)) return value.length / 2;
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return Math.floor((value.replace(/=+$/, '').length * 3) / 4);
  return Buffer.byteLength(value, 'utf8');
}

/** Why a secret value is weak, or null when it is fine. */
export function secretWeakness(value: string): string | null {
  const lower = value.toLowerCase();
  if (KNOWN_WEAK_SECRETS.some((known) => known.toLowerCase() === lower)) return 'is a known (documented or default) value';
  if (PLACEHOLDER_WORDS.some((word) => lower.includes(word))) return 'looks like a placeholder';
  const bytes = keyMaterialBytes(value);
  if (bytes < MIN_SECRET_BYTES)
    return `carries ${bytes} bytes of key material; at least ${MIN_SECRET_BYTES} random bytes are required (e.g. \`openssl rand -hex 32\`)`;
  if (new Set(value).size < MIN_DISTINCT_CHARACTERS) return 'is a repeated pattern, not random key material';
  return null;
}

/** Why a key ring setting (SECRETS_KEY's format) is refused, or null: each key must be 32 random bytes. */
export function keyRingProblem(setting: string, value: string): string | null {
  let ring: ReturnType<typeof parseKeyRing>;
  try {
    ring = parseKeyRing(value, setting);
  } catch (err) {
    return (err as Error).message.replace(new RegExp(`^${setting} `), '');
  }
  for (const key of ring.keys.values()) {
    const hex = key.toString('hex');
    if (KNOWN_WEAK_SECRETS.includes(hex) || new Set(key).size < MIN_DISTINCT_CHARACTERS)
      return 'holds a known or patterned key, not 32 random bytes (generate one with `openssl rand -hex 32`)';
  }
  return null;
}
