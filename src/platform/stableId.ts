import crypto from 'node:crypto';

/**
 * A UUID derived from `parts` (SHA-256, shaped as a version-5-style UUID), for records that a
 * retried activity or a repeated carrier event must write once: the same parts give the same id.
 */
export function stableUuid(...parts: Array<string | number>): string {
  const digest = crypto.createHash('sha256').update(parts.join(':')).digest('hex');
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-a${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
}
