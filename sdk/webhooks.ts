import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import getRawBody from 'raw-body';
import { DEFAULT_TOLERANCE_SECONDS, verifySignature, WEBHOOK_HEADERS, type VerifyFailure, type VerifyResult } from '../src/domain/webhooks/signature';

/**
 * Receiver helper for Switchboard webhooks: what a customer's server runs to accept the
 * deliveries Switchboard POSTs to it.
 *
 * Each delivery carries
 *   - `x-service-timestamp`: Unix seconds when the attempt was signed,
 *   - `x-service-delivery-id`: a UUID, new for every attempt (retries get a new one),
 *   - `x-service-signature`: `v1=<hex HMAC-SHA256 of "<timestamp>.<delivery_id>.<raw body>">`,
 *     keyed by the line's webhook secret (the 64-hex string, used as UTF-8 text),
 *   - `x-service-delivery-attempt`: 1 for the first attempt, 2 for the first retry, ...
 * and a JSON body with `line_id` (whose secret signed it) and `event_id` (the logical event,
 * the same on every retry).
 *
 * A receiver must: reject timestamps more than 5 minutes from its clock; remember accepted
 * delivery ids for at least 5 minutes and reject repeats; process each `event_id` once; answer
 * a bad signature with 401; and, while a line's secret is being rotated, accept both the current
 * and the staged ("next") secret. {@link verifyWebhook} does the first, second and fourth for
 * one delivery; {@link nodeWebhookHandler} and {@link koaWebhookMiddleware} do all of it for an
 * HTTP endpoint.
 *
 * Always verify the raw bytes as received: re-serialising parsed JSON changes them.
 */

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

// ---------------------------------------------------------------------------------------------
// Delivery-id replay cache
// ---------------------------------------------------------------------------------------------

/**
 * Remembers accepted delivery ids, to refuse a replayed delivery. Keep ids at least 5 minutes
 * (the spec's floor) and better 10: a delivery stamped up to 5 minutes in the future stays
 * fresh for 10 minutes from the moment it is accepted.
 *
 * {@link MemoryDeliveryIdStore} works for a single process. A receiver that runs several
 * instances behind a load balancer must share the store, e.g. Redis
 * (`SET webhook:delivery:<id> 1 NX EX 600`) or Postgres
 * (`INSERT INTO webhook_deliveries (id, seen_at) VALUES ($1, now()) ON CONFLICT DO NOTHING`,
 * pruning old rows), ideally through {@link DeliveryIdStore.claim} so the check is atomic
 * across instances.
 */
export interface DeliveryIdStore {
  /** Whether `id` was remembered and has not expired at `now`. */
  seen(id: string, now: Date): boolean | Promise<boolean>;
  /** Remembers `id` as accepted at `now`. */
  remember(id: string, now: Date): void | Promise<void>;
  /**
   * Optional atomic check-and-remember: records `id` and returns true if it was not already
   * remembered, returns false otherwise. When present it is used instead of `seen` + `remember`.
   */
  claim?(id: string, now: Date): boolean | Promise<boolean>;
}

/**
 * Processes each logical event once. `firstTime` claims an event id (true only for the first
 * live claim); `forget` drops a claim so a later delivery of the event is processed again, which
 * the handlers do when processing failed (the sender then retries).
 *
 * {@link MemoryEventDeduper} is per process. With several instances, or to survive restarts,
 * back it with a shared store (Redis `SET NX EX 86400`, a Postgres table with a unique key).
 * For exactly-once side effects, record the event id in the same database transaction as the
 * side effects instead.
 */
export interface EventDeduper {
  firstTime(eventId: string, now: Date): boolean | Promise<boolean>;
  forget(eventId: string): void | Promise<void>;
}

const MINUTE_MS = 60_000;
/** The spec's floor for remembering delivery ids. */
export const MIN_DELIVERY_ID_TTL_MS = 5 * MINUTE_MS;
export const DEFAULT_DELIVERY_ID_TTL_MS = 10 * MINUTE_MS;
export const DEFAULT_EVENT_TTL_MS = 24 * 60 * MINUTE_MS;
export const DEFAULT_MAX_ENTRIES = 100_000;

/**
 * A bounded in-memory set of ids with a time-to-live. Every method is synchronous, so a
 * check-and-record cannot interleave with another request in the same process.
 */
class TtlSet {
  /** id → expiry (ms since epoch). Insertion order is (close to) expiry order. */
  private readonly entries = new Map<string, number>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries: number,
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number');
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string, now: Date): boolean {
    const expiresAt = this.entries.get(id);
    return expiresAt !== undefined && expiresAt > now.getTime();
  }

  add(id: string, now: Date): void {
    this.sweep(now);
    this.entries.delete(id);
    this.entries.set(id, now.getTime() + this.ttlMs);
    // Still over the bound with nothing expired: drop the oldest entries.
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Adds `id` unless live; true if it was added. */
  claim(id: string, now: Date): boolean {
    if (this.has(id, now)) return false;
    this.add(id, now);
    return true;
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  /** Drops expired entries from the oldest end. */
  sweep(now: Date): void {
    const t = now.getTime();
    for (const [id, expiresAt] of this.entries) {
      if (expiresAt > t) break;
      this.entries.delete(id);
    }
  }
}

/**
 * In-process {@link DeliveryIdStore}: ids live `ttlMs` (default 10 minutes, at least 5), at
 * most `maxEntries` of them (default 100 000); expired ids are evicted as new ones arrive, and
 * past the bound the oldest go first. Single-instance receivers only; see {@link DeliveryIdStore}.
 */
export class MemoryDeliveryIdStore implements DeliveryIdStore {
  private readonly ids: TtlSet;

  constructor(options: { ttlMs?: number; maxEntries?: number } = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_DELIVERY_ID_TTL_MS;
    if (ttlMs < MIN_DELIVERY_ID_TTL_MS) throw new RangeError(`Delivery ids must be kept at least ${MIN_DELIVERY_ID_TTL_MS} ms`);
    this.ids = new TtlSet(ttlMs, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  }

  get size(): number {
    return this.ids.size;
  }

  seen(id: string, now: Date): boolean {
    return this.ids.has(id, now);
  }

  remember(id: string, now: Date): void {
    this.ids.add(id, now);
  }

  claim(id: string, now: Date): boolean {
    return this.ids.claim(id, now);
  }
}

/**
 * In-process {@link EventDeduper}: event ids live `ttlMs` (default 24 hours), at most
 * `maxEntries` (default 100 000), evicted like {@link MemoryDeliveryIdStore}'s.
 */
export class MemoryEventDeduper implements EventDeduper {
  private readonly ids: TtlSet;

  constructor(options: { ttlMs?: number; maxEntries?: number } = {}) {
    this.ids = new TtlSet(options.ttlMs ?? DEFAULT_EVENT_TTL_MS, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  }

  get size(): number {
    return this.ids.size;
  }

  firstTime(eventId: string, now: Date = new Date()): boolean {
    return this.ids.claim(eventId, now);
  }

  forget(eventId: string): void {
    this.ids.delete(eventId);
  }
}

/**
 * Runs `fn` unless `eventId` was already claimed on `deduper`. If `fn` throws, the claim is
 * dropped (so a retry is processed) and the error rethrown.
 */
export async function processOnce<T>(
  deduper: EventDeduper,
  eventId: string,
  fn: () => T | Promise<T>,
  now: Date = new Date(),
): Promise<{ duplicate: true } | { duplicate: false; value: T }> {
  if (!(await deduper.firstTime(eventId, now))) return { duplicate: true };
  try {
    return { duplicate: false, value: await fn() };
  } catch (err) {
    await deduper.forget(eventId);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Verification of one delivery
// ---------------------------------------------------------------------------------------------

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

function parseObject(rawBody: string | Buffer): WebhookBody | undefined {
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

// ---------------------------------------------------------------------------------------------
// HTTP handlers (plain Node and Koa)
// ---------------------------------------------------------------------------------------------

/** A verified delivery, as handed to `onEvent` and set on Koa's `ctx.state.webhook`. */
export interface WebhookEvent {
  deliveryId: string;
  /** Absent only if the body has no string `event_id` (then the event is not deduplicated). */
  eventId?: string;
  lineId: string;
  attempt?: number;
  body: WebhookBody;
}

export interface WebhookHandlerOptions {
  /**
   * The secrets of a line, current first, then the staged ("next") secret during a rotation.
   * Return `[]` for a line you do not know (the delivery is refused as `unknown_line`).
   * It receives the body's `line_id` before the signature is checked: treat it as untrusted
   * input (look it up, never interpolate it into SQL).
   */
  secretsForLine: (lineId: string) => readonly string[] | Promise<readonly string[]>;
  /** Allowed clock difference in seconds, default 300. */
  toleranceSeconds?: number;
  /** Replay cache of delivery ids; default a new {@link MemoryDeliveryIdStore} per handler. */
  deliveryIds?: DeliveryIdStore;
  /**
   * Event-id dedupe; default a new {@link MemoryEventDeduper} per handler. `false` turns it off
   * (when you dedupe `event_id` yourself, e.g. in your database transaction).
   */
  eventDeduper?: EventDeduper | false;
  /** Largest accepted body, bytes or a string like `'1mb'`; default 1 MB. */
  limit?: number | string;
  /** The receiver's clock; default `() => new Date()`. */
  clock?: () => Date;
}

/**
 * What the handlers do, as HTTP:
 * - 200 `{received: true}`: verified and processed.
 * - 200 `{duplicate: true}`: a replayed delivery id, or an event already processed. It is
 *   acknowledged with 200, not refused, so the sender stops retrying: the event was handled.
 * - 401 `{error: <reason>}`: not verified (any {@link WebhookFailure} other than
 *   `duplicate_delivery`, or `missing_line_id` / `unknown_line`).
 * - 405 for a method other than POST; 413 `{error: 'body_too_large'}` over `limit`;
 *   400 `{error: 'unreadable_body'}` when the body cannot be read.
 * - 500 `{error: 'handler_failed'}` (Node) when `onEvent` throws or `secretsForLine` fails; the
 *   event id is released, so the sender's retry is processed.
 */
export type WebhookRejection = WebhookFailure | 'missing_line_id' | 'unknown_line';

const DEFAULT_LIMIT = '1mb';

type Outcome =
  | { kind: 'reply'; status: number; body: Record<string, unknown> }
  | { kind: 'accepted'; event: WebhookEvent };

interface Resolved {
  options: WebhookHandlerOptions;
  deliveryIds: DeliveryIdStore;
  events: EventDeduper | undefined;
  clock: () => Date;
}

function resolve(options: WebhookHandlerOptions): Resolved {
  if (typeof options?.secretsForLine !== 'function') throw new TypeError('secretsForLine is required');
  return {
    options,
    deliveryIds: options.deliveryIds ?? new MemoryDeliveryIdStore(),
    events: options.eventDeduper === false ? undefined : (options.eventDeduper ?? new MemoryEventDeduper()),
    clock: options.clock ?? (() => new Date()),
  };
}

function reject(reason: WebhookRejection): Outcome {
  return reason === 'duplicate_delivery' ? { kind: 'reply', status: 200, body: { duplicate: true } } : { kind: 'reply', status: 401, body: { error: reason } };
}

/** Reads, authenticates and replay-checks one request; shared by both handlers. */
async function receive(r: Resolved, method: string | undefined, req: IncomingMessage): Promise<Outcome> {
  if (method !== 'POST') return { kind: 'reply', status: 405, body: { error: 'method_not_allowed' } };
  let rawBody: Buffer;
  try {
    const length = req.headers['content-length'];
    rawBody = await getRawBody(req, { limit: r.options.limit ?? DEFAULT_LIMIT, length: length || undefined });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') return { kind: 'reply', status: 413, body: { error: 'body_too_large' } };
    return { kind: 'reply', status: 400, body: { error: 'unreadable_body' } };
  }

  // The line id picks the secrets, so it is read before verifying; nothing else is trusted yet.
  const unverified = parseObject(rawBody);
  if (!unverified) return reject('malformed_body');
  const lineId = unverified.line_id;
  if (typeof lineId !== 'string' || lineId === '') return reject('missing_line_id');
  const secrets = await r.options.secretsForLine(lineId);
  if (!secrets.some((s) => typeof s === 'string' && s.length > 0)) return reject('unknown_line');

  const result = await verifyWebhook({
    rawBody,
    headers: req.headers,
    secrets,
    toleranceSeconds: r.options.toleranceSeconds,
    now: r.clock(),
    deliveryIds: r.deliveryIds,
  });
  if (!result.ok) return reject(result.reason);
  return {
    kind: 'accepted',
    event: { deliveryId: result.deliveryId, eventId: result.eventId, lineId, attempt: result.attempt, body: result.body },
  };
}

/** Runs `fn` once per event id (or always, without an id or a deduper). */
async function dedupe(r: Resolved, event: WebhookEvent, fn: () => Promise<void>): Promise<{ duplicate: boolean }> {
  if (!r.events || event.eventId === undefined) {
    await fn();
    return { duplicate: false };
  }
  const outcome = await processOnce(r.events, event.eventId, fn, r.clock());
  return { duplicate: outcome.duplicate };
}

function sendJson(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A request listener for `http.createServer` that receives webhooks: it reads the body (up to
 * `limit`), verifies it with the line's secrets, refuses replays, and calls `onEvent` once per
 * `event_id`. The response is sent after `onEvent` settles; see {@link WebhookRejection} for the
 * statuses. Keep `onEvent` quick (enqueue the work): the sender times out slow receivers and
 * retries.
 *
 * @example
 * http.createServer(nodeWebhookHandler({ secretsForLine: async (id) => lookUp(id) }, async (event) => {
 *   await queue.push(event.body);
 * })).listen(8787);
 */
export function nodeWebhookHandler(
  options: WebhookHandlerOptions,
  onEvent: (event: WebhookEvent) => void | Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const r = resolve(options);
  return (req, res) => {
    void (async () => {
      const outcome = await receive(r, req.method, req);
      if (outcome.kind === 'reply') return sendJson(res, outcome.status, outcome.body);
      const { duplicate } = await dedupe(r, outcome.event, async () => onEvent(outcome.event));
      sendJson(res, 200, duplicate ? { duplicate: true } : { received: true });
    })().catch(() => sendJson(res, 500, { error: 'handler_failed' }));
  };
}

/** Koa state set by {@link koaWebhookMiddleware}. */
export interface WebhookState {
  webhook: WebhookEvent;
}

/**
 * Koa middleware that receives webhooks; mount it on the webhook route, before any body parser
 * (it reads the raw body itself, which a body parser would already have consumed). On success it
 * sets `ctx.state.webhook` and calls `next` once per `event_id`, with a default response of 200
 * `{received: true}` that downstream middleware may replace. Refusals are answered without
 * calling `next` (see {@link WebhookRejection}); if `next` throws, the event id is released and
 * the error propagates to Koa's error handling (a 500, so the sender retries).
 *
 * @example
 * router.post('/webhooks/switchboard', koaWebhookMiddleware({ secretsForLine }), async (ctx) => {
 *   await handle(ctx.state.webhook.body);
 * });
 */
export function koaWebhookMiddleware(options: WebhookHandlerOptions): Koa.Middleware<WebhookState> {
  const r = resolve(options);
  return async (ctx, next) => {
    const outcome = await receive(r, ctx.method, ctx.req);
    if (outcome.kind === 'reply') {
      ctx.status = outcome.status;
      ctx.body = outcome.body;
      return;
    }
    ctx.state.webhook = outcome.event;
    const { duplicate } = await dedupe(r, outcome.event, async () => {
      ctx.status = 200;
      ctx.body = { received: true };
      await next();
    });
    if (duplicate) {
      ctx.status = 200;
      ctx.body = { duplicate: true };
    }
  };
}
