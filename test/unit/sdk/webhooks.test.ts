import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import {
  koaWebhookMiddleware,
  MemoryDeliveryIdStore,
  MemoryEventDeduper,
  nodeWebhookHandler,
  processOnce,
  verifyWebhook,
  type DeliveryIdStore,
  type WebhookEvent,
  type WebhookHandlerOptions,
  type WebhookState,
} from '../../../sdk/webhooks';
import { signatureHeaders, WEBHOOK_HEADERS } from '../../../src/domain/webhooks/signature';

const CURRENT = crypto.randomBytes(32).toString('hex');
const NEXT = crypto.randomBytes(32).toString('hex');
const OTHER = crypto.randomBytes(32).toString('hex');
const LINE_ID = 'line_01HXYZ';
const NOW = new Date('2025-01-15T12:00:00Z');

function bodyFor(eventId: string, lineId = LINE_ID): string {
  return JSON.stringify({ event_id: eventId, line_id: lineId, type: 'call.completed', data: { duration_seconds: 42 } });
}

function signed(input: { secret?: string; body?: string; now?: Date; deliveryId?: string; attempt?: number } = {}) {
  const rawBody = input.body ?? bodyFor('evt_1');
  const deliveryId = input.deliveryId ?? crypto.randomUUID();
  const headers = signatureHeaders({
    secret: input.secret ?? CURRENT,
    deliveryId,
    rawBody,
    attempt: input.attempt ?? 1,
    now: input.now ?? NOW,
  });
  return { rawBody, headers, deliveryId };
}

describe('verifyWebhook', () => {
  let store: MemoryDeliveryIdStore;
  beforeEach(() => {
    store = new MemoryDeliveryIdStore();
  });
  const run = (d: ReturnType<typeof signed>, secrets = [CURRENT, NEXT], now = NOW) =>
    verifyWebhook({ rawBody: d.rawBody, headers: d.headers, secrets, now, deliveryIds: store });

  it('accepts the current secret and returns the parsed delivery', async () => {
    const d = signed({ attempt: 2 });
    await expect(run(d)).resolves.toEqual({
      ok: true,
      deliveryId: d.deliveryId,
      eventId: 'evt_1',
      lineId: LINE_ID,
      attempt: 2,
      body: JSON.parse(d.rawBody),
    });
  });

  it('accepts the staged secret during a rotation', async () => {
    await expect(run(signed({ secret: NEXT }))).resolves.toMatchObject({ ok: true, eventId: 'evt_1' });
  });

  it('rejects a third secret with the current secret’s reason', async () => {
    await expect(run(signed({ secret: OTHER }))).resolves.toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a stale delivery, under either secret', async () => {
    const late = new Date(NOW.getTime() + 301_000);
    await expect(run(signed(), undefined, late)).resolves.toEqual({ ok: false, reason: 'stale_timestamp' });
    await expect(run(signed({ secret: NEXT }), undefined, late)).resolves.toEqual({ ok: false, reason: 'stale_timestamp' });
    await expect(run(signed(), undefined, new Date(NOW.getTime() + 300_000))).resolves.toMatchObject({ ok: true });
  });

  it('honours toleranceSeconds', async () => {
    const d = signed();
    const now = new Date(NOW.getTime() + 61_000);
    await expect(verifyWebhook({ ...d, secrets: [CURRENT], now, toleranceSeconds: 60, deliveryIds: store })).resolves.toEqual({
      ok: false,
      reason: 'stale_timestamp',
    });
  });

  it('rejects a replayed delivery id', async () => {
    const d = signed();
    await expect(run(d)).resolves.toMatchObject({ ok: true });
    await expect(run(d)).resolves.toEqual({ ok: false, reason: 'duplicate_delivery' });
    await expect(run(d, [NEXT, CURRENT], new Date(NOW.getTime() + 120_000))).resolves.toEqual({ ok: false, reason: 'duplicate_delivery' });
  });

  it('does not record the delivery id of a refused delivery', async () => {
    const d = signed();
    await expect(run(d, [OTHER])).resolves.toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(store.size).toBe(0);
    await expect(run(d)).resolves.toMatchObject({ ok: true });
  });

  it('rejects a tampered body', async () => {
    const d = signed();
    await expect(run({ ...d, rawBody: d.rawBody.replace('42', '43') })).resolves.toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('parses the body only after the signature passed', async () => {
    await expect(run(signed({ body: 'not json' }))).resolves.toEqual({ ok: false, reason: 'malformed_body' });
    await expect(run(signed({ body: '[1,2]' }))).resolves.toEqual({ ok: false, reason: 'malformed_body' });
    await expect(run(signed({ body: 'not json', secret: OTHER }))).resolves.toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('reports missing headers before anything else', async () => {
    const d = signed();
    const headers = { ...d.headers, [WEBHOOK_HEADERS.signature]: undefined };
    await expect(verifyWebhook({ rawBody: d.rawBody, headers, secrets: [CURRENT], now: NOW, deliveryIds: store })).resolves.toEqual({
      ok: false,
      reason: 'missing_signature',
    });
  });

  it('ignores empty secrets and refuses without any', async () => {
    const forged = signed({ secret: '' });
    // An empty HMAC key is forgeable by anyone: it must never verify.
    await expect(run(forged, ['', CURRENT])).resolves.toEqual({ ok: false, reason: 'signature_mismatch' });
    await expect(run(forged, [''])).resolves.toEqual({ ok: false, reason: 'no_secrets' });
    await expect(run(signed(), [])).resolves.toEqual({ ok: false, reason: 'no_secrets' });
    await expect(run(signed(), ['', CURRENT])).resolves.toMatchObject({ ok: true });
  });

  it('accepts a Buffer body and Headers object', async () => {
    const d = signed();
    await expect(
      verifyWebhook({ rawBody: Buffer.from(d.rawBody), headers: new Headers(d.headers), secrets: [CURRENT], now: NOW, deliveryIds: store }),
    ).resolves.toMatchObject({
      ok: true,
      deliveryId: d.deliveryId,
    });
  });

  it('uses an async store through seen/remember, and an atomic claim when it has one', async () => {
    const ids = new Set<string>();
    const asyncStore: DeliveryIdStore = {
      seen: async (id) => ids.has(id),
      remember: async (id) => {
        ids.add(id);
      },
    };
    const d = signed();
    await expect(verifyWebhook({ ...d, secrets: [CURRENT], now: NOW, deliveryIds: asyncStore })).resolves.toMatchObject({ ok: true });
    expect(ids.has(d.deliveryId)).toBe(true);
    await expect(verifyWebhook({ ...d, secrets: [CURRENT], now: NOW, deliveryIds: asyncStore })).resolves.toEqual({
      ok: false,
      reason: 'duplicate_delivery',
    });

    const claimed: string[] = [];
    const claimStore: DeliveryIdStore = {
      seen: () => {
        throw new Error('not used');
      },
      remember: () => {
        throw new Error('not used');
      },
      claim: async (id) => {
        if (claimed.includes(id)) return false;
        claimed.push(id);
        return true;
      },
    };
    await expect(verifyWebhook({ ...d, secrets: [CURRENT], now: NOW, deliveryIds: claimStore })).resolves.toMatchObject({ ok: true });
    await expect(verifyWebhook({ ...d, secrets: [CURRENT], now: NOW, deliveryIds: claimStore })).resolves.toEqual({
      ok: false,
      reason: 'duplicate_delivery',
    });
  });

  it('lets only one of two concurrent verifications of the same delivery through', async () => {
    const d = signed();
    const results = await Promise.all([run(d), run(d), run(d)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'duplicate_delivery')).toHaveLength(2);
  });

  it('uses a process-wide store when none is given', async () => {
    const d = signed();
    await expect(verifyWebhook({ ...d, secrets: [CURRENT], now: NOW })).resolves.toMatchObject({ ok: true });
    await expect(verifyWebhook({ ...d, secrets: [CURRENT], now: NOW })).resolves.toEqual({ ok: false, reason: 'duplicate_delivery' });
  });
});

describe('event dedupe', () => {
  it('treats a second delivery of the same event_id (new delivery id) as a duplicate for processing', async () => {
    const deliveryIds = new MemoryDeliveryIdStore();
    const events = new MemoryEventDeduper();
    const processed: string[] = [];
    for (const attempt of [1, 2]) {
      const d = signed({ body: bodyFor('evt_same'), attempt, now: new Date(NOW.getTime() + attempt * 1000) });
      const result = await verifyWebhook({ ...d, secrets: [CURRENT], now: NOW, deliveryIds });
      if (!result.ok || !result.eventId) throw new Error('expected a verified delivery with an event id');
      const outcome = await processOnce(events, result.eventId, () => processed.push(result.deliveryId), NOW);
      expect(outcome.duplicate).toBe(attempt === 2);
    }
    expect(processed).toHaveLength(1);
  });

  it('releases the event id when processing fails, so the retry is processed', async () => {
    const events = new MemoryEventDeduper();
    await expect(processOnce(events, 'evt_fail', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(processOnce(events, 'evt_fail', () => 'done')).resolves.toEqual({ duplicate: false, value: 'done' });
    await expect(processOnce(events, 'evt_fail', () => 'again')).resolves.toEqual({ duplicate: true });
  });

  it('forgets event ids after 24 hours by default', () => {
    const events = new MemoryEventDeduper();
    expect(events.firstTime('evt', NOW)).toBe(true);
    expect(events.firstTime('evt', new Date(NOW.getTime() + 24 * 3600_000 - 1))).toBe(false);
    expect(events.firstTime('evt', new Date(NOW.getTime() + 24 * 3600_000))).toBe(true);
  });
});

describe('MemoryDeliveryIdStore', () => {
  it('accepts an id again once it is older than the TTL', async () => {
    const deliveryIds = new MemoryDeliveryIdStore({ ttlMs: 5 * 60_000 });
    const d = signed();
    const verifyAt = (ms: number) =>
      verifyWebhook({ ...d, secrets: [CURRENT], now: new Date(NOW.getTime() + ms), deliveryIds, toleranceSeconds: 3600 });
    await expect(verifyAt(0)).resolves.toMatchObject({ ok: true });
    await expect(verifyAt(5 * 60_000 - 1)).resolves.toEqual({ ok: false, reason: 'duplicate_delivery' });
    await expect(verifyAt(5 * 60_000)).resolves.toMatchObject({ ok: true });
  });

  it('defaults to 10 minutes and refuses a TTL under 5 minutes', () => {
    const store = new MemoryDeliveryIdStore();
    store.remember('a', NOW);
    expect(store.seen('a', new Date(NOW.getTime() + 10 * 60_000 - 1))).toBe(true);
    expect(store.seen('a', new Date(NOW.getTime() + 10 * 60_000))).toBe(false);
    expect(() => new MemoryDeliveryIdStore({ ttlMs: 5 * 60_000 - 1 })).toThrow(RangeError);
    expect(() => new MemoryDeliveryIdStore({ maxEntries: 0 })).toThrow(RangeError);
  });

  it('evicts expired entries as new ones arrive, and stays within its bound', () => {
    const store = new MemoryDeliveryIdStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) store.remember(id, NOW);
    expect(store.size).toBe(3);
    store.remember('d', new Date(NOW.getTime() + 11 * 60_000));
    expect(store.size).toBe(1);
    for (const id of ['e', 'f', 'g']) store.remember(id, new Date(NOW.getTime() + 12 * 60_000));
    expect(store.size).toBe(3);
    const later = new Date(NOW.getTime() + 12 * 60_000);
    expect(['d', 'e', 'f', 'g'].filter((id) => store.seen(id, later))).toEqual(['e', 'f', 'g']);
  });

  it('claim is check-and-record in one step', () => {
    const store = new MemoryDeliveryIdStore();
    expect(store.claim('x', NOW)).toBe(true);
    expect(store.claim('x', NOW)).toBe(false);
    expect(store.seen('x', NOW)).toBe(true);
  });
});

interface Server {
  url: string;
  close: () => Promise<void>;
}

async function listen(server: http.Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

function post(url: string, d: { rawBody: string; headers: Record<string, string> }, extra: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...d.headers, ...extra }, body: d.rawBody });
}

const secretsForLine: WebhookHandlerOptions['secretsForLine'] = async (lineId) => (lineId === LINE_ID ? [CURRENT, NEXT] : []);

/** Both HTTP adapters, behind one interface, so they are held to the same behaviour. */
const adapters: Array<[string, (options: WebhookHandlerOptions, onEvent: (event: WebhookEvent) => void | Promise<void>) => http.Server]> = [
  ['nodeWebhookHandler', (options, onEvent) => http.createServer(nodeWebhookHandler(options, onEvent))],
  [
    'koaWebhookMiddleware',
    (options, onEvent) => {
      const app = new Koa<WebhookState>();
      app.silent = true;
      app.use(koaWebhookMiddleware(options));
      app.use(async (ctx) => {
        await onEvent(ctx.state.webhook);
      });
      return http.createServer(app.callback());
    },
  ],
];

describe.each(adapters)('%s over real HTTP', (_name, makeServer) => {
  let server: Server;
  let received: WebhookEvent[];
  let failNext: boolean;

  beforeEach(async () => {
    received = [];
    failNext = false;
    server = await listen(
      makeServer({ secretsForLine, limit: 4096 }, async (event) => {
        if (failNext) {
          failNext = false;
          throw new Error('downstream failure');
        }
        received.push(event);
      }),
    );
  });
  afterEach(() => server.close());

  it('answers 200 to a signed POST and calls onEvent once', async () => {
    const d = signed({ now: new Date() });
    const res = await post(server.url, d);
    expect(res.status).toBe(200);
    await expect(res.json()).resolves.toEqual({ received: true });
    expect(received).toHaveLength(1);
    expect(received[0]).toEqual({ deliveryId: d.deliveryId, eventId: 'evt_1', lineId: LINE_ID, attempt: 1, body: JSON.parse(d.rawBody) });
  });

  it('accepts the staged secret', async () => {
    const res = await post(server.url, signed({ secret: NEXT, now: new Date() }));
    expect(res.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('answers 401 to a bad signature and does not call onEvent', async () => {
    const res = await post(server.url, signed({ secret: OTHER, now: new Date() }));
    expect(res.status).toBe(401);
    await expect(res.json()).resolves.toEqual({ error: 'signature_mismatch' });
    expect(received).toHaveLength(0);
  });

  it('answers 401 to a tampered body, a stale timestamp, an unknown line, a missing line id or a non-JSON body', async () => {
    const d = signed({ now: new Date() });
    const cases: Array<[{ rawBody: string; headers: Record<string, string> }, string]> = [
      [{ ...d, rawBody: d.rawBody.replace('42', '43') }, 'signature_mismatch'],
      [signed({ now: new Date(Date.now() - 400_000) }), 'stale_timestamp'],
      [signed({ now: new Date(), body: bodyFor('evt_x', 'line_unknown') }), 'unknown_line'],
      [signed({ now: new Date(), body: '{"event_id":"evt_x"}' }), 'missing_line_id'],
      [signed({ now: new Date(), body: 'nope' }), 'malformed_body'],
      [{ ...d, headers: { ...d.headers, [WEBHOOK_HEADERS.timestamp]: '' } }, 'missing_timestamp'],
    ];
    for (const [delivery, error] of cases) {
      const res = await post(server.url, delivery);
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error } });
    }
    expect(received).toHaveLength(0);
  });

  it('answers 200 {duplicate: true} to a replayed delivery without calling onEvent again', async () => {
    const d = signed({ now: new Date() });
    expect((await post(server.url, d)).status).toBe(200);
    const replay = await post(server.url, d);
    expect(replay.status).toBe(200);
    await expect(replay.json()).resolves.toEqual({ duplicate: true });
    expect(received).toHaveLength(1);
  });

  it('processes an event once across retries with new delivery ids', async () => {
    const first = await post(server.url, signed({ now: new Date(), body: bodyFor('evt_retry'), attempt: 1 }));
    const second = await post(server.url, signed({ now: new Date(), body: bodyFor('evt_retry'), attempt: 2 }));
    expect([first.status, second.status]).toEqual([200, 200]);
    await expect(second.json()).resolves.toEqual({ duplicate: true });
    expect(received.map((e) => e.eventId)).toEqual(['evt_retry']);
  });

  it('answers 500 when processing fails, and processes the retry', async () => {
    failNext = true;
    const first = await post(server.url, signed({ now: new Date(), body: bodyFor('evt_flaky'), attempt: 1 }));
    expect(first.status).toBe(500);
    const retry = await post(server.url, signed({ now: new Date(), body: bodyFor('evt_flaky'), attempt: 2 }));
    expect(retry.status).toBe(200);
    expect(received.map((e) => [e.eventId, e.attempt])).toEqual([['evt_flaky', 2]]);
  });

  it('answers 413 over the body limit and 405 to other methods', async () => {
    const big = signed({ now: new Date(), body: JSON.stringify({ line_id: LINE_ID, event_id: 'evt_big', pad: 'x'.repeat(5000) }) });
    const tooLarge = await post(server.url, big);
    expect(tooLarge.status).toBe(413);
    await expect(tooLarge.json()).resolves.toEqual({ error: 'body_too_large' });
    const get = await fetch(server.url);
    expect(get.status).toBe(405);
    expect(received).toHaveLength(0);
  });
});
