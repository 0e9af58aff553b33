import { webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/** Lists and aggregates that used to read a workspace's whole history are bounded (security L8). */
describe('bounded lists', () => {
  const ctx = useSuite({ overrides: { lineProvisionWaitMs: 0 } });

  it('GET /api/v1/lines pages with limit and offset and says the total; the default page is 100', async () => {
    const { h, tenant } = ctx;
    const ids: string[] = [];
    for (const name of ['first', 'second', 'third'])
      ids.unshift((await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine({ name }) })).body.line.id);
    const all = await h.request('GET', '/api/v1/lines', { key: tenant.keys.test });
    expect(all.body.total).toBe(3);
    expect(all.body.lines.map((l: { id: string }) => l.id)).toEqual(ids);
    const page = await h.request('GET', '/api/v1/lines?limit=1&offset=1', { key: tenant.keys.test });
    expect(page.body).toMatchObject({ total: 3, lines: [{ id: ids[1] }] });
    expect((await h.request('GET', '/api/v1/lines?limit=101', { key: tenant.keys.test })).status).toBe(422);
  });

  it('GET /api/v1/disclosures pages the same way', async () => {
    const { h, tenant } = ctx;
    for (const message of ['This call uses AI.', 'Esta llamada usa IA.']) {
      expect((await h.request('POST', '/api/v1/disclosures', { key: tenant.keys.test, body: { message } })).status).toBe(201);
    }
    const page = await h.request('GET', '/api/v1/disclosures?limit=1', { key: tenant.keys.test });
    expect(page.body).toMatchObject({ total: 2, disclosures: [{ message: 'Esta llamada usa IA.' }] });
  });

  it('webhook stats cover the last 7 days, and success_rate is 0 (a number) when nothing has finished', async () => {
    const { h, tenant } = ctx;
    const stats = await h.request('GET', '/api/v1/webhooks/stats', { key: tenant.keys.test });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ total: 0, success: 0, failed: 0, success_rate: 0, by_event_type: [], by_hour: [] });
    expect(h.clock.now().getTime() - new Date(stats.body.since).getTime()).toBeGreaterThanOrEqual(7 * 24 * 3600_000 - 60_000);
  });
});
