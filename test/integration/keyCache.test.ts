import crypto from 'node:crypto';
import http from 'node:http';
import { createApp, type App } from '../../api/app';
import pg from 'pg';
import { KEY_CHANGES_CHANNEL } from '../../src/domain/keys/cache';
import { createDb, type Db } from '../../src/platform/db/knex';
import { createLogger } from '../../src/platform/logger';
import { eventually } from '../support/harness';
import { until } from '../support/waits';
import { useSuite } from '../support/suite';

/**
 * Two API instances over one database, each with its own pool, key cache and LISTEN connection, as two
 * deployed API processes. The caches trust a row for a minute here, so a refusal within 1 s can only come
 * from the revocation's NOTIFY or from the listener's heartbeat, not from the TTL.
 */
describe('key cache across API instances', () => {
  const ctx = useSuite();
  const instances: Array<{ app: App; db: Db; server: http.Server; url: string }> = [];

  async function startInstance(): Promise<(typeof instances)[number]> {
    const { h } = ctx;
    const db = createDb(h.config.databaseUrl!, { max: 5 });
    const app = createApp({
      config: { ...h.config, apiKeyCacheTtlMs: 60_000, apiLastUsedFlushMs: 200 },
      db,
      temporal: h.temporal,
      logger: createLogger('api-test', process.env.LOG_LEVEL ?? 'silent'),
      now: () => new Date(),
    });
    await app.listenForKeyChanges(h.config.databaseUrl!);
    const server = http.createServer(app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const instance = { app, db, server, url: `http://127.0.0.1:${port}` };
    instances.push(instance);
    return instance;
  }

  afterEach(async () => {
    for (const { app, db, server } of instances.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await db.destroy();
    }
  });

  const call = async (url: string, method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { key: { id: string; plaintext_key: string } } };
  };

  /** Lists lines with `key` until the answer is not 200 (failing after 5 s): the status and how long it took from `since`. */
  const untilRefused = async (url: string, key: string, since: number) => {
    let status = 200;
    // Polled every 20 ms, so the key stays within its rate limit for the whole wait.
    await until(async () => (status = (await call(url, 'GET', '/api/v1/lines', key)).status) !== 200, 'the key to be refused', {
      timeoutMs: 5_000,
      intervalMs: 20,
    });
    return { status, afterMs: Date.now() - since };
  };

  /** B's answer from its cache: a second request of a key it has seen costs no lookup. */
  const expectCached = async (b: { app: App; url: string }, key: string) => {
    expect((await call(b.url, 'GET', '/api/v1/lines', key)).status).toBe(200);
    const hitsBefore = b.app.keyCache.hits;
    expect((await call(b.url, 'GET', '/api/v1/lines', key)).status).toBe(200);
    expect(b.app.keyCache.hits).toBe(hitsBefore + 1);
  };

  it('a key revoked by hand in SQL is refused by an instance that had it cached within 1 s (the database announces it)', async () => {
    const b = await startInstance();
    const minted = await call(b.url, 'POST', '/v1/keys', ctx.tenant.keys.serviceTest, { name: 'hand-revoked agent' });
    const agentKey = minted.body.key.plaintext_key;
    await expectCached(b, agentKey);
    await ctx.h.db('api_keys').where({ id: minted.body.key.id }).update({ revoked_at: new Date() });
    const refused = await untilRefused(b.url, agentKey, Date.now());
    expect(refused.status).toBe(401);
    expect(refused.afterMs).toBeLessThan(1_000);
  });

  it('the database announces a change to a key, and not a use stamp', async () => {
    const listener = new pg.Client({ connectionString: ctx.h.config.databaseUrl! });
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.connect();
    try {
      await listener.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
      const b = await startInstance();
      const mint = async (name: string) => (await call(b.url, 'POST', '/v1/keys', ctx.tenant.keys.serviceTest, { name })).body.key.id;
      const [stamped, changed, deleted] = [await mint('stamped'), await mint('changed'), await mint('deleted')];
      await ctx.h.db('api_keys').where({ id: stamped }).update({ last_used_at: new Date() });
      await ctx.h.db('api_keys').where({ id: changed }).update({ monthly_cap_cents: 500 });
      await ctx.h.db('api_keys').where({ id: deleted }).del();
      // Notifications arrive in commit order: the stamp's, had there been one, would come first.
      await eventually(async () => (heard.includes(deleted) ? true : undefined), 2_000, 'the deletion announced');
      expect(heard).toEqual([changed, deleted]);
    } finally {
      await listener.end();
    }
  });

  it("stops serving from its cache within about a second when its listener's connection hangs", async () => {
    const b = await startInstance();
    const revokedKey = await call(b.url, 'POST', '/v1/keys', ctx.tenant.keys.serviceTest, { name: 'revoked while deaf' });
    const keptKey = await call(b.url, 'POST', '/v1/keys', ctx.tenant.keys.serviceTest, { name: 'kept while deaf' });
    await expectCached(b, revokedKey.body.key.plaintext_key);
    const [backend] = (
      await ctx.h.db.raw(
        `select pid from pg_stat_activity where application_name = 'switchboard-key-changes' and datname = current_database()`,
      )
    ).rows as Array<{ pid: number }>;
    expect(backend).toBeDefined();
    // The listener's server process stops without a word: its connection stays open, nothing is delivered on it.
    process.kill(backend!.pid, 'SIGSTOP');
    try {
      const frozenAt = Date.now();
      await ctx.h.db('api_keys').where({ id: revokedKey.body.key.id }).update({ revoked_at: new Date() });
      const refused = await untilRefused(b.url, revokedKey.body.key.plaintext_key, frozenAt);
      expect(refused.status).toBe(401);
      expect(refused.afterMs).toBeLessThan(1_500);
      // Meanwhile the instance serves every other key from the database.
      expect((await call(b.url, 'GET', '/api/v1/lines', keptKey.body.key.plaintext_key)).status).toBe(200);
    } finally {
      process.kill(backend!.pid, 'SIGCONT');
    }
  });

  it('a key revoked through instance A is refused by instance B within 1 s, though B had it cached', async () => {
    const a = await startInstance();
    const b = await startInstance();
    const minted = await call(a.url, 'POST', '/v1/keys', ctx.tenant.keys.serviceTest, { name: 'cached agent' });
    expect(minted.status).toBe(201);
    const agentKey = minted.body.key.plaintext_key;

    expect((await call(b.url, 'GET', '/api/v1/lines', agentKey)).status).toBe(200);
    const hitsBefore = b.app.keyCache.hits;
    expect((await call(b.url, 'GET', '/api/v1/lines', agentKey)).status).toBe(200);
    // B answered from its cache: no lookup query for the second request.
    expect(b.app.keyCache.hits).toBe(hitsBefore + 1);

    const revoked = await call(a.url, 'DELETE', `/v1/keys/${minted.body.key.id}`, ctx.tenant.keys.serviceTest);
    expect(revoked.status).toBe(200);
    const refused = await untilRefused(b.url, agentKey, Date.now());
    expect(refused.status).toBe(401);
    expect(refused.afterMs).toBeLessThan(1_000);
  });

  it('an agent key whose tier is lowered through A loses the verb on B at once', async () => {
    const a = await startInstance();
    const b = await startInstance();
    const minted = await call(a.url, 'POST', '/v1/keys', ctx.tenant.keys.serviceTest, { name: 'tiered agent' });
    const agentKey = minted.body.key.plaintext_key;
    expect((await call(b.url, 'GET', '/api/v1/lines', agentKey)).status).toBe(200);
    const updated = await call(a.url, 'PATCH', `/v1/keys/${minted.body.key.id}`, ctx.tenant.keys.serviceTest, { permissions: 'read_only' });
    expect(updated.status).toBe(200);
    const changedAt = Date.now();
    let answer = '';
    while (Date.now() - changedAt < 5_000) {
      const res = await call(b.url, 'POST', '/api/v1/lines', agentKey, {
        name: 'x',
        mode: 'webhook',
        webhook_url: 'https://a.example.test',
      });
      answer = `${res.status} ${JSON.stringify(res.body)}`;
      if (answer.includes('agent_permission_denied')) break;
    }
    expect(answer).toContain('403');
    expect(answer).toContain('agent_permission_denied');
    expect(Date.now() - changedAt).toBeLessThan(1_000);
  });

  it('writes last_used_at off the request: once per key per minute, after the flush', async () => {
    const b = await startInstance();
    const minted = await call(b.url, 'POST', '/v1/keys', ctx.tenant.keys.serviceTest, { name: 'used agent' });
    const keyId = minted.body.key.id;
    const agentKey = minted.body.key.plaintext_key;
    const writesOfKey: string[] = [];
    const onQuery = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^\s*update\s+api_keys/i.test(query.sql) && query.bindings?.includes(keyId)) writesOfKey.push(query.sql);
    };
    b.db.on('query', onQuery);
    try {
      for (let i = 0; i < 20; i += 1) expect((await call(b.url, 'GET', '/api/v1/lines', agentKey)).status).toBe(200);
      // The flush runs every 200 ms here; under load a pass may come late.
      await eventually(
        async () => ((await ctx.h.db('api_keys').where({ id: keyId }).first('last_used_at')).last_used_at as Date | null) ?? undefined,
        10_000,
        'last_used_at to be written',
      );
      // Several flushes have run since: twenty uses within a minute made one write.
      await new Promise((resolve) => setTimeout(resolve, 600)); // waits out a second write over several 200 ms flushes
      expect(writesOfKey).toHaveLength(1);
    } finally {
      b.db.off('query', onQuery);
    }
  });
});
