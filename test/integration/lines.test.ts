import { runCommand } from '../../src/main/cli';
import { addUser } from '../../src/domain/workspaces/service';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { createTenant, startHarness, untilLineActive, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/** The durable flow of the foundation: POST /lines -> Temporal workflow -> carrier -> Postgres. */
describe('lines: create and provision a number', () => {
  const { h, tenant } = useSuite({ worker: true });
  beforeEach(() => {
    h.simulator.state.provisionFault = 'normal';
  });

  it('answers 201 with an active line and an E.164 number from the carrier', async () => {
    const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    expect(created.status).toBe(201);
    const line = created.body.line;
    expect(line).toMatchObject({
      name: 'Support line',
      mode: 'webhook',
      status: 'active',
      environment: 'test',
      language: 'multi',
      recording_enabled: false,
    });
    expect(line.phone_number).toMatch(/^\+1\d{10}$/);
    expect(created.headers.get('location')).toBe(`/api/v1/lines/${line.id}`);

    const allocated = [...h.simulator.state.numbers.values()].filter((n) => n.idempotency_key === `line:${line.id}`);
    expect(allocated).toHaveLength(1);
    expect(allocated[0].phone_number).toBe(line.phone_number);

    const fetched = await h.request('GET', `/api/v1/lines/${line.id}`, { key: tenant.keys.test });
    expect(fetched.status).toBe(200);
    expect(fetched.body.line).toEqual(line);
    const listed = await h.request('GET', '/api/v1/lines', { key: tenant.keys.test });
    expect(listed.body.lines.map((l: { id: string }) => l.id)).toEqual([line.id]);
  });

  it('stores the legacy mode name text as webhook', async () => {
    const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine({ mode: 'text' }) });
    expect(created.status).toBe(201);
    expect(created.body.line.mode).toBe('webhook');
  });

  it('answers provisioning when the carrier is slow, and the workflow finishes the job', async () => {
    const slow = await startHarness({ lineProvisionWaitMs: 300 });
    try {
      await slow.startWorker();
      slow.simulator.state.provisionFault = 'hold';
      const created = await slow.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
      expect(created.status).toBe(201);
      expect(created.body.line.status).toBe('provisioning');
      expect(created.body.line.phone_number).toBeNull();
      slow.simulator.state.provisionFault = 'normal';
      slow.simulator.state.releaseHeld();
      const id = created.body.line.id as string;
      const active = await untilLineActive(
        slow.temporal,
        id,
        async () => (await slow.request('GET', `/api/v1/lines/${id}`, { key: tenant.keys.test })).body.line,
      );
      expect(active.phone_number).toMatch(/^\+1\d{10}$/);
    } finally {
      await slow.close();
    }
  });

  it('answers a carrier refusal of the number with 502 carrier_error naming the provider and its code, and keeps nothing (issue 26)', async () => {
    h.simulator.state.provisionFault = 'reject';
    const refused = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({
      error: {
        code: 'carrier_error',
        message: 'The carrier refused to provide a number for this line (the simulator: error 409)',
        details: [
          { field: 'provider', message: 'simulator' },
          { field: 'provider_code', message: '409' },
        ],
      },
    });
    expect(await h.db('lines').where({ workspace_id: tenant.workspaceId })).toEqual([]);
    expect((await h.request('GET', '/api/v1/lines', { key: tenant.keys.test })).body.lines).toEqual([]);
  });

  it('keeps test and live lines and workspaces apart', async () => {
    const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    const id = created.body.line.id;
    expect((await h.request('GET', `/api/v1/lines/${id}`, { key: tenant.keys.live })).status).toBe(404);
    expect((await h.request('GET', '/api/v1/lines', { key: tenant.keys.live })).body.lines).toEqual([]);
    const other = await createTenant(h.db);
    const foreign = await h.request('GET', `/api/v1/lines/${id}`, { key: other.keys.test });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
  });

  it('gives the first live line a 30-day grace and asks for a payment method before the second', async () => {
    const first = await h.request('POST', '/api/v1/lines', { key: tenant.keys.live, body: webhookLine() });
    expect(first.status).toBe(201);
    const grace = new Date(first.body.line.grace_ends_at).getTime() - new Date(first.body.line.created_at).getTime();
    expect(grace).toBe(30 * 24 * 60 * 60 * 1000);

    const second = await h.request('POST', '/api/v1/lines', { key: tenant.keys.live, body: webhookLine({ name: 'Second' }) });
    expect(second.status).toBe(402);
    expect(second.body.error.code).toBe('payment_method_required');

    // The test environment never asks for a card.
    expect((await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() })).status).toBe(201);
    expect((await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() })).status).toBe(201);

    await runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    const retried = await h.request('POST', '/api/v1/lines', { key: tenant.keys.live, body: webhookLine({ name: 'Second' }) });
    expect(retried.status).toBe(201);
    expect(retried.body.line.grace_ends_at).toBeNull();
  });

  it("H5: the free first live line is per workspace: another member (an invited admin) gets no second one; any member's card serves all", async () => {
    expect((await h.request('POST', '/api/v1/lines', { key: tenant.keys.live, body: webhookLine() })).status).toBe(201);
    const admin = await addUser(h.db, { workspaceId: tenant.workspaceId, email: `admin+${Date.now()}@example.test`, role: 'admin' });
    const adminKey = (await mintUserKey(h.db, { user: admin, environment: 'live', kind: 'standard', name: 'admin live' })).plaintext;
    const refused = await h.request('POST', '/api/v1/lines', { key: adminKey, body: webhookLine({ name: 'Admin line' }) });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('payment_method_required');
    expect(await h.db('lines').where({ workspace_id: tenant.workspaceId, environment: 'live' })).toHaveLength(1);
    // The owner's verified card is the workspace's: the admin's next line needs no card of their own, and has no grace.
    await runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    const paid = await h.request('POST', '/api/v1/lines', { key: adminKey, body: webhookLine({ name: 'Admin line' }) });
    expect(paid.status).toBe(201);
    expect(paid.body.line.grace_ends_at).toBeNull();
  });

  it('caches the 402 for the original Idempotency-Key; a new key succeeds once a card is on file', async () => {
    expect((await h.request('POST', '/api/v1/lines', { key: tenant.keys.live, body: webhookLine() })).status).toBe(201);
    const original = { 'idempotency-key': `line-${Date.now()}` };
    const refused = await h.request('POST', '/api/v1/lines', {
      key: tenant.keys.live,
      body: webhookLine({ name: 'Second' }),
      headers: original,
    });
    expect(refused.status).toBe(402);

    await runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
    const replayed = await h.request('POST', '/api/v1/lines', {
      key: tenant.keys.live,
      body: webhookLine({ name: 'Second' }),
      headers: original,
    });
    expect(replayed.status).toBe(402);
    expect(replayed.body).toEqual(refused.body);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const fresh = await h.request('POST', '/api/v1/lines', {
      key: tenant.keys.live,
      body: webhookLine({ name: 'Second' }),
      headers: { 'idempotency-key': `line-new-${Date.now()}` },
    });
    expect(fresh.status).toBe(201);

    // Twelve hours later the original key is free again.
    h.clock.advance(12 * 60 * 60 * 1000 + 1000);
    const afterExpiry = await h.request('POST', '/api/v1/lines', {
      key: tenant.keys.live,
      body: webhookLine({ name: 'Second' }),
      headers: original,
    });
    expect(afterExpiry.status).toBe(201);
  });

  it('creates one line for one Idempotency-Key, however often it is retried', async () => {
    const headers = { 'idempotency-key': `retry-${Date.now()}` };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine(), headers })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.body.line.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.error.code).toBe('idempotency_in_progress');
    expect((await h.request('GET', '/api/v1/lines', { key: tenant.keys.test })).body.lines).toHaveLength(1);
  });
});
