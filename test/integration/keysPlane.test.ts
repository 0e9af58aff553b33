import crypto from 'node:crypto';
import http from 'node:http';
import { customer } from '../support/customer';
import { createTenant, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/** The service-key plane: `/v1/keys` and its alias `/api/v1/keys`. */
describe('agent keys on the service-key plane', () => {
  const ctx = useSuite({ worker: true });
  const { h, tenant } = ctx;

  const idem = () => crypto.randomUUID();
  const mint = (body: Record<string, unknown>, key = idem(), svc = tenant.keys.serviceTest, path = '/v1/keys') =>
    h.request('POST', path, { key: svc, body, headers: { 'idempotency-key': key } });
  const countKeys = async () =>
    Number(
      (await h.db('api_keys').where({ workspace_id: tenant.workspaceId }).whereNotNull('created_by_service_key_id').count('id as n'))[0].n,
    );
  const events = (type: string) =>
    h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: type }).orderBy('created_at');
  const { lines } = customer(ctx);

  it('mints a key shown once, which then works on the API', async () => {
    const res = await mint({ name: 'Booking agent', agent_label: 'booking-bot', monthly_cap_cents: 1000 });
    expect(res.status).toBe(201);
    const key = res.body.key;
    expect(key).toMatchObject({
      name: 'Booking agent',
      agent_label: 'booking-bot',
      environment: 'test',
      permissions: 'full',
      monthly_cap_cents: 1000,
      monthly_spend_cents: 0,
      line_id: null,
      revoked_at: null,
      rotated_from: null,
      plaintext_key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/),
    });
    expect(key.key_prefix).toBe(key.plaintext_key.slice(0, 16));
    expect((await h.request('GET', '/api/v1/lines', { key: key.plaintext_key })).status).toBe(200);
    const fetched = await h.request('GET', `/api/v1/keys/${key.id}`, { key: tenant.keys.serviceTest });
    expect(fetched.body.key.plaintext_key).toBeUndefined();
    const [event] = await events('agent_key_minted');
    expect(event).toMatchObject({ actor_key_id: expect.any(String), environment: 'test' });
    expect(event.metadata.key_id).toBe(key.id);
  });

  it('requires the Idempotency-Key header, once', async () => {
    const missing = await h.request('POST', '/v1/keys', { key: tenant.keys.serviceTest, body: { name: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_idempotency_key');
    // Two header lines (fetch would fold them into one): node's http client sends an array as such.
    const doubled = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${h.apiUrl}/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.keys.serviceTest}`, 'content-type': 'application/json', 'idempotency-key': ['a', 'b'] },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ name: 'x' }));
    });
    expect(doubled.status).toBe(400);
    expect(JSON.parse(doubled.body).error.code).toBe('duplicate_idempotency_key_header');
    expect(await countKeys()).toBe(0);
  });

  it('replays a mint for the same key and body, without the plaintext, on either path', async () => {
    const key = idem();
    const first = await mint({ name: 'a' }, key);
    const again = await mint({ name: 'a' }, key);
    const viaAlias = await mint({ name: 'a' }, key, tenant.keys.serviceTest, '/api/v1/keys');
    for (const replay of [again, viaAlias]) {
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const { plaintext_key: _omitted, ...row } = first.body.key;
      expect(replay.body).toEqual({ key: row });
    }
    expect(await countKeys()).toBe(1);
  });

  it('409 idempotency_key_reused for the same key with another body', async () => {
    const key = idem();
    await mint({ name: 'a' }, key);
    const res = await mint({ name: 'b' }, key);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_reused');
  });

  it('100 concurrent mints with one Idempotency-Key create exactly one key', async () => {
    const key = idem();
    const results = await Promise.all(Array.from({ length: 100 }, () => mint({ name: 'racer' }, key)));
    const withPlaintext = results.filter((r) => r.status === 201 && r.body.key.plaintext_key);
    expect(withPlaintext).toHaveLength(1);
    for (const r of results) {
      if (r.status === 201) expect(r.body.key.id).toBe(withPlaintext[0].body.key.id);
      else {
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('idempotency_in_progress');
        expect(r.headers.get('retry-after')).toBe('1');
      }
    }
    expect(await countKeys()).toBe(1);
  });

  it('refuses an environment that differs from the service key, and the legacy tier', async () => {
    const env = await mint({ name: 'a', environment: 'live' });
    expect(env.status).toBe(422);
    expect(env.body.error.details).toEqual([{ field: 'environment', message: 'Must be test, the environment of this service key' }]);
    expect((await mint({ name: 'a', environment: 'test' })).status).toBe(201);
    const legacy = await mint({ name: 'a', permissions: 'legacy_full' });
    expect(legacy.status).toBe(422);
    expect(legacy.body.error.details[0].field).toBe('permissions');
  });

  it.each([
    ['uppercase label', { name: 'a', agent_label: 'Booking' }, 'agent_label'],
    ['label over 128', { name: 'a', agent_label: 'a'.repeat(129) }, 'agent_label'],
    ['label starting with a dash', { name: 'a', agent_label: '-bot' }, 'agent_label'],
    ['NUL in the name', { name: 'a\u0000b' }, 'name'],
    ['zero cap', { name: 'a', monthly_cap_cents: 0 }, 'monthly_cap_cents'],
    ['line id not a UUID', { name: 'a', line_id: 'line-1' }, 'line_id'],
    ['unknown tier', { name: 'a', permissions: 'admin' }, 'permissions'],
  ])('422 for %s', async (_label, body, field) => {
    const res = await mint(body);
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('binds only an existing, own, same-environment, unreleased line; the 404 is not cached', async () => {
    const liveLine = await lines.create({}, tenant.keys.live);
    const other = await createTenant(h.db);
    const foreignLine = await lines.create({}, other.keys.test);
    const releasedLine = await lines.create();
    await h.db('lines').where({ id: releasedLine.id }).update({ status: 'released' });
    const key = idem();
    for (const lineId of [liveLine.id, foreignLine.id, releasedLine.id, crypto.randomUUID()]) {
      const res = await mint({ name: 'bound', line_id: lineId }, key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const good = await lines.create();
    const fixed = await mint({ name: 'bound', line_id: good.id }, key);
    expect(fixed.status).toBe(201);
    expect(fixed.body.key.line_id).toBe(good.id);
  });

  it('lists active keys with a total, pages them, and gets revoked ones by id', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await mint({ name: `k${i}` })).body.key.id);
    await h.request('DELETE', `/v1/keys/${ids[0]}`, { key: tenant.keys.serviceTest });
    const page = await h.request('GET', '/api/v1/keys?limit=1&offset=1', { key: tenant.keys.serviceTest });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(2);
    expect(page.body.keys.map((k: { id: string }) => k.id)).toEqual([ids[1]]);
    const all = await h.request('GET', '/v1/keys', { key: tenant.keys.serviceTest });
    expect(all.body.keys.map((k: { id: string }) => k.id)).toEqual([ids[2], ids[1]]);
    const revoked = await h.request('GET', `/v1/keys/${ids[0]}`, { key: tenant.keys.serviceTest });
    expect(revoked.body.key.revoked_at).not.toBeNull();
    expect((await h.request('GET', '/v1/keys?limit=101', { key: tenant.keys.serviceTest })).status).toBe(422);
    expect((await h.request('GET', '/v1/keys?offset=100001', { key: tenant.keys.serviceTest })).status).toBe(422);
  });

  it('keeps other users, workspaces and environments out', async () => {
    const id = (await mint({ name: 'mine' })).body.key.id;
    const other = await createTenant(h.db);
    expect((await h.request('GET', `/v1/keys/${id}`, { key: other.keys.serviceTest })).status).toBe(404);
    expect((await h.request('GET', `/v1/keys/${id}`, { key: tenant.keys.serviceLive })).status).toBe(404);
    expect((await h.request('GET', '/v1/keys', { key: tenant.keys.serviceLive })).body.total).toBe(0);
  });

  it('accepts service keys only, and service keys only here', async () => {
    const res = await h.request('GET', '/v1/keys', { key: tenant.keys.test });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('updates name, label, binding, tier and cap; null clears; legacy_full is refused', async () => {
    const line = await lines.create();
    const created = (await mint({ name: 'a', agent_label: 'x', monthly_cap_cents: 500 })).body.key;
    const patch = (body: unknown) => h.request('PATCH', `/api/v1/keys/${created.id}`, { key: tenant.keys.serviceTest, body });
    const bound = await patch({ name: 'b', line_id: line.id, permissions: 'read_only' });
    expect(bound.status).toBe(200);
    expect(bound.body.key).toMatchObject({
      name: 'b',
      line_id: line.id,
      permissions: 'read_only',
      agent_label: 'x',
      monthly_cap_cents: 500,
    });
    const cleared = await patch({ agent_label: null, line_id: null, monthly_cap_cents: null });
    expect(cleared.body.key).toMatchObject({ agent_label: null, line_id: null, monthly_cap_cents: null });
    expect((await patch({ permissions: 'legacy_full' })).status).toBe(422);
    expect((await patch({ line_id: crypto.randomUUID() })).status).toBe(404);
    expect((await events('agent_key_updated')).length).toBe(2);
  });

  it('revokes softly: the very next request with the key fails, the row stays readable', async () => {
    const created = (await mint({ name: 'a' })).body.key;
    expect((await h.request('GET', '/api/v1/lines', { key: created.plaintext_key })).status).toBe(200);
    const deleted = await h.request('DELETE', `/v1/keys/${created.id}`, { key: tenant.keys.serviceTest });
    expect(deleted.status).toBe(200);
    expect(deleted.body.key.revoked_at).not.toBeNull();
    expect((await h.request('GET', '/api/v1/lines', { key: created.plaintext_key })).status).toBe(401);
    expect(
      (await h.request('PATCH', `/v1/keys/${created.id}`, { key: tenant.keys.serviceTest, body: { name: 'z' } })).body.error.code,
    ).toBe('key_revoked');
    expect((await events('agent_key_revoked')).length).toBe(1);
  });

  describe('rotation', () => {
    const rotate = (id: string, key = idem(), path = `/v1/keys/${id}/rotate`) =>
      h.request('POST', path, { key: tenant.keys.serviceTest, headers: { 'idempotency-key': key } });

    it('replaces the key with the same settings, revoking the old one at once', async () => {
      const line = await lines.create();
      const old = (await mint({ name: 'a', agent_label: 'bot', line_id: line.id, permissions: 'call_only', monthly_cap_cents: 700 })).body
        .key;
      const res = await rotate(old.id);
      expect(res.status).toBe(201);
      expect(res.body.key).toMatchObject({
        name: 'a',
        agent_label: 'bot',
        line_id: line.id,
        permissions: 'call_only',
        monthly_cap_cents: 700,
        rotated_from: old.id,
      });
      expect(res.body.key.plaintext_key).toMatch(/^sk_test_/);
      expect((await h.request('GET', '/api/v1/lines', { key: old.plaintext_key })).status).toBe(401);
      expect((await h.request('GET', '/api/v1/lines', { key: res.body.key.plaintext_key })).status).toBe(200);
      expect((await h.request('GET', `/v1/keys/${old.id}`, { key: tenant.keys.serviceTest })).body.key.revoked_at).not.toBeNull();
      expect((await events('agent_key_rotated'))[0].metadata.rotated_from).toBe(old.id);
    });

    it('requires an Idempotency-Key and replays without the plaintext; another key with it is reused', async () => {
      const a = (await mint({ name: 'a' })).body.key;
      const b = (await mint({ name: 'b' })).body.key;
      expect((await h.request('POST', `/v1/keys/${a.id}/rotate`, { key: tenant.keys.serviceTest })).body.error.code).toBe(
        'missing_idempotency_key',
      );
      const key = idem();
      const first = await rotate(a.id, key);
      const replay = await rotate(a.id, key, `/api/v1/keys/${a.id}/rotate`);
      expect(replay.status).toBe(201);
      const { plaintext_key: _omitted, ...row } = first.body.key;
      expect(replay.body).toEqual({ key: row });
      const reused = await rotate(b.id, key);
      expect(reused.status).toBe(409);
      expect(reused.body.error.code).toBe('idempotency_key_reused');
    });

    it('two racing rotations: one winner, the other finds the key revoked', async () => {
      const old = (await mint({ name: 'a' })).body.key;
      const results = await Promise.all([rotate(old.id), rotate(old.id)]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(results.find((r) => r.status === 409)!.body.error.code).toBe('key_revoked');
      expect(await h.db('api_keys').where({ rotated_from: old.id }).count('id as n')).toEqual([{ n: '1' }]);
    });

    it('is all or nothing: a failure while minting the replacement leaves the old key active', async () => {
      const old = (await mint({ name: 'a' })).body.key;
      const fn = `fail_rotation_${crypto.randomBytes(4).toString('hex')}`;
      await h.db.raw(
        `create function ${fn}() returns trigger language plpgsql as $$ begin if new.rotated_from = '${old.id}' then raise exception 'injected failure'; end if; return new; end $$`,
      );
      await h.db.raw(`create trigger ${fn} before insert on api_keys for each row execute function ${fn}()`);
      try {
        const res = await rotate(old.id);
        expect(res.status).toBe(500);
        expect(res.body.error.code).toBe('internal_error');
      } finally {
        await h.db.raw(`drop trigger ${fn} on api_keys`);
        await h.db.raw(`drop function ${fn}()`);
      }
      expect((await h.request('GET', `/v1/keys/${old.id}`, { key: tenant.keys.serviceTest })).body.key.revoked_at).toBeNull();
      expect((await h.request('GET', '/api/v1/lines', { key: old.plaintext_key })).status).toBe(200);
      expect(await h.db('api_keys').where({ rotated_from: old.id }).count('id as n')).toEqual([{ n: '0' }]);
      expect(await events('agent_key_rotated')).toEqual([]);
      // The failed attempt was not cached: the same request can be retried.
      expect((await rotate(old.id)).status).toBe(201);
    });

    it('404 for a key that is not this user’s', async () => {
      const other = await createTenant(h.db);
      const theirs = (
        await h.request('POST', '/v1/keys', { key: other.keys.serviceTest, body: { name: 'x' }, headers: { 'idempotency-key': idem() } })
      ).body.key;
      expect((await rotate(theirs.id)).status).toBe(404);
    });
  });

  describe('permission tiers', () => {
    it.each([
      ['read_only', 'GET', '/api/v1/lines', 200],
      ['read_only', 'POST', '/api/v1/lines', 403],
      ['call_only', 'POST', '/api/v1/lines', 403],
      ['sms_only', 'POST', '/api/v1/lines', 403],
      ['full', 'POST', '/api/v1/lines', 201],
    ])('a %s key: %s %s -> %i', async (tier, method, path, status) => {
      const key = (await mint({ name: tier, permissions: tier })).body.key.plaintext_key;
      const res = await h.request(method, path, { key, body: method === 'POST' ? webhookLine() : undefined });
      expect(res.status).toBe(status);
      if (status === 403) {
        expect(res.body.error.code).toBe('agent_permission_denied');
        expect(res.body.error.details).toEqual([
          { field: 'tier', message: tier },
          { field: 'verb', message: 'admin' },
        ]);
        const [event] = await events('agent_key_permission_denied');
        expect(event.metadata).toMatchObject({ tier, verb: 'admin' });
      }
    });
  });

  describe('line-scoped keys', () => {
    it('see only their own line', async () => {
      const mine = await lines.create();
      const other = await lines.create();
      const key = (await mint({ name: 'scoped', line_id: mine.id })).body.key.plaintext_key;
      const list = await h.request('GET', '/api/v1/lines', { key });
      expect(list.body.lines.map((l: { id: string }) => l.id)).toEqual([mine.id]);
      expect((await h.request('GET', `/api/v1/lines/${mine.id}`, { key })).status).toBe(200);
      const denied = await h.request('GET', `/api/v1/lines/${other.id}`, { key });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'agent_scope_error', details: [{ field: 'line_id', message: mine.id }] });
      const create = await h.request('POST', '/api/v1/lines', { key, body: webhookLine() });
      expect(create.body.error.code).toBe('agent_scope_error');
    });
  });
});
