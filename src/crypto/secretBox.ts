import crypto from 'node:crypto';

/**
 * Encryption at rest for secrets the service must be able to read back (webhook signing
 * secrets): AES-256-GCM with a random 96-bit nonce, key from SECRETS_KEY (32 bytes, hex or
 * base64). Stored as `v1.<nonce>.<tag>.<ciphertext>` in base64url.
 */
export function parseSecretsKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

export function generateSecretsKey(): string {
  return crypto.randomBytes(32).toString('hex');
}

export function seal(key: Buffer, plaintext: string): string {
  const nonce = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', nonce, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export function open(key: Buffer, sealed: string): string {
  const [version, nonce, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !nonce || !tag || ciphertext === undefined) throw new Error('unrecognised sealed secret');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
