import crypto from 'node:crypto';
import { consumeRateLimit, consumeWithGrowingDelay, refundRateLimitHit } from '../../src/domain/limits/limiter';
import { accessBucketFor, bucketFor, RATE_LIMITS, type LimitName, type LimitPolicy } from '../../src/domain/limits/policies';
import { runCommand } from '../../src/main/cli';
import { createApp } from '../../api/app';
import { createLogger } from '../../src/platform/logger';
import { webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

const HOUR = 3600_000;

describe('rate limits', () => {
  const { h, tenant } = useSuite({ worker: true });

  describe('every row of the limits table, on a shared Postgres window', () => {
    it.each(Object.keys(RATE_LIMITS) as LimitName[])('%s', async (name) => {
      const policy = RATE_LIMITS[name];
      const partition: LimitPolicy['partition'] = policy.partition;
      const bucket =
        partition !== 'workspace_env' && partition !== 'user' && partition !== 'key'
          ? accessBucketFor(name, crypto.randomUUID(), '192.0.2.1')
          : bucketFor(name, {
              workspaceId: crypto.randomUUID(),
              environment: 'test',
              userId: crypto.randomUUID(),
              keyId: crypto.randomUUID(),
            });
      // The deployment's one bucket (issue 27) has no per-test value: start it empty.
      if (partition === 'deployment') await h.db('rate_limit_windows').where({ bucket }).del();
      const start = new Date('2026-01-01T00:00:00Z').getTime();
      for (let i = 0; i < policy.limit; i += 1) {
        // Spread over the first half of the window: it is rolling, not fixed.
        const at = new Date(start + Math.floor((i * policy.windowSeconds * 500) / policy.limit));
        expect((await consumeRateLimit(h.db, bucket, policy, at)).allowed).toBe(true);
      }
      const halfway = new Date(start + policy.windowSeconds * 500);
      const refused = await consumeRateLimit(h.db, bucket, policy, halfway);
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      expect(refused.retryAfterSeconds).toBe('retryAfterSeconds' in policy ? policy.retryAfterSeconds : policy.windowSeconds / 2);
      // Just after the first hit leaves the window, exactly one slot is free again.
      const slotFree = new Date(start + policy.windowSeconds * 1000 + 1);
      expect((await consumeRateLimit(h.db, bucket, policy, slotFree)).allowed).toBe(true);
      expect((await consumeRateLimit(h.db, bucket, policy, slotFree)).allowed).toBe(false);
    });

    it('partitions as the spec says', () => {
      const who = { workspaceId: 'w', environment: 'live', userId: 'u', keyId: 'k' };
      expect(bucketFor('lines.create', who)).toBe('lines.create:ws:w:live');
      expect(bucketFor('audit.read', who)).toBe('audit.read:user:u');
      expect(bucketFor('keys.mint', who)).toBe('keys.mint:key:k');
      expect(bucketFor('keys.rotate', who)).toBe('keys.rotate:key:k');
      expect(accessBucketFor('portal.login_failures', 'a@example.test', '192.0.2.1')).toBe(
        'portal.login_failures:account_address:a@example.test:192.0.2.1',
      );
      expect(() => accessBucketFor('portal.login_failures', 'a@example.test')).toThrow();
      expect(accessBucketFor('portal.login_address', '192.0.2.1')).toBe('portal.login_address:address:192.0.2.1');
      // Issue 27, L12: IPv6 by its /64, an IPv4-mapped address as the IPv4 address it carries.
      expect(accessBucketFor('portal.login_address', '2001:db8:1:2:aaaa::1')).toBe('portal.login_address:address:2001:db8:1:2::/64');
      expect(accessBucketFor('portal.signup', '2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('portal.signup:address:2001:db8:1:2::/64');
      expect(accessBucketFor('portal.signup', '::ffff:192.0.2.1')).toBe('portal.signup:address:192.0.2.1');
      expect(() => bucketFor('portal.signup', who)).toThrow();
      // One bucket for the whole deployment, whatever the caller (issue 27, H5).
      expect(accessBucketFor('portal.signup_global', '192.0.2.1')).toBe('portal.signup_global:deployment');
      expect(accessBucketFor('portal.signup_global', '2001:db8::1')).toBe('portal.signup_global:deployment');
    });

    it('never admits more than the limit under concurrency', async () => {
      const policy = RATE_LIMITS['messages.create'];
      const bucket = `race:${crypto.randomUUID()}`;
      const now = new Date();
      const results = await Promise.all(Array.from({ length: 40 }, () => consumeRateLimit(h.db, bucket, policy, now)));
      expect(results.filter((r) => r.allowed)).toHaveLength(policy.limit);
    });

    it('a refund gives back exactly one hit, even when several share its moment', async () => {
      const policy = RATE_LIMITS['messages.create'];
      const bucket = `refund:${crypto.randomUUID()}`;
      const now = new Date();
      const hits = await Promise.all(Array.from({ length: policy.limit }, () => consumeRateLimit(h.db, bucket, policy, now)));
      expect((await consumeRateLimit(h.db, bucket, policy, now)).allowed).toBe(false);
      await refundRateLimitHit(h.db, bucket, hits[0].hitAt!);
      const again = await consumeRateLimit(h.db, bucket, policy, now);
      expect(again).toMatchObject({ allowed: true, remaining: 0 });
      expect((await consumeRateLimit(h.db, bucket, policy, now)).allowed).toBe(false);
    });

    it('a growing delay: the free hits pass, then each waits twice as long after the latest, never more than the cap', async () => {
      const policy: LimitPolicy = RATE_LIMITS['portal.login_failures'];
      const { free, firstSeconds, maxSeconds } = policy.growingDelay!;
      const bucket = `delay:${crypto.randomUUID()}`;
      let at = new Date('2026-01-01T00:00:00Z').getTime();
      for (let i = 0; i < free; i += 1) expect((await consumeWithGrowingDelay(h.db, bucket, policy, new Date(at))).allowed).toBe(true);
      for (let wait = firstSeconds; wait <= maxSeconds; wait *= 2) {
        const early = await consumeWithGrowingDelay(h.db, bucket, policy, new Date(at + wait * 1000 - 1000));
        expect(early).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
        at += wait * 1000;
        expect((await consumeWithGrowingDelay(h.db, bucket, policy, new Date(at))).allowed).toBe(true);
      }
      // Capped: the next one waits maxSeconds, not twice the last wait.
      expect((await consumeWithGrowingDelay(h.db, bucket, policy, new Date(at))).retryAfterSeconds).toBe(maxSeconds);
    });

    it('a growing delay admits one of many parallel tries once the wait is over', async () => {
      const policy: LimitPolicy = RATE_LIMITS['portal.login_failures'];
      const bucket = `delay-race:${crypto.randomUUID()}`;
      const start = new Date();
      for (let i = 0; i < policy.growingDelay!.free; i += 1) await consumeWithGrowingDelay(h.db, bucket, policy, start);
      const later = new Date(start.getTime() + policy.growingDelay!.firstSeconds * 1000);
      const results = await Promise.all(Array.from({ length: 20 }, () => consumeWithGrowingDelay(h.db, bucket, policy, later)));
      expect(results.filter((r) => r.allowed)).toHaveLength(1);
    });
  });

  describe('through HTTP', () => {
    it('POST /api/v1/lines: 10 per hour per workspace and environment, with headers', async () => {
      for (let i = 0; i < 10; i += 1) {
        const ok = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
        expect(ok.status).toBe(201);
        expect(ok.headers.get('ratelimit-policy')).toBe('10;w=3600');
        expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^limit=10, remaining=${9 - i}, reset=\\d+$`));
      }
      const refused = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
      // The live environment and other workspaces have their own window; malformed requests are not counted.
      expect((await h.request('POST', '/api/v1/lines', { key: tenant.keys.live, body: webhookLine() })).status).toBe(201);
      expect((await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: { name: 'x' } })).status).toBe(422);
      h.clock.advance(HOUR);
      expect((await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() })).status).toBe(201);
    });

    it('POST /v1/keys: 60 per hour per service key', async () => {
      const mint = (svc: string) =>
        h.request('POST', '/v1/keys', { key: svc, body: { name: 'k' }, headers: { 'idempotency-key': crypto.randomUUID() } });
      for (let i = 0; i < 60; i += 1) expect((await mint(tenant.keys.serviceTest)).status).toBe(201);
      const refused = await mint(tenant.keys.serviceTest);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const second = await runCommand(h.db, ['service-key', 'create'], { workspace: tenant.workspaceId, env: 'test' });
      expect((await mint(String(second.key))).status).toBe(201);
      h.clock.advance(HOUR);
      expect((await mint(tenant.keys.serviceTest)).status).toBe(201);
    });

    it('POST /v1/keys/{id}/rotate: 30 per hour per service key, Retry-After 120', async () => {
      let id = (
        await h.request('POST', '/v1/keys', {
          key: tenant.keys.serviceTest,
          body: { name: 'k' },
          headers: { 'idempotency-key': crypto.randomUUID() },
        })
      ).body.key.id;
      const rotate = () =>
        h.request('POST', `/v1/keys/${id}/rotate`, { key: tenant.keys.serviceTest, headers: { 'idempotency-key': crypto.randomUUID() } });
      for (let i = 0; i < 30; i += 1) {
        const res = await rotate();
        expect(res.status).toBe(201);
        id = res.body.key.id;
      }
      const refused = await rotate();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('120');
      h.clock.advance(HOUR);
      expect((await rotate()).status).toBe(201);
    });
  });

  it('with an Idempotency-Key the claim counts the hit: the same headers and refusals, malformed requests given back, a refused key not stored', async () => {
    const post = (key: string, body: unknown) =>
      h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body, headers: { 'idempotency-key': key } });
    // Refused by validation after the claim counted them: each hit is given back.
    for (let i = 0; i < 3; i += 1) expect((await post(crypto.randomUUID(), { name: 'x' })).status).toBe(422);
    const keys = Array.from({ length: 10 }, () => crypto.randomUUID());
    for (const [i, key] of keys.entries()) {
      const ok = await post(key, webhookLine());
      expect(ok.status).toBe(201);
      expect(ok.headers.get('ratelimit-policy')).toBe('10;w=3600');
      expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`^limit=10, remaining=${9 - i}, reset=\\d+$`));
    }
    const refusedKey = crypto.randomUUID();
    const refused = await post(refusedKey, webhookLine());
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    // A replay spends nothing and still answers.
    const replay = await post(keys[0]!, webhookLine());
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // The refusal was not stored under its key: once the window has room, the same key is served afresh.
    h.clock.advance(HOUR);
    const retried = await post(refusedKey, webhookLine());
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('an idempotent replay does not use up the limit', async () => {
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine(), headers });
    for (let i = 0; i < 12; i += 1) {
      const again = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine(), headers });
      expect(again.status).toBe(201);
      expect(again.body.line.id).toBe(first.body.line.id);
    }
  });

  describe('endpoints the spec leaves unlimited that do unbounded or expensive work (security L8)', () => {
    it('each has a row of the limits table', () => {
      const { routes } = createApp({
        config: h.config,
        db: h.db,
        temporal: h.temporal,
        logger: createLogger('api-test', 'silent'),
        now: () => new Date(),
      });
      const limitOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)?.rateLimit;
      const expected: Array<[string, string, LimitName]> = [
        ['get', '/api/v1/webhooks/stats', 'reads'],
        ['get', '/api/v1/webhooks/deliveries', 'reads'],
        ['get', '/api/v1/lines', 'reads'],
        ['get', '/api/v1/disclosures', 'reads'],
        ['get', '/api/v1/calls', 'reads'],
        ['get', '/api/v1/compliance/audit', 'reads'],
        ['get', '/api/v1/compliance/events', 'reads'],
        ['post', '/api/v1/calls/{id}/speak', 'calls.control'],
        ['post', '/api/v1/calls/{id}/wait', 'calls.control'],
        ['post', '/api/v1/calls/{id}/press', 'calls.control'],
        ['post', '/api/v1/calls/{id}/transfer', 'calls.control'],
        ['post', '/api/v1/calls/{id}/hangup', 'calls.control'],
        ['patch', '/api/v1/settings', 'settings.update'],
        ['post', '/api/v1/lines/{id}/webhook-secret/rotate', 'lines.secret_rotate'],
        ['patch', '/v1/keys/{id}', 'keys.update'],
        ['delete', '/v1/keys/{id}', 'keys.revoke'],
        ['delete', '/api/v1/consent', 'consent.revoke'],
      ];
      expect(expected.map(([method, path]) => [method, path, limitOf(method, path)])).toEqual(expected);
    });

    it('GET /api/v1/webhooks/stats: 60 per hour, each read endpoint on its own window, with Retry-After', async () => {
      for (let i = 0; i < 60; i += 1)
        expect((await h.request('GET', '/api/v1/webhooks/stats', { key: tenant.keys.test })).status).toBe(200);
      const refused = await h.request('GET', '/api/v1/webhooks/stats', { key: tenant.keys.test });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
      expect((await h.request('GET', '/api/v1/webhooks/deliveries', { key: tenant.keys.test })).status).toBe(200);
      h.clock.advance(HOUR);
      expect((await h.request('GET', '/api/v1/webhooks/stats', { key: tenant.keys.test })).status).toBe(200);
    });

    it('DELETE /v1/keys/{id}: 60 per hour per service key', async () => {
      const id = (
        await h.request('POST', '/v1/keys', {
          key: tenant.keys.serviceTest,
          body: { name: 'k' },
          headers: { 'idempotency-key': crypto.randomUUID() },
        })
      ).body.key.id;
      // Revoking a revoked key answers 200 again: the same request can be repeated.
      for (let i = 0; i < 60; i += 1)
        expect((await h.request('DELETE', `/v1/keys/${id}`, { key: tenant.keys.serviceTest })).status).toBe(200);
      const refused = await h.request('DELETE', `/v1/keys/${id}`, { key: tenant.keys.serviceTest });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('a key refused for its tier writes one compliance event per verb per minute, however often it asks', async () => {
      const agent = (
        await h.request('POST', '/v1/keys', {
          key: tenant.keys.serviceTest,
          body: { name: 'reader', permissions: 'read_only' },
          headers: { 'idempotency-key': crypto.randomUUID() },
        })
      ).body.key;
      const denied = () =>
        h.request('POST', '/api/v1/calls', { key: agent.plaintext_key, body: { line_id: crypto.randomUUID(), to_number: '+14155550123' } });
      const events = async () =>
        Number(
          (
            await h
              .db('compliance_events')
              .where({ actor_key_id: agent.id, event_type: 'agent_key_permission_denied' })
              .count<{ n: string }[]>('id as n')
          )[0].n,
        );
      for (let i = 0; i < 5; i += 1) expect((await denied()).body.error.code).toBe('agent_permission_denied');
      expect(await events()).toBe(1);
      // Another verb is its own event.
      expect((await h.request('POST', '/api/v1/lines', { key: agent.plaintext_key, body: webhookLine() })).body.error.code).toBe(
        'agent_permission_denied',
      );
      expect(await events()).toBe(2);
      h.clock.advance(61_000);
      await denied();
      expect(await events()).toBe(3);
    });
  });
});
