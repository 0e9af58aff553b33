import crypto from 'node:crypto';

/**
 * Whether a presented bearer secret is the expected one, in constant time whatever their lengths
 * (both are hashed to 32 bytes first, so neither the content nor the length leaks by timing).
 */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();
  return crypto.timingSafeEqual(digest(presented), digest(expected));
}
