import crypto from 'node:crypto';
import { addUser } from '../../src/domain/workspaces/service';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { mintKey, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/** Scoped-key delegation (`/api-tokens`) and the older `/api/v1/auth/keys`. */
describe('scoped key delegation', () => {
  const { h, tenant } = useSuite({ worker: true });

  const mintToken = (key: string, body: unknown) => h.request('POST', '/api-tokens', { key, body });
  const events = (type: string) => h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: type });

  it('mints a child within the grant; the plaintext works for exactly its scopes', async () => {
    const res = await mintToken(tenant.keys.test, { name: 'reader', grant: { scopes: ['numbers:read'] } });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^sk_test_/);
    expect(res.body.api_token).toMatchObject({
      name: 'reader',
      environment: 'test',
      grant: { scopes: ['numbers:read'], spendLimit: null },
      revoked_at: null,
    });
    expect((await h.request('GET', '/api/v1/lines', { key: res.body.key })).status).toBe(200);
    const refused = await h.request('POST', '/api/v1/lines', { key: res.body.key, body: webhookLine() });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual([{ field: 'scope', message: 'numbers:provision' }]);
    expect((await events('scoped_key_minted')).length).toBe(1);
  });

  it('needs keys:admin', async () => {
    const key = await mintKey(h.db, tenant.owner, 'test', ['numbers:read', 'read']);
    const res = await mintToken(key, { name: 'x', grant: { scopes: ['read'] } });
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual([{ field: 'scope', message: 'keys:admin' }]);
  });

  it('refuses scopes the minting key does not hold, naming them', async () => {
    const admin = await mintKey(h.db, tenant.owner, 'test', ['keys:admin', 'read']);
    const res = await mintToken(admin, { name: 'x', grant: { scopes: ['read', 'calls:create'] } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      code: 'forbidden',
      details: [{ field: 'grant.scopes', message: 'Not held by the minting key: calls:create' }],
    });
  });

  it('keeps number allow-lists and spend limits within the parent’s', async () => {
    const lineA = (await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() })).body.line.id;
    const lineB = (await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() })).body.line.id;
    const parent = await mintToken(tenant.keys.test, {
      name: 'parent',
      grant: {
        scopes: ['keys:admin', 'numbers:read'],
        resources: { numbers: [lineA] },
        spendLimit: { amountCents: 1000, resetPeriod: null },
      },
    });
    expect(parent.status).toBe(201);
    const key = parent.body.key;
    const cases: Array<[unknown, string]> = [
      [{ scopes: ['numbers:read'], spendLimit: { amountCents: 500, resetPeriod: null } }, 'grant.resources.numbers'],
      [{ scopes: ['numbers:read'], resources: { numbers: [lineA, lineB] }, spendLimit: { amountCents: 500 } }, 'grant.resources.numbers'],
      [{ scopes: ['numbers:read'], resources: { numbers: [lineA] } }, 'grant.spendLimit'],
      [{ scopes: ['numbers:read'], resources: { numbers: [lineA] }, spendLimit: { amountCents: 1001 } }, 'grant.spendLimit'],
      [
        { scopes: ['numbers:read'], resources: { numbers: [lineA] }, spendLimit: { amountCents: 100, resetPeriod: 'monthly' } },
        'grant.spendLimit',
      ],
    ];
    for (const [grant, field] of cases) {
      const res = await mintToken(key, { name: 'child', grant });
      expect(res.status).toBe(403);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
    const ok = await mintToken(key, {
      name: 'child',
      grant: { scopes: ['numbers:read'], resources: { numbers: [lineA] }, spendLimit: { amountCents: 1000, resetPeriod: null } },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.api_token.parent_key_id).toBe(parent.body.api_token.id);

    // The allow-list holds on number-scoped actions: lists are filtered, other lines refused.
    const child = ok.body.key;
    expect((await h.request('GET', '/api/v1/lines', { key: child })).body.lines.map((l: { id: string }) => l.id)).toEqual([lineA]);
    expect((await h.request('GET', `/api/v1/lines/${lineA}`, { key: child })).status).toBe(200);
    const denied = await h.request('GET', `/api/v1/lines/${lineB}`, { key: child });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
  });

  it('refuses an allow-list naming lines the workspace does not have', async () => {
    const res = await mintToken(tenant.keys.test, {
      name: 'x',
      grant: { scopes: ['read'], resources: { numbers: [crypto.randomUUID()] } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe('grant.resources.numbers');
  });

  it('validates the grant shape', async () => {
    for (const grant of [
      { scopes: [] },
      { scopes: ['telepathy'] },
      { scopes: ['read'], spendLimit: { amountCents: -1 } },
      { scopes: ['read'], spendLimit: { amountCents: 1, resetPeriod: 'weekly' } },
    ]) {
      expect((await mintToken(tenant.keys.test, { name: 'x', grant })).status).toBe(422);
    }
  });

  it('lists and revokes; a revoked token fails on its next request; keys outside a delegated key’s subtree cannot be revoked', async () => {
    const child = (await mintToken(tenant.keys.test, { name: 'child', grant: { scopes: ['keys:admin', 'numbers:read'] } })).body;
    const list = await h.request('GET', '/api-tokens', { key: tenant.keys.test });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.api_tokens.map((t: { id: string }) => t.id)).toContain(child.api_token.id);

    const ownerKeyId = list.body.api_tokens.find((t: { id: string }) => t.id !== child.api_token.id).id;
    // Its parent is outside a delegated key's subtree: 404, as for a key that does not exist (M5).
    const upward = await h.request('POST', `/api-tokens/${ownerKeyId}/revoke`, { key: child.key });
    expect(upward.status).toBe(404);

    const revoked = await h.request('POST', `/api-tokens/${child.api_token.id}/revoke`, { key: tenant.keys.test });
    expect(revoked.status).toBe(200);
    expect(revoked.body.api_token.revoked_at).not.toBeNull();
    expect((await h.request('GET', '/api/v1/lines', { key: child.key })).status).toBe(401);
    expect((await events('scoped_key_revoked')).length).toBe(1);
    expect((await h.request('POST', `/api-tokens/${crypto.randomUUID()}/revoke`, { key: tenant.keys.test })).status).toBe(404);
  });

  it('replays a mint under an Idempotency-Key without the plaintext', async () => {
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const body = { name: 'x', grant: { scopes: ['read'] } };
    const first = await h.request('POST', '/api-tokens', { key: tenant.keys.test, body, headers });
    const again = await h.request('POST', '/api-tokens', { key: tenant.keys.test, body, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ api_token: first.body.api_token });
  });

  describe('/api/v1/auth/keys', () => {
    it('owners create and list regular keys; the plaintext is returned once', async () => {
      const created = await h.request('POST', '/api/v1/auth/keys', {
        key: tenant.keys.test,
        body: { name: 'ops', agent_label: 'ops', permissions: 'read_only' },
      });
      expect(created.status).toBe(201);
      expect(created.body.key).toMatchObject({ name: 'ops', permissions: 'read_only', plaintext_key: expect.stringMatching(/^sk_test_/) });
      expect((await h.request('GET', '/api/v1/lines', { key: created.body.key.plaintext_key })).status).toBe(200);
      const list = await h.request('GET', '/api/v1/auth/keys', { key: tenant.keys.test });
      const row = list.body.keys.find((k: { id: string }) => k.id === created.body.key.id);
      expect(row).toMatchObject({ agent_label: 'ops', permissions: 'read_only', monthly_spend_cents: 0 });
      expect(row.plaintext_key).toBeUndefined();
    });

    it('refuses members and unbindable lines', async () => {
      const adminWithoutRole = await addUser(h.db, {
        workspaceId: tenant.workspaceId,
        email: `m+${Date.now()}@example.test`,
        role: 'member',
      });
      const memberKey = (await mintUserKey(h.db, { user: adminWithoutRole, environment: 'test', kind: 'standard', name: 'm' })).plaintext;
      expect((await h.request('GET', '/api/v1/auth/keys', { key: memberKey })).status).toBe(403);
      const missingLine = await h.request('POST', '/api/v1/auth/keys', {
        key: tenant.keys.test,
        body: { name: 'x', line_id: crypto.randomUUID() },
      });
      expect(missingLine.status).toBe(404);
    });
  });
});
