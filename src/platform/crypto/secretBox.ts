import crypto from 'node:crypto';

/**
 * Encryption at rest for secrets the service must be able to read back (webhook signing
 * secrets): AES-256-GCM with a random 96-bit nonce.
 *
 * Keys come from SECRETS_KEY: one 32-byte key (64 hex characters, or strict base64 / base64url),
 * or a comma-separated key ring `<new>,<old>,...` whose first key seals and all of them open, so
 * the key can rotate: add the new key in front, run `cli secrets reseal`, then drop the old one.
 *
 * Formats (base64url parts):
 * - `v2.<key id>.<nonce>.<tag>.<ciphertext>`, written now. The key id is derived from the key
 *   (never the key itself), and the caller's `context` (e.g. the line id and secret id) is the
 *   GCM additional data, so a ciphertext moved to another row does not open.
 * - `v1.<nonce>.<tag>.<ciphertext>`, written before key ids: no additional data; opened by
 *   trying each key of the ring.
 */
export interface SecretsKeyRing {
  /** Seals everything new. */
  current: { id: string; key: Buffer };
  /** Every key that may open, by key id (the current one included). */
  keys: ReadonlyMap<string, Buffer>;
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;
const BASE64URL_KEY = /^[A-Za-z0-9_-]{43}$/;

/**
 * One key: exactly 64 hex characters, or 32 bytes in canonical base64 (44 characters with `=`) or base64url (43).
 * `setting` names the setting in the refusal (SECRETS_KEY, TEMPORAL_PAYLOAD_KEY: both are key rings of this format).
 */
export function parseKeyMaterial(raw: string, setting = 'SECRETS_KEY'): Buffer {
  const text = raw.trim();
  if (HEX_KEY.test(text)) return Buffer.from(text, 'hex');
  for (const [pattern, encoding] of [
    [BASE64_KEY, 'base64'],
    [BASE64URL_KEY, 'base64url'],
  ] as const) {
    if (!pattern.test(text)) continue;
    const key = Buffer.from(text, encoding);
    // Canonical only: the last character may not carry bits the decoder drops.
    if (key.length === 32 && key.toString(encoding) === text) return key;
  }
  throw new Error(`${setting} must be 32 bytes, as 64 hex characters or canonical base64 (44 characters) / base64url (43)`);
}

/** The key's public name in sealed values: derived one-way, so it says nothing about the key. */
export function keyIdOf(key: Buffer): string {
  return crypto.createHmac('sha256', key).update('switchboard secrets key id').digest().subarray(0, 8).toString('base64url');
}

export function parseSecretsKey(raw: string): SecretsKeyRing {
  return parseKeyRing(raw, 'SECRETS_KEY');
}

/** A comma-separated key ring `<new>,<old>,...` read from `setting`: the first key is current, every key opens. */
export function parseKeyRing(raw: string, setting: string): SecretsKeyRing {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => part === '')) throw new Error(`${setting} has an empty entry in its comma-separated key ring`);
  const keys = new Map<string, Buffer>();
  for (const part of parts) {
    const key = parseKeyMaterial(part, setting);
    keys.set(keyIdOf(key), key);
  }
  const first = parseKeyMaterial(parts[0], setting);
  return { current: { id: keyIdOf(first), key: first }, keys };
}

export function generateSecretsKey(): string {
  return crypto.randomBytes(32).toString('hex');
}

export function seal(ring: SecretsKeyRing, plaintext: string, context: string): string {
  const nonce = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', ring.current.key, nonce);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v2',
    ring.current.id,
    nonce.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

/** The key id a value was sealed with; null for the `v1` format, which has none. */
export function sealedKeyId(sealed: string): string | null {
  const [version, keyId] = sealed.split('.');
  return version === 'v2' && keyId ? keyId : null;
}

export function open(ring: SecretsKeyRing, sealed: string, context: string): string {
  const parts = sealed.split('.');
  if (parts[0] === 'v2' && parts.length === 5) {
    const [, keyId, nonce, tag, ciphertext] = parts;
    const key = ring.keys.get(keyId);
    if (!key) throw new Error(`sealed with key ${keyId}, which is not in SECRETS_KEY`);
    return decrypt(key, nonce, tag, ciphertext, context);
  }
  if (parts[0] === 'v1' && parts.length === 4) {
    const [, nonce, tag, ciphertext] = parts;
    for (const key of ring.keys.values()) {
      try {
        return decrypt(key, nonce, tag, ciphertext, null);
      } catch {
        // another key of the ring may have sealed it
      }
    }
    throw new Error('no key in SECRETS_KEY opens this v1 sealed secret');
  }
  throw new Error('unrecognised sealed secret');
}

function decrypt(key: Buffer, nonce: string, tag: string, ciphertext: string, context: string | null): string {
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'), { authTagLength: 16 });
  if (context !== null) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
