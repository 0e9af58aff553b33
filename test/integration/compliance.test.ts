import crypto from 'node:crypto';
import { spendOnCalls } from '../support/ledger';
import { runCommand } from '../../src/main/cli';
import { isOptedOut } from '../../src/domain/compliance/optOuts';
import { customer } from '../support/customer';
import { createTenant } from '../support/harness';
import { useSuite } from '../support/suite';

describe('compliance plane', () => {
  const ctx = useSuite({ worker: true });
  const { h, tenant } = ctx;

  const { lines, agentKeys } = customer(ctx);
  const grant = (body: Record<string, unknown>, key = tenant.keys.test) => h.request('POST', '/api/v1/consent', { key, body });
  const agentKey = async (body: Record<string, unknown> = {}) => (await agentKeys.create({ name: 'agent', ...body })).body.key;

  describe('consent', () => {
    it('grants, checks, refuses a second active grant, and revokes; numbers are E.164, as the document says', async () => {
      const lineId = (await lines.create()).id;
      // The OpenAPI document's PhoneNumber pattern is what the API validates with: a formatted number is refused.
      const formatted = await grant({ line_id: lineId, phone_number: '+1 (415) 555-0123', consent_type: 'explicit_outbound' });
      expect(formatted.status).toBe(422);
      expect(formatted.body.error.details).toEqual([
        { field: 'phone_number', message: 'Must be a phone number in E.164 (+14155550123) with a length its country code allows' },
      ]);
      const granted = await grant({
        line_id: lineId,
        phone_number: '+14155550123',
        consent_type: 'explicit_outbound',
        source: 'web_form',
      });
      expect(granted.status).toBe(201);
      expect(granted.body.consent).toMatchObject({
        line_id: lineId,
        phone_number: '+14155550123',
        consent_type: 'explicit_outbound',
        status: 'active',
        revoked_at: null,
      });

      const again = await grant({ line_id: lineId, phone_number: '+14155550123', consent_type: 'explicit_outbound' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('consent_already_granted');
      // Another type for the same pair is its own grant.
      expect((await grant({ line_id: lineId, phone_number: '+14155550123', consent_type: 'implied_inbound' })).status).toBe(201);

      const check = await h.request('GET', `/api/v1/consent?phone_number=%2B14155550123&line_id=${lineId}&consent_type=explicit_outbound`, {
        key: tenant.keys.test,
      });
      expect(check.body).toEqual({ status: 'active', consent: granted.body.consent });
      const none = await h.request('GET', '/api/v1/consent?phone_number=%2B14155550199', { key: tenant.keys.test });
      expect(none.body).toEqual({ status: 'none', consent: null });

      const revoked = await h.request('DELETE', `/api/v1/consent?phone_number=%2B14155550123&line_id=${lineId}`, { key: tenant.keys.test });
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked).toBe(2);
      expect(revoked.body.consent).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
      expect(
        (await h.request('GET', `/api/v1/consent?phone_number=%2B14155550123&line_id=${lineId}`, { key: tenant.keys.test })).body.status,
      ).toBe('none');
      expect(
        (await h.request('DELETE', `/api/v1/consent?phone_number=%2B14155550123&line_id=${lineId}`, { key: tenant.keys.test })).status,
      ).toBe(404);
      // Granting again after a revocation is allowed.
      expect((await grant({ line_id: lineId, phone_number: '+14155550123', consent_type: 'explicit_outbound' })).status).toBe(201);

      const list = await h.request('GET', `/api/v1/consent?line_id=${lineId}&status=revoked`, { key: tenant.keys.test });
      expect(list.body.total).toBe(2);
    });

    it('validates numbers, types and lines', async () => {
      const lineId = (await lines.create()).id;
      expect(
        (await grant({ line_id: lineId, phone_number: 'not a number', consent_type: 'explicit_outbound' })).body.error.details,
      ).toEqual([{ field: 'phone_number', message: expect.stringContaining('E.164') }]);
      expect((await grant({ line_id: lineId, phone_number: '+14155550123', consent_type: 'verbal' })).status).toBe(422);
      expect((await grant({ line_id: crypto.randomUUID(), phone_number: '+14155550123', consent_type: 'explicit_outbound' })).status).toBe(
        404,
      );
      const other = (await lines.create({}, tenant.keys.live)).id;
      expect((await grant({ line_id: other, phone_number: '+14155550123', consent_type: 'explicit_outbound' })).status).toBe(404);
    });

    it('holds line-scoped keys to their line', async () => {
      const mine = (await lines.create()).id;
      const theirs = (await lines.create()).id;
      const key = (await agentKey({ line_id: mine })).plaintext_key;
      expect((await grant({ line_id: mine, phone_number: '+14155550123', consent_type: 'explicit_outbound' }, key)).status).toBe(201);
      const denied = await grant({ line_id: theirs, phone_number: '+14155550123', consent_type: 'explicit_outbound' }, key);
      expect(denied.body.error.code).toBe('agent_scope_error');
      await grant({ line_id: theirs, phone_number: '+14155550124', consent_type: 'explicit_outbound' });
      const listed = await h.request('GET', '/api/v1/consent', { key });
      expect(listed.body.consents.map((c: { line_id: string }) => c.line_id)).toEqual([mine]);
    });

    it('POST is limited to 100 per hour', async () => {
      const lineId = (await lines.create()).id;
      await h.db('rate_limit_windows').insert({
        bucket: `consent.create:ws:${tenant.workspaceId}:test`,
        hits: Array.from({ length: 100 }, () => h.clock.now()),
      });
      const res = await grant({ line_id: lineId, phone_number: '+14155550123', consent_type: 'explicit_outbound' });
      expect(res.status).toBe(429);
    });
  });

  describe('opt-outs', () => {
    it('the operator CLI opts numbers out and in, once each, with compliance events', async () => {
      const add = await runCommand(h.db, ['opt-out', 'add'], { workspace: tenant.workspaceId, env: 'test', number: '+1 415 555 0123' });
      expect(add).toEqual({ phone_number: '+14155550123', environment: 'test', opted_out: true, changed: true });
      expect(
        (await runCommand(h.db, ['opt-out', 'add'], { workspace: tenant.workspaceId, env: 'test', number: '+14155550123' })).changed,
      ).toBe(false);
      expect(await isOptedOut(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, '+14155550123')).toBe(true);
      expect(await isOptedOut(h.db, { workspaceId: tenant.workspaceId, environment: 'live' }, '+14155550123')).toBe(false);
      expect((await runCommand(h.db, ['opt-out', 'list'], { workspace: tenant.workspaceId, env: 'test' })).opt_outs).toHaveLength(1);
      expect(
        (await runCommand(h.db, ['opt-out', 'remove'], { workspace: tenant.workspaceId, env: 'test', number: '+14155550123' })).changed,
      ).toBe(true);
      expect(await isOptedOut(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, '+14155550123')).toBe(false);
      const audit = await h.request('GET', '/api/v1/compliance/audit?phone_number=%2B14155550123', { key: tenant.keys.test });
      expect(audit.body.events.map((e: { event_type: string }) => e.event_type)).toEqual(['opt_in', 'opt_out']);
      await expect(runCommand(h.db, ['opt-out', 'add'], { workspace: tenant.workspaceId, env: 'test', number: 'nope' })).rejects.toThrow(
        /not a valid phone number/,
      );
    });
  });

  describe('disclosures', () => {
    it('creates and lists; the first of a language is its default, a new default replaces it', async () => {
      const first = await h.request('POST', '/api/v1/disclosures', {
        key: tenant.keys.test,
        body: { message: 'This call uses an AI assistant.' },
      });
      expect(first.status).toBe(201);
      expect(first.body.disclosure).toMatchObject({ language: 'en', jurisdiction: 'US', is_default: true, audio_url: null });
      const second = await h.request('POST', '/api/v1/disclosures', {
        key: tenant.keys.test,
        body: { message: 'Esta llamada usa IA.', language: 'es', jurisdiction: 'ES' },
      });
      expect(second.body.disclosure.is_default).toBe(true);
      const replacement = await h.request('POST', '/api/v1/disclosures', {
        key: tenant.keys.test,
        body: { message: 'You are talking to an AI.', is_default: true },
      });
      const list = await h.request('GET', '/api/v1/disclosures', { key: tenant.keys.test });
      const defaults = list.body.disclosures
        .filter((d: { is_default: boolean }) => d.is_default)
        .map((d: { id: string }) => d.id)
        .sort();
      expect(defaults).toEqual([second.body.disclosure.id, replacement.body.disclosure.id].sort());
      expect((await h.request('POST', '/api/v1/disclosures', { key: tenant.keys.test, body: { message: '' } })).status).toBe(422);
      expect((await h.request('GET', '/api/v1/disclosures', { key: tenant.keys.live })).body.disclosures).toEqual([]);
    });
  });

  describe('compliance audit', () => {
    it('lists events with filters and pagination, at both paths', async () => {
      const lineId = (await lines.create()).id;
      await grant({ line_id: lineId, phone_number: '+14155550123', consent_type: 'explicit_outbound' });
      await h.request('DELETE', `/api/v1/consent?phone_number=%2B14155550123&line_id=${lineId}`, { key: tenant.keys.test });
      const granted = await grant({ line_id: lineId, phone_number: '+14155550124', consent_type: 'implied_inbound' });
      const newest = await h.request('GET', `/api/v1/compliance/audit?line_id=${lineId}&limit=1`, { key: tenant.keys.test });
      // The grant's audit event is written with the grant, naming it, by the key that made it.
      expect(newest.body.events[0]).toMatchObject({
        event_type: 'consent_granted',
        phone_number: '+14155550124',
        actor_key_id: expect.any(String),
        metadata: { consent_id: granted.body.consent.id, consent_type: 'implied_inbound', source: 'api' },
        created_at: granted.body.consent.granted_at,
      });
      for (const path of ['/api/v1/compliance/audit', '/api/v1/compliance/events']) {
        const all = await h.request('GET', `${path}?line_id=${lineId}`, { key: tenant.keys.test });
        expect(all.body.events.map((e: { event_type: string }) => e.event_type)).toEqual([
          'consent_granted',
          'consent_revoked',
          'consent_granted',
        ]);
        expect(all.body.total).toBe(3);
      }
      const byPhone = await h.request('GET', '/api/v1/compliance/audit?phone_number=%2B14155550123', { key: tenant.keys.test });
      expect(byPhone.body.total).toBe(2);
      const byType = await h.request('GET', '/api/v1/compliance/audit?event_type=consent_revoked&limit=1', { key: tenant.keys.test });
      expect(byType.body).toMatchObject({
        total: 1,
        events: [{ event_type: 'consent_revoked', phone_number: '+14155550123', line_id: lineId }],
      });
      const future = await h.request(
        'GET',
        `/api/v1/compliance/audit?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
        { key: tenant.keys.test },
      );
      expect(future.body.total).toBe(0);
      expect((await h.request('GET', '/api/v1/compliance/audit?from=yesterday', { key: tenant.keys.test })).status).toBe(422);
    });
  });

  describe('agent self-audit feed', () => {
    const feed = (key: string, query = '', path = '/api/v1/audit') => h.request('GET', `${path}${query}`, { key });

    it('returns the caller’s own activity, newest first, and records the read', async () => {
      const agent = await agentKey();
      const lineId = (await lines.create()).id;
      await grant({ line_id: lineId, phone_number: '+14155550123', consent_type: 'explicit_outbound' }, agent.plaintext_key);
      await spendOnCalls(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, 14, { actorKeyId: agent.id });
      const res = await feed(agent.plaintext_key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ limit: 100, api_key_id: agent.id });
      expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['billing_transaction', 'compliance_event']);
      expect(res.body.events[0]).toMatchObject({
        data: { transaction_type: 'call_charge', amount_cents: -14 },
        created_at: expect.any(String),
        createdAt: expect.any(String),
      });
      // The read itself is an event, visible on the next read.
      const next = await feed(agent.plaintext_key, '?event_types=compliance_event', '/v1/audit');
      expect(next.body.events[0].data.event_type).toBe('audit_read');
      expect(next.body.events[0].data.metadata).toMatchObject({ target_key_id: agent.id, returned: 2 });
    });

    it('excludes activity with no actor key (carrier-initiated)', async () => {
      const agent = await agentKey();
      await h.db('compliance_events').insert({
        workspace_id: tenant.workspaceId,
        environment: 'test',
        event_type: 'opt_out',
        actor_key_id: null,
        phone_number: '+14155550123',
        created_at: new Date(),
      });
      expect((await feed(agent.plaintext_key)).body.events).toEqual([]);
    });

    it('a root key reads another key of the same user and environment; anything else is 404', async () => {
      const wildcard = await agentKey();
      const sibling = await agentKey();
      const ok = await feed(tenant.keys.test, `?api_key_id=${sibling.id}`);
      expect(ok.status).toBe(200);
      expect(ok.body.api_key_id).toBe(sibling.id);
      // An agent key is minted by its service key: it reads only keys below it, not its siblings (M5).
      expect((await feed(wildcard.plaintext_key, `?api_key_id=${sibling.id}`)).status).toBe(404);
      const liveKey = await h.request('POST', '/v1/keys', {
        key: tenant.keys.serviceLive,
        body: { name: 'live' },
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
      const foreign = await createTenant(h.db);
      const foreignKey = await h.request('POST', '/v1/keys', {
        key: foreign.keys.serviceTest,
        body: { name: 'f' },
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
      for (const id of [liveKey.body.key.id, foreignKey.body.key.id, crypto.randomUUID()]) {
        const res = await feed(wildcard.plaintext_key, `?api_key_id=${id}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('a line-scoped key reads only itself: 403 agent_scope_error naming its line', async () => {
      const lineId = (await lines.create()).id;
      const scoped = await agentKey({ line_id: lineId });
      const sibling = await agentKey();
      expect((await feed(scoped.plaintext_key, `?api_key_id=${scoped.id}`)).status).toBe(200);
      for (const id of [sibling.id, crypto.randomUUID()]) {
        const res = await feed(scoped.plaintext_key, `?api_key_id=${id}`);
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'agent_scope_error', details: [{ field: 'line_id', message: lineId }] });
      }
    });

    it('clamps the limit to 1-500 and names the allowed event types on an unknown one', async () => {
      const agent = await agentKey();
      expect((await feed(agent.plaintext_key, '?limit=100000')).body.limit).toBe(500);
      expect((await feed(agent.plaintext_key, '?limit=0')).body.limit).toBe(1);
      expect((await feed(agent.plaintext_key, '?limit=-5')).body.limit).toBe(1);
      expect((await feed(agent.plaintext_key, '?limit=ten')).status).toBe(422);
      const unknown = await feed(agent.plaintext_key, '?event_types=call,telepathy');
      expect(unknown.status).toBe(422);
      expect(unknown.body.error.details).toEqual([
        { field: 'event_types', message: 'Must be a comma-separated list of: call, sms, compliance_event, billing_transaction' },
      ]);
      expect((await feed(agent.plaintext_key, '?event_types=call%2Csms')).status).toBe(200);
    });

    it('refuses service keys, and counts 60 reads per hour per user', async () => {
      expect((await feed(tenant.keys.serviceTest)).status).toBe(401);
      const a = await agentKey();
      const b = await agentKey();
      for (let i = 0; i < 30; i += 1) {
        expect((await feed(a.plaintext_key)).status).toBe(200);
        expect((await feed(b.plaintext_key)).status).toBe(200);
      }
      const limited = await feed(tenant.keys.test);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toEqual(expect.any(String));
      h.clock.advance(3600_000);
      expect((await feed(a.plaintext_key)).status).toBe(200);
    });

    it('answers 401 without a key', async () => {
      expect((await h.request('GET', '/api/v1/audit')).status).toBe(401);
    });
  });
});
