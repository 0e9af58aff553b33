import crypto from 'node:crypto';

/**
 * The one signing module of outbound webhooks, used by the sender (activities) and by the
 * receiver helper customers use (sdk/webhooks/). Scheme, as the spec and the public
 * client fix it: HMAC-SHA256 keyed by the line's secret as UTF-8 text, over
 * `<timestamp>.<delivery_id>.<raw body>`, sent as `v1=<lowercase hex>`.
 */
export const WEBHOOK_HEADERS = {
  timestamp: 'x-service-timestamp',
  deliveryId: 'x-service-delivery-id',
  signature: 'x-service-signature',
  attempt: 'x-service-delivery-attempt',
} as const;

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyFailure =
  | 'missing_timestamp'
  | 'missing_delivery_id'
  | 'missing_signature'
  | 'malformed_timestamp'
  | 'malformed_signature'
  | 'unknown_version'
  | 'signature_mismatch'
  | 'stale_timestamp';

export type VerifyResult = { valid: true } | { valid: false; reason: VerifyFailure };

export function computeSignature(secret: string, timestamp: number, deliveryId: string, rawBody: string | Buffer): string {
  const hmac = crypto.createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.${deliveryId}.`);
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return `v1=${hmac.digest('hex')}`;
}

/** Headers for one delivery attempt; the timestamp is whole Unix seconds, rendered plainly. */
export function signatureHeaders(input: {
  secret: string;
  deliveryId: string;
  rawBody: string | Buffer;
  attempt: number;
  now: Date;
}): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.deliveryId]: input.deliveryId,
    [WEBHOOK_HEADERS.signature]: computeSignature(input.secret, timestamp, input.deliveryId, input.rawBody),
    [WEBHOOK_HEADERS.attempt]: String(input.attempt),
  };
}

type HeaderSource = Record<string, string | string[] | undefined> | Headers;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies one delivery against one secret. Checks run in a fixed order (presence, format,
 * signature, then freshness), and the signature comparison is constant-time.
 */
export function verifySignature(input: {
  secret: string;
  headers: HeaderSource;
  rawBody: string | Buffer;
  toleranceSeconds?: number;
  now?: Date;
}): VerifyResult {
  const timestampRaw = header(input.headers, WEBHOOK_HEADERS.timestamp);
  const deliveryId = header(input.headers, WEBHOOK_HEADERS.deliveryId);
  const signature = header(input.headers, WEBHOOK_HEADERS.signature);
  if (!timestampRaw) return { valid: false, reason: 'missing_timestamp' };
  if (!deliveryId) return { valid: false, reason: 'missing_delivery_id' };
  if (!signature) return { valid: false, reason: 'missing_signature' };
  if (!/^[0-9]+$/.test(timestampRaw) || Number(timestampRaw) <= 0 || !Number.isSafeInteger(Number(timestampRaw))) {
    return { valid: false, reason: 'malformed_timestamp' };
  }
  const timestamp = Number(timestampRaw);
  const separator = signature.indexOf('=');
  if (separator < 0 || separator === signature.length - 1) return { valid: false, reason: 'malformed_signature' };
  if (signature.slice(0, separator) !== 'v1') return { valid: false, reason: 'unknown_version' };
  const expected = Buffer.from(computeSignature(input.secret, timestamp, deliveryId, input.rawBody), 'utf8');
  const presented = Buffer.from(signature, 'utf8');
  if (expected.length !== presented.length || !crypto.timingSafeEqual(expected, presented))
    return { valid: false, reason: 'signature_mismatch' };
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return { valid: false, reason: 'stale_timestamp' };
  return { valid: true };
}
