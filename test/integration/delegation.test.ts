import crypto from 'node:crypto';
import { placeHold, settleHold, type HoldOutcome } from '../../src/domain/billing/holds';
import type { BillingTenant } from '../../src/domain/billing/ledger';
import { runCommand } from '../../src/main/cli';
import { ROLE_PRESETS, SCOPES } from '../../src/domain/keys/scopes';
import { insertKey, type ApiKeyRow } from '../../src/domain/keys/store';
import { addUser } from '../../src/domain/workspaces/service';
import { customer } from '../support/customer';
import { mintKey, webhookLine } from '../support/harness';
import { creditAccount, spendOnCalls } from '../support/ledger';
import { useSuite } from '../support/suite';

/**
 * Delegation as an attacker would probe it (issue #12: C2, M3-M6, H4, L2, D19, L8): every path
 * that mints, changes, rotates or revokes a key, and what a delegated key may reach.
 */
describe('delegation', () => {
  const ctx = useSuite({ worker: true });
  const { h, tenant } = ctx;
  let account: BillingTenant;
  beforeEach(() => {
    account = { workspaceId: tenant.workspaceId, environment: 'test' };
  });

  const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
  const asOwner = customer(ctx);
  const mintToken = (key: string, name: string, grant: Record<string, unknown>) =>
    h.request('POST', '/api-tokens', { key, body: { name, grant } });
  /** A child of the owner's root key through /api-tokens: `{id, key}`. */
  const delegate = async (grant: Record<string, unknown>, parent = tenant.keys.test) => {
    const res = await mintToken(parent, 'delegate', grant);
    expect(res.status).toBe(201);
    return { id: res.body.api_token.id as string, key: res.body.key as string };
  };
  const agentKey = async (body: Record<string, unknown> = {}, svc = tenant.keys.serviceTest) => {
    const res = await h.request('POST', '/v1/keys', { key: svc, body: { name: 'agent', ...body }, headers: idem() });
    expect(res.status).toBe(201);
    return res.body.key as { id: string; plaintext_key: string };
  };
  const keyCount = async () => Number((await h.db('api_keys').where({ workspace_id: tenant.workspaceId }).count('id as n'))[0].n);
  /** Whether the key still authenticates (a 403 for a missing scope is still a live key). */
  const alive = async (key: string) => (await h.request('GET', '/api/v1/voices', { key })).status !== 401;
  const credit = (cents: number) => creditAccount(h.db, account, cents);
  const hold = (keyId: string, amountCents: number) =>
    placeHold(h.db, { tenant: account, keyId, reference: `call:${crypto.randomUUID()}`, amountCents, at: new Date() });
  const spend = async (keyId: string, cents: number) => {
    const reference = `call:${crypto.randomUUID()}`;
    expect((await placeHold(h.db, { tenant: account, keyId, reference, amountCents: cents, at: new Date() })).ok).toBe(true);
    await settleHold(h.db, { tenant: account, reference, chargeCents: cents, type: 'call_charge', description: 'Call', at: new Date() });
  };

  describe('C2: one grant check on every minting path', () => {
    it('the issue’s exploit: a narrow keys:admin key gets no key that can GET /api/v1/calls through /api/v1/auth/keys', async () => {
      const lineA = (await asOwner.lines.create()).id;
      const partner = await delegate({
        scopes: ['keys:admin', 'numbers:read'],
        resources: { numbers: [lineA] },
        spendLimit: { amountCents: 100 },
      });
      expect((await h.request('GET', '/api/v1/calls', { key: partner.key })).status).toBe(403);
      const before = await keyCount();
      for (const body of [
        { name: 'x' },
        { name: 'x', permissions: 'full' },
        { name: 'x', permissions: 'call_only' },
        { name: 'x', permissions: 'read_only', line_id: lineA, monthly_cap_cents: 50 },
      ]) {
        const res = await h.request('POST', '/api/v1/auth/keys', { key: partner.key, body });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain('permissions');
        expect(res.body.key).toBeUndefined();
      }
      expect(await keyCount()).toBe(before);
    });

    it('a restricted minter’s /api/v1/auth/keys child inherits its allow-list and spend limit and names it as parent', async () => {
      const [lineA, lineB] = [(await asOwner.lines.create()).id, (await asOwner.lines.create()).id];
      const minter = await delegate({
        scopes: ['keys:admin', 'numbers:read', 'connections:read', 'billing:read', 'read'],
        resources: { numbers: [lineA] },
        spendLimit: { amountCents: 100, resetPeriod: null },
      });
      const res = await h.request('POST', '/api/v1/auth/keys', {
        key: minter.key,
        body: { name: 'reader', permissions: 'read_only', monthly_cap_cents: 50 },
      });
      expect(res.status).toBe(201);
      expect(res.body.key).toMatchObject({ parent_key_id: minter.id, permissions: 'read_only', monthly_cap_cents: 50, line_id: null });
      const child = res.body.key.plaintext_key;
      expect((await h.request('GET', `/api/v1/lines/${lineA}`, { key: child })).status).toBe(200);
      expect((await h.request('GET', `/api/v1/lines/${lineB}`, { key: child })).status).toBe(403);
      const listed = (await h.request('GET', '/api-tokens', { key: tenant.keys.test })).body.api_tokens.find(
        (t: { id: string }) => t.id === res.body.key.id,
      );
      expect(listed).toMatchObject({
        parent_key_id: minter.id,
        grant: { resources: { numbers: [lineA] }, spendLimit: { amountCents: 100, resetPeriod: null } },
      });
    });

    const ALL = [...SCOPES];
    // Each row: how the minter is restricted, the minting path, the field the refusal names, the
    // minter's grant (its allow-list is line A) and a request beyond it.
    type Lines = { a: string; b: string };
    const refusals: Array<
      [string, 'api-tokens' | 'auth-keys', string, Record<string, unknown>, (lines: Lines) => Record<string, unknown>]
    > = [
      [
        'scopes',
        'api-tokens',
        'grant.scopes',
        { scopes: ['keys:admin', 'numbers:read'] },
        () => ({ name: 'c', grant: { scopes: ['calls:create'] } }),
      ],
      ['scopes (default tier full)', 'auth-keys', 'permissions', { scopes: ['keys:admin', 'numbers:read'] }, () => ({ name: 'c' })],
      [
        'scopes (tier read_only)',
        'auth-keys',
        'permissions',
        { scopes: ['keys:admin', 'numbers:read', 'read'] },
        () => ({ name: 'c', permissions: 'read_only' }),
      ],
      [
        'allow-list (child without one)',
        'api-tokens',
        'grant.resources.numbers',
        { scopes: ALL, resources: {} },
        () => ({ name: 'c', grant: { scopes: ['read'] } }),
      ],
      [
        'allow-list (a line outside it)',
        'api-tokens',
        'grant.resources.numbers',
        { scopes: ALL, resources: {} },
        ({ a, b }) => ({ name: 'c', grant: { scopes: ['read'], resources: { numbers: [a, b] } } }),
      ],
      ['allow-list (line_id outside it)', 'auth-keys', 'line_id', { scopes: ALL, resources: {} }, ({ b }) => ({ name: 'c', line_id: b })],
      [
        'lifetime cap (child without one)',
        'api-tokens',
        'grant.spendLimit',
        { scopes: ALL, spendLimit: { amountCents: 100 } },
        () => ({ name: 'c', grant: { scopes: ['read'] } }),
      ],
      [
        'lifetime cap (a larger one)',
        'api-tokens',
        'grant.spendLimit',
        { scopes: ALL, spendLimit: { amountCents: 100 } },
        () => ({ name: 'c', grant: { scopes: ['read'], spendLimit: { amountCents: 101 } } }),
      ],
      [
        'lifetime cap (a larger monthly cap)',
        'auth-keys',
        'monthly_cap_cents',
        { scopes: ALL, spendLimit: { amountCents: 100 } },
        () => ({ name: 'c', monthly_cap_cents: 101 }),
      ],
      [
        'monthly cap (a larger one)',
        'api-tokens',
        'grant.spendLimit',
        { scopes: ALL, spendLimit: { amountCents: 100, resetPeriod: 'monthly' } },
        () => ({ name: 'c', grant: { scopes: ['read'], spendLimit: { amountCents: 500, resetPeriod: 'monthly' } } }),
      ],
      [
        'monthly cap (a larger monthly cap)',
        'auth-keys',
        'monthly_cap_cents',
        { scopes: ALL, spendLimit: { amountCents: 100, resetPeriod: 'monthly' } },
        () => ({ name: 'c', monthly_cap_cents: 500 }),
      ],
    ];
    it.each(refusals)('a minter restricted by %s, on %s: 403 naming %s, nothing written', async (_what, path, field, grant, request) => {
      const lines = { a: (await asOwner.lines.create()).id, b: (await asOwner.lines.create()).id };
      const resources = grant.resources ? { resources: { numbers: [lines.a] } } : {};
      const minter = await delegate({ ...grant, ...resources });
      const before = await keyCount();
      const res = await h.request('POST', path === 'api-tokens' ? '/api-tokens' : '/api/v1/auth/keys', {
        key: minter.key,
        body: request(lines),
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden' });
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
      expect(await keyCount()).toBe(before);
    });

    it('the keys plane never mints beyond the service key’s user: mint, PATCH and rotate of a member’s service key stay within the member preset', async () => {
      const member = await addUser(h.db, {
        workspaceId: tenant.workspaceId,
        email: `m+${crypto.randomUUID()}@example.test`,
        role: 'member',
      });
      const svc = String(
        (await runCommand(h.db, ['service-key', 'create'], { workspace: tenant.workspaceId, user: member.id, env: 'test' })).key,
      );
      const minted = await agentKey({ permissions: 'read_only' }, svc);
      const patched = await h.request('PATCH', `/v1/keys/${minted.id}`, { key: svc, body: { permissions: 'full' } });
      expect(patched.status).toBe(200);
      const rotated = await h.request('POST', `/v1/keys/${minted.id}/rotate`, { key: svc, headers: idem() });
      expect(rotated.status).toBe(201);
      const stored = await h.db<ApiKeyRow>('api_keys').whereIn('id', [minted.id, rotated.body.key.id]);
      for (const row of stored)
        // Within the member preset (test/unit/keys.test.ts pins the preset to the spec's list).
        expect(row.scopes.filter((s) => !(ROLE_PRESETS.member as readonly string[]).includes(s))).toEqual([]);
      const refused = await h.request('POST', '/api/v1/lines', { key: rotated.body.key.plaintext_key, body: webhookLine() });
      expect(refused.status).toBe(403);
      expect(refused.body.error.details).toEqual([{ field: 'scope', message: 'numbers:provision' }]);
    });

    it('every minted key names its minter: /api-tokens and /api/v1/auth/keys children are never roots', async () => {
      const viaTokens = await delegate({ scopes: ['read'] });
      const viaAuthKeys = (await h.request('POST', '/api/v1/auth/keys', { key: tenant.keys.test, body: { name: 'k' } })).body.key;
      const owner = await h
        .db<ApiKeyRow>('api_keys')
        .where({ workspace_id: tenant.workspaceId, environment: 'test', kind: 'standard' })
        .whereNull('parent_key_id')
        .first();
      const rows = await h.db<ApiKeyRow>('api_keys').whereIn('id', [viaTokens.id, viaAuthKeys.id]);
      for (const row of rows) expect(row).toMatchObject({ parent_key_id: owner!.id, ancestor_ids: [owner!.id] });
    });

    it('/api-tokens minting is limited to 60 per hour per workspace and environment, shared with /api/v1/auth/keys', async () => {
      for (let i = 0; i < 59; i += 1) expect((await mintToken(tenant.keys.test, `k${i}`, { scopes: ['read'] })).status).toBe(201);
      expect((await h.request('POST', '/api/v1/auth/keys', { key: tenant.keys.test, body: { name: 'last' } })).status).toBe(201);
      const limited = await mintToken(tenant.keys.test, 'one too many', { scopes: ['read'] });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('ratelimit-policy')).toBe('60;w=3600');
      expect((await h.request('POST', '/api/v1/auth/keys', { key: tenant.keys.test, body: { name: 'x' } })).status).toBe(429);
    });
  });

  describe('M6: revocation takes the subtree', () => {
    it('a leaked keys:admin key mints children, is revoked, and the children stop working at once', async () => {
      const leaked = await delegate({ scopes: ['keys:admin', 'numbers:read', 'connections:read', 'billing:read', 'read'] });
      const child = await delegate({ scopes: ['keys:admin', 'billing:read', 'read'] }, leaked.key);
      const grandchild = await delegate({ scopes: ['billing:read'] }, child.key);
      const viaAuthKeys = (
        await h.request('POST', '/api/v1/auth/keys', { key: leaked.key, body: { name: 'persist', permissions: 'read_only' } })
      ).body.key;
      for (const key of [leaked.key, child.key, grandchild.key, viaAuthKeys.plaintext_key]) expect(await alive(key)).toBe(true);

      const revoked = await h.request('POST', `/api-tokens/${leaked.id}/revoke`, { key: tenant.keys.test });
      expect(revoked.status).toBe(200);
      for (const key of [leaked.key, child.key, grandchild.key, viaAuthKeys.plaintext_key]) expect(await alive(key)).toBe(false);
      const events = await h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: 'scoped_key_revoked' });
      expect(events.map((e) => e.metadata.key_id).sort()).toEqual([leaked.id, child.id, grandchild.id, viaAuthKeys.id].sort());
      expect(events.filter((e) => e.metadata.revoked_with === leaked.id)).toHaveLength(3);
      expect(await alive(tenant.keys.test)).toBe(true);
    });

    it('revoking a service key (CLI) revokes the agent keys it minted', async () => {
      const svc = await runCommand(h.db, ['service-key', 'create'], { workspace: tenant.workspaceId, env: 'test' });
      const agents = [await agentKey({}, String(svc.key)), await agentKey({}, String(svc.key))];
      const other = await agentKey();
      const result = await runCommand(h.db, ['service-key', 'revoke'], { workspace: tenant.workspaceId, id: String(svc.id) });
      expect(result.revoked_agent_keys).toBe(2);
      for (const agent of agents) expect(await alive(agent.plaintext_key)).toBe(false);
      expect(await alive(other.plaintext_key)).toBe(true);
      const events = await h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: 'agent_key_revoked' });
      expect(events.map((e) => e.metadata.key_id).sort()).toEqual(agents.map((a) => a.id).sort());
    });

    it('DELETE /v1/keys/{id} and rotate revoke what the key minted (rotation moves nothing to the new key)', async () => {
      // Agent keys hold no keys:admin today; a child made under one directly stands for a future path.
      const underAgent = async (agentId: string) => {
        const agent = (await h.db<ApiKeyRow>('api_keys').where({ id: agentId }).first())!;
        return (
          await insertKey(h.db, {
            workspaceId: tenant.workspaceId,
            userId: tenant.owner.id,
            environment: 'test',
            kind: 'standard',
            name: 'below',
            scopes: ['read'],
            minter: agent,
          })
        ).plaintext;
      };
      const deleted = await agentKey();
      const belowDeleted = await underAgent(deleted.id);
      const rotatedAway = await agentKey();
      const belowRotated = await underAgent(rotatedAway.id);
      expect(await alive(belowDeleted)).toBe(true);
      expect((await h.request('DELETE', `/v1/keys/${deleted.id}`, { key: tenant.keys.serviceTest })).status).toBe(200);
      expect((await h.request('POST', `/v1/keys/${rotatedAway.id}/rotate`, { key: tenant.keys.serviceTest, headers: idem() })).status).toBe(
        201,
      );
      for (const key of [belowDeleted, belowRotated]) expect(await alive(key)).toBe(false);
    });

    it('a root key revokes any key within its own grant, never a broader one', async () => {
      const ownerKeyId = (await h
        .db<ApiKeyRow>('api_keys')
        .where({ workspace_id: tenant.workspaceId, environment: 'test', kind: 'standard' })
        .first())!.id;
      const narrowRoot = await mintKey(h.db, tenant.owner, 'test', ['keys:admin', 'read']);
      const broader = await h.request('POST', `/api-tokens/${ownerKeyId}/revoke`, { key: narrowRoot });
      expect(broader.status).toBe(403);
      expect(broader.body.error.details[0].field).toBe('grant.scopes');
      const within = await delegate({ scopes: ['read'] });
      expect((await h.request('POST', `/api-tokens/${within.id}/revoke`, { key: narrowRoot })).status).toBe(200);
      expect(await alive(within.key)).toBe(false);
    });

    it('refuses at authentication a key with a revoked ancestor, however it came to be', async () => {
      const parent = await delegate({ scopes: ['keys:admin', 'billing:read'] });
      const child = await delegate({ scopes: ['billing:read'] }, parent.key);
      // As a database from before revocation cascaded would hold it: the parent revoked alone.
      await h
        .db('api_keys')
        .where({ id: parent.id })
        .update({ revoked_at: new Date(Date.now() - 1000) });
      expect(await alive(child.key)).toBe(false);
    });
  });

  describe('H4: spend caps hold across delegation', () => {
    it('a $10 key mints many $10 children: together they cannot hold or spend more than $10', async () => {
      await credit(100_000);
      const parent = await delegate({ scopes: ['keys:admin', 'calls:create'], spendLimit: { amountCents: 1000 } });
      const children = [];
      for (let i = 0; i < 5; i += 1)
        children.push(await delegate({ scopes: ['keys:admin', 'calls:create'], spendLimit: { amountCents: 1000 } }, parent.key));
      const grandchild = await delegate({ scopes: ['calls:create'], spendLimit: { amountCents: 1000 } }, children[0].key);
      const holders = [...children, grandchild];
      const outcomes: HoldOutcome[] = await Promise.all(holders.flatMap((k) => [hold(k.id, 300), hold(k.id, 300)]));
      const granted = outcomes.filter((o) => o.ok);
      expect(granted).toHaveLength(3);
      expect(outcomes.find((o) => !o.ok)).toMatchObject({ refusal: { code: 'agent_cap_exceeded', capCents: 1000 } });
      // Settled spend counts too: the parent itself cannot spend what its children did.
      await spend(grandchild.id, 100);
      expect(await hold(parent.id, 1)).toMatchObject({
        ok: false,
        refusal: { code: 'agent_cap_exceeded', capCents: 1000, spentCents: 1000 },
      });
    });

    it('a parent that has used up its cap cannot mint new budget', async () => {
      await credit(100_000);
      const parent = await delegate({ scopes: ['keys:admin', 'calls:create'], spendLimit: { amountCents: 500 } });
      await spend(parent.id, 500);
      const fresh = await delegate({ scopes: ['calls:create'], spendLimit: { amountCents: 500 } }, parent.key);
      expect(await hold(fresh.id, 13)).toMatchObject({
        ok: false,
        refusal: { code: 'agent_cap_exceeded', spentCents: 500, capCents: 500, cycleResetAt: null },
      });
    });
  });

  describe('L2: a rotation does not reset the monthly cap', () => {
    it('spend is counted across the rotated_from chain, on holds and in monthly_spend_cents', async () => {
      await credit(100_000);
      const first = await agentKey({ monthly_cap_cents: 100 });
      await spend(first.id, 60);
      const second = (await h.request('POST', `/v1/keys/${first.id}/rotate`, { key: tenant.keys.serviceTest, headers: idem() })).body.key;
      expect(await hold(second.id, 50)).toMatchObject({
        ok: false,
        refusal: { code: 'agent_cap_exceeded', spentCents: 60, capCents: 100 },
      });
      const third = (await h.request('POST', `/v1/keys/${second.id}/rotate`, { key: tenant.keys.serviceTest, headers: idem() })).body.key;
      expect((await hold(third.id, 40)).ok).toBe(true);
      expect(await hold(third.id, 1)).toMatchObject({ ok: false, refusal: { spentCents: 100 } });
      const record = await h.request('GET', `/v1/keys/${third.id}`, { key: tenant.keys.serviceTest });
      expect(record.body.key.monthly_spend_cents).toBe(60);
      const listed = (await h.request('GET', '/v1/keys', { key: tenant.keys.serviceTest })).body.keys.find(
        (k: { id: string }) => k.id === third.id,
      );
      expect(listed.monthly_spend_cents).toBe(60);
    });
  });

  describe('D19: rotating a key bound to a released line', () => {
    it('is the binding 404, changes nothing, is not cached, and succeeds once the binding is fixed', async () => {
      const line = (await asOwner.lines.create()).id;
      const bound = await agentKey({ line_id: line });
      expect((await h.request('DELETE', `/api/v1/lines/${line}`, { key: tenant.keys.test })).status).toBe(200);
      const headers = idem();
      const refused = await h.request('POST', `/v1/keys/${bound.id}/rotate`, { key: tenant.keys.serviceTest, headers });
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('not_found');
      expect((await h.request('GET', `/v1/keys/${bound.id}`, { key: tenant.keys.serviceTest })).body.key.revoked_at).toBeNull();
      expect(await h.db('api_keys').where({ rotated_from: bound.id }).first()).toBeUndefined();
      expect((await h.request('PATCH', `/v1/keys/${bound.id}`, { key: tenant.keys.serviceTest, body: { line_id: null } })).status).toBe(
        200,
      );
      const retried = await h.request('POST', `/v1/keys/${bound.id}/rotate`, { key: tenant.keys.serviceTest, headers });
      expect(retried.status).toBe(201);
      expect(retried.body.key).toMatchObject({ rotated_from: bound.id, line_id: null });
    });
  });

  describe('M3: workspace settings', () => {
    it('only an unrestricted owner or admin key changes them; each change is a compliance event', async () => {
      const line = (await asOwner.lines.create()).id;
      const restricted = [
        await delegate({ scopes: [...SCOPES] }),
        await delegate({ scopes: [...SCOPES], resources: { numbers: [line] } }),
        await delegate({ scopes: [...SCOPES], spendLimit: { amountCents: 100 } }),
      ];
      for (const { key } of restricted) {
        const res = await h.request('PATCH', '/api/v1/settings', {
          key,
          body: { auto_recharge_amount_cents: 100_000, default_webhook_url: 'https://attacker.example.test/x' },
        });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(res.body.error.details[0].field).toBe('parent_key_id');
      }
      const agent = await agentKey();
      expect(
        (await h.request('PATCH', '/api/v1/settings', { key: agent.plaintext_key, body: { auto_recharge_enabled: false } })).status,
      ).toBe(403);
      expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body).toMatchObject({
        default_webhook_url: null,
        auto_recharge_amount_cents: 2000,
      });

      const changed = await h.request('PATCH', '/api/v1/settings', {
        key: tenant.keys.test,
        body: { auto_recharge_amount_cents: 5000, default_webhook_url: 'https://hooks.example.test/all?token=secret' },
      });
      expect(changed.status).toBe(200);
      const [event] = await h.db('compliance_events').where({ workspace_id: tenant.workspaceId, event_type: 'settings_changed' });
      expect(event.metadata).toEqual({
        changed: {
          auto_recharge_amount_cents: { from: 2000, to: 5000 },
          default_webhook_url: { from: null, to: 'https://hooks.example.test' },
        },
      });
    });

    it('caps an automatic recharge (and its threshold) at $1,000', async () => {
      for (const body of [{ auto_recharge_amount_cents: 100_001 }, { auto_recharge_threshold_cents: 100_001 }]) {
        expect((await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body })).status).toBe(422);
      }
      expect(
        (await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { auto_recharge_amount_cents: 100_000 } })).status,
      ).toBe(200);
    });
  });

  describe('M4: workspace-wide disclosures', () => {
    it('a line-bound or allow-listed key cannot write them; a new default is a compliance event', async () => {
      const line = (await asOwner.lines.create()).id;
      const bound = await agentKey({ line_id: line });
      const boundRes = await h.request('POST', '/api/v1/disclosures', {
        key: bound.plaintext_key,
        body: { message: 'Hi!', is_default: true },
      });
      expect(boundRes.status).toBe(403);
      expect(boundRes.body.error).toMatchObject({ code: 'agent_scope_error', details: [{ field: 'line_id', message: line }] });
      const listed = await delegate({ scopes: ['consent:write', 'read'], resources: { numbers: [line] } });
      const listedRes = await h.request('POST', '/api/v1/disclosures', { key: listed.key, body: { message: 'Hi!' } });
      expect(listedRes.status).toBe(403);
      expect(listedRes.body.error.code).toBe('forbidden');
      expect((await h.request('GET', '/api/v1/disclosures', { key: tenant.keys.test })).body.disclosures).toEqual([]);

      const first = (await h.request('POST', '/api/v1/disclosures', { key: tenant.keys.test, body: { message: 'This call uses AI.' } }))
        .body.disclosure;
      await h.request('POST', '/api/v1/disclosures', { key: tenant.keys.test, body: { message: 'Not the default.', is_default: false } });
      const second = (
        await h.request('POST', '/api/v1/disclosures', {
          key: tenant.keys.test,
          body: { message: 'You are talking to an AI.', is_default: true },
        })
      ).body.disclosure;
      const events = await h
        .db('compliance_events')
        .where({ workspace_id: tenant.workspaceId, event_type: 'disclosure_default_changed' })
        .orderBy('created_at');
      expect(events.map((e) => e.metadata)).toEqual([
        { language: 'en', disclosure_id: first.id, previous_disclosure_id: null },
        { language: 'en', disclosure_id: second.id, previous_disclosure_id: first.id },
      ]);
    });
  });

  describe('M5: what a delegated key may read', () => {
    const feed = (key: string, target: string) => h.request('GET', `/api/v1/audit?api_key_id=${target}`, { key });

    it('a delegated or allow-listed key reads only itself and its descendants; the owner’s key is 404', async () => {
      const line = (await asOwner.lines.create()).id;
      const ownerKeyId = (await h
        .db<ApiKeyRow>('api_keys')
        .where({ workspace_id: tenant.workspaceId, environment: 'test', kind: 'standard' })
        .whereNull('parent_key_id')
        .first())!.id;
      const listed = await delegate({ scopes: ['keys:admin', 'read'], resources: { numbers: [line] } });
      const sibling = await delegate({ scopes: ['read'] });
      const own = await delegate({ scopes: ['read'], resources: { numbers: [line] } }, listed.key);
      expect((await feed(listed.key, ownerKeyId)).status).toBe(404);
      expect((await feed(listed.key, sibling.id)).status).toBe(404);
      const mine = await feed(listed.key, own.id);
      expect(mine.status).toBe(200);
      expect(mine.body.api_key_id).toBe(own.id);
      expect((await feed(own.key, listed.id)).status).toBe(404);
      // A root key reads any key of its user and environment.
      expect((await feed(tenant.keys.test, own.id)).status).toBe(200);
    });

    it('a service key is never a target, not even for a root key', async () => {
      const svcId = (await h
        .db<ApiKeyRow>('api_keys')
        .where({ workspace_id: tenant.workspaceId, environment: 'test', kind: 'service' })
        .first())!.id;
      const res = await feed(tenant.keys.test, svcId);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });

    it('GET /api/v1/billing/transactions shows an allow-listed key its lines’ transactions only', async () => {
      const [lineA, lineB] = [(await asOwner.lines.create()).id, (await asOwner.lines.create()).id];
      for (const lineId of [lineA, lineB]) {
        await spendOnCalls(h.db, account, 13, { lineId });
      }
      const listed = await delegate({ scopes: ['billing:read'], resources: { numbers: [lineA] } });
      const res = await h.request('GET', '/api/v1/billing/transactions', { key: listed.key });
      expect(res.status).toBe(200);
      const lineOf = async (id: string) => (await h.db('ledger_transactions').where({ id }).first('line_id')).line_id;
      expect(await Promise.all(res.body.transactions.map((t: { id: string }) => lineOf(t.id)))).toEqual([lineA]);
      expect((await h.request('GET', '/api/v1/billing/transactions', { key: tenant.keys.test })).body.transactions).toHaveLength(3);
    });

    it('key lists show a delegated key only its own subtree; /api-tokens revoke of anything else is 404', async () => {
      const parent = await delegate({ scopes: ['keys:admin', 'read'] });
      const child = await delegate({ scopes: ['read'] }, parent.key);
      const stranger = await delegate({ scopes: ['read'] });
      const tokens = await h.request('GET', '/api-tokens', { key: parent.key });
      expect(tokens.body.api_tokens.map((t: { id: string }) => t.id).sort()).toEqual([parent.id, child.id].sort());
      expect(tokens.body.total).toBe(2);
      const authKeys = await h.request('GET', '/api/v1/auth/keys', { key: parent.key });
      expect(authKeys.body.keys.map((t: { id: string }) => t.id).sort()).toEqual([parent.id, child.id].sort());
      expect((await h.request('POST', `/api-tokens/${stranger.id}/revoke`, { key: parent.key })).status).toBe(404);
      expect(await alive(stranger.key)).toBe(true);
    });
  });

  describe('L8: key lists are bounded', () => {
    it('GET /api/v1/auth/keys pages with limit (default 50, at most 100) and offset, with a total', async () => {
      for (let i = 0; i < 3; i += 1) await h.request('POST', '/api/v1/auth/keys', { key: tenant.keys.test, body: { name: `k${i}` } });
      const page = await h.request('GET', '/api/v1/auth/keys?limit=2&offset=1', { key: tenant.keys.test });
      expect(page.status).toBe(200);
      expect(page.body.keys).toHaveLength(2);
      expect(page.body.total).toBe(4);
      expect((await h.request('GET', '/api/v1/auth/keys?limit=101', { key: tenant.keys.test })).status).toBe(422);
      expect((await h.request('GET', '/api-tokens?limit=101', { key: tenant.keys.test })).status).toBe(422);
    });
  });
});
