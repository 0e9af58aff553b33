import crypto from 'node:crypto';

/**
 * The one signing module of carrier callbacks (carrier → Switchboard: `POST /carrier/events` and
 * `POST /carrier/messages`), used by the carrier simulator to sign and by the API to verify. The
 * scheme is the one real carriers use (Telnyx, Stripe-style webhooks), so a Twilio or Telnyx
 * translator can sit behind it by re-signing what it verified with its carrier's own scheme:
 *
 *   X-Carrier-Timestamp: <unix seconds when this attempt was signed>
 *   X-Carrier-Signature: v1=<lowercase hex HMAC-SHA256(CARRIER_WEBHOOK_SECRET, "<timestamp>.<raw body>")>
 *
 * keyed by the secret as UTF-8 text. Every delivery attempt is signed afresh (a retry carries a
 * new timestamp and so a new signature); the receiver refuses timestamps more than 5 minutes
 * from its clock and any signature it has already accepted (replay).
 */
export const CARRIER_CALLBACK_HEADERS = {
  timestamp: 'x-carrier-timestamp',
  signature: 'x-carrier-signature',
} as const;

export const CARRIER_CALLBACK_TOLERANCE_SECONDS = 300;

export type CarrierCallbackFailure =
  'missing_timestamp' | 'missing_signature' | 'malformed_timestamp' | 'malformed_signature' | 'signature_mismatch' | 'stale_timestamp';

export type CarrierCallbackVerdict =
  { valid: true; timestamp: number; signature: string } | { valid: false; reason: CarrierCallbackFailure };

export function computeCarrierSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const hmac = crypto.createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`);
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return `v1=${hmac.digest('hex')}`;
}

/** The two headers of one delivery attempt, signed at `now`. */
export function carrierCallbackHeaders(input: { secret: string; rawBody: string | Buffer; now?: Date }): Record<string, string> {
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
  return {
    [CARRIER_CALLBACK_HEADERS.timestamp]: String(timestamp),
    [CARRIER_CALLBACK_HEADERS.signature]: computeCarrierSignature(input.secret, timestamp, input.rawBody),
  };
}

type HeaderSource = Record<string, string | string[] | undefined> | Headers | ((name: string) => string | undefined);

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers === 'function') return headers(name) || undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies one callback: presence, format, the signature (constant-time), then freshness. Replay
 * protection is the receiver's (it must remember accepted signatures for the tolerance window).
 */
export function verifyCarrierCallback(input: {
  secret: string;
  headers: HeaderSource;
  rawBody: string | Buffer;
  now?: Date;
  toleranceSeconds?: number;
}): CarrierCallbackVerdict {
  const timestampRaw = header(input.headers, CARRIER_CALLBACK_HEADERS.timestamp);
  const signature = header(input.headers, CARRIER_CALLBACK_HEADERS.signature);
  if (!timestampRaw) return { valid: false, reason: 'missing_timestamp' };
  if (!signature) return { valid: false, reason: 'missing_signature' };
  if (!/^[0-9]{1,15}$/.test(timestampRaw) || Number(timestampRaw) <= 0) return { valid: false, reason: 'malformed_timestamp' };
  if (!/^v1=[0-9a-f]{64}$/.test(signature)) return { valid: false, reason: 'malformed_signature' };
  const timestamp = Number(timestampRaw);
  const expected = Buffer.from(computeCarrierSignature(input.secret, timestamp, input.rawBody), 'utf8');
  const presented = Buffer.from(signature, 'utf8');
  if (expected.length !== presented.length || !crypto.timingSafeEqual(expected, presented))
    return { valid: false, reason: 'signature_mismatch' };
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > (input.toleranceSeconds ?? CARRIER_CALLBACK_TOLERANCE_SECONDS))
    return { valid: false, reason: 'stale_timestamp' };
  return { valid: true, timestamp, signature };
}
