import {
  DEFAULT_TOLERANCE_SECONDS,
  verifySignature,
  WEBHOOK_HEADERS,
  type VerifyFailure,
  type VerifyResult,
} from '../../src/domain/webhooks/signature';
import { MemoryDeliveryIdStore, type DeliveryIdStore } from './replayCache';

/** Verification of one delivery: its signature against the line's secrets, its delivery id against replays, its body. */

/** Request headers: Node's `req.headers` (any case of names), a plain record, or a fetch `Headers`. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

/** The parsed JSON body of a delivery (always an object). */
export type WebhookBody = Record<string, unknown>;

/**
 * Why a delivery was refused: the signature module's reasons, plus
 * - `no_secrets`: no non-empty secret was given to verify with,
 * - `duplicate_delivery`: the delivery id was already accepted (a replay),
 * - `malformed_body`: the signature is good but the body is not a JSON object.
 */
export type WebhookFailure = VerifyFailure | 'no_secrets' | 'duplicate_delivery' | 'malformed_body';

export type VerifyWebhookResult =
  | {
      ok: true;
      deliveryId: string;
      /** The body's `event_id`, when it is a string: dedupe processing on this, not on the delivery id. */
      eventId?: string;
      /** The body's `line_id`, when it is a string. */
      lineId?: string;
      /** `x-service-delivery-attempt`, when present and a positive integer. */
      attempt?: number;
      body: WebhookBody;
    }
  | { ok: false; reason: WebhookFailure };

/** Used by {@link verifyWebhook} when no `deliveryIds` store is passed: shared by the whole process. */
const defaultDeliveryIds = new MemoryDeliveryIdStore();

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * Records `id` if new. With a synchronous store nothing is awaited between the check and the
 * record, so concurrent requests in one process cannot both pass.
 */
async function claimDeliveryId(store: DeliveryIdStore, id: string, now: Date): Promise<boolean> {
  if (store.claim) return store.claim(id, now);
  const seen = store.seen(id, now);
  if (isPromise(seen) ? await seen : seen) return false;
  await store.remember(id, now);
  return true;
}

/** The body parsed as a JSON object; undefined when it is not one. */
export function parseObject(rawBody: string | Buffer): WebhookBody | undefined {
  try {
    const parsed: unknown = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as WebhookBody) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies one delivery.
 *
 * 1. The signature is checked against each secret in `secrets` (the line's current secret
 *    first, then the staged one during a rotation); it is accepted if any secret verifies it.
 *    Empty secrets are ignored (an empty HMAC key would let anyone sign). If none verifies, the
 *    reason is the current secret's, except that `stale_timestamp` is reported when some
 *    secret matched the signature but the timestamp is out of tolerance.
 * 2. The delivery id is claimed in `deliveryIds`: one already accepted is `duplicate_delivery`.
 *    Without a store, a process-wide {@link MemoryDeliveryIdStore} is used.
 * 3. Only then is the body parsed; a body that is not a JSON object is `malformed_body`.
 *
 * Event-level dedupe (the same `event_id` in a retry, under a new delivery id) is the caller's:
 * see {@link EventDeduper}, or use {@link nodeWebhookHandler} / {@link koaWebhookMiddleware}.
 *
 * @param input.rawBody the body exactly as received
 * @param input.toleranceSeconds allowed clock difference, default 300 (the spec's maximum)
 * @param input.now the receiver's clock, default `new Date()`
 */
export async function verifyWebhook(input: {
  rawBody: string | Buffer;
  headers: WebhookHeaders;
  secrets: readonly string[];
  toleranceSeconds?: number;
  now?: Date;
  deliveryIds?: DeliveryIdStore;
}): Promise<VerifyWebhookResult> {
  const now = input.now ?? new Date();
  const secrets = input.secrets.filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) return { ok: false, reason: 'no_secrets' };

  const failures: VerifyFailure[] = [];
  for (const secret of secrets) {
    const result: VerifyResult = verifySignature({
      secret,
      headers: input.headers,
      rawBody: input.rawBody,
      toleranceSeconds: input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
      now,
    });
    if (result.valid) break;
    failures.push(result.reason);
  }
  if (failures.length === secrets.length) {
    return { ok: false, reason: failures.includes('stale_timestamp') ? 'stale_timestamp' : failures[0] };
  }

  // verifySignature passed, so the delivery id header is present.
  const deliveryId = headerValue(input.headers, WEBHOOK_HEADERS.deliveryId) as string;
  if (!(await claimDeliveryId(input.deliveryIds ?? defaultDeliveryIds, deliveryId, now))) {
    return { ok: false, reason: 'duplicate_delivery' };
  }

  const body = parseObject(input.rawBody);
  if (!body) return { ok: false, reason: 'malformed_body' };

  const attemptRaw = headerValue(input.headers, WEBHOOK_HEADERS.attempt);
  const attempt = attemptRaw !== undefined && /^[1-9][0-9]{0,8}$/.test(attemptRaw) ? Number(attemptRaw) : undefined;
  return {
    ok: true,
    deliveryId,
    eventId: typeof body.event_id === 'string' ? body.event_id : undefined,
    lineId: typeof body.line_id === 'string' ? body.line_id : undefined,
    attempt,
    body,
  };
}
