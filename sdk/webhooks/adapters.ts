import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import getRawBody from 'raw-body';
import { MemoryDeliveryIdStore, MemoryEventDeduper, processOnce, type DeliveryIdStore, type EventDeduper } from './replayCache';
import { parseObject, verifyWebhook, type WebhookBody, type WebhookFailure } from './verify';

/** HTTP handlers for a webhook endpoint (plain Node and Koa): read, verify, refuse replays, process each event once. */

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

type Outcome = { kind: 'reply'; status: number; body: Record<string, unknown> } | { kind: 'accepted'; event: WebhookEvent };

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
  return reason === 'duplicate_delivery'
    ? { kind: 'reply', status: 200, body: { duplicate: true } }
    : { kind: 'reply', status: 401, body: { error: reason } };
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
