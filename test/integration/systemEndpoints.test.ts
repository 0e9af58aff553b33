import crypto from 'node:crypto';
import type { Config } from '../../src/platform/config';
import { createDb, type Db } from '../../src/platform/db/knex';
import { getFromFreshApp } from '../support/freshApp';
import { useSuite } from '../support/suite';

/** What the unauthenticated system endpoints tell a stranger (security review L5, M9). */
describe('system endpoints', () => {
  const { h } = useSuite({ tenant: 'none' });

  /** Serves a fresh app with `config` (and optionally another database) for one request. */
  const get = (path: string, overrides: Partial<Config>, options: { db?: Db; headers?: Record<string, string> } = {}) =>
    getFromFreshApp(h, path, overrides, options);

  it('readyz names a failing dependency but never its error text', async () => {
    const db = createDb('postgres://nobody@127.0.0.1:1/none', { max: 1 });
    try {
      const res = await get('/readyz', {}, { db });
      expect(res.status).toBe(503);
      expect(JSON.parse(res.text)).toEqual({
        error: { code: 'not_ready', message: 'The service is not ready', details: [{ field: 'postgres', message: 'unavailable' }] },
      });
      expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|connect/i);
    } finally {
      await db.destroy();
    }
  });

  it('readyz is not ready while the configuration fails the startup check, and says no more', async () => {
    const res = await get('/readyz', { carrierWebhookSecret: 'dev-carrier-secret' });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text).error).toEqual({
      code: 'not_ready',
      message: 'The service is not ready',
      details: [{ field: 'configuration', message: 'unavailable' }],
    });
    expect(res.text).not.toContain('CARRIER_WEBHOOK_SECRET');
    expect((await get('/readyz', { secretsKey: undefined })).status).toBe(503);
    expect((await get('/readyz', {})).status).toBe(200);
  });

  describe('metrics', () => {
    const token = crypto.randomBytes(32).toString('hex');

    it('do not exist without METRICS_TOKEN outside the dev profile', async () => {
      const res = await get('/metrics', { metricsToken: undefined, profile: 'production' });
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text).error.code).toBe('not_found');
      expect((await get('/metrics', { metricsToken: undefined, profile: 'dev' })).status).toBe(200);
    });

    it('need the bearer when METRICS_TOKEN is set', async () => {
      expect((await get('/metrics', { metricsToken: token })).status).toBe(401);
      expect((await get('/metrics', { metricsToken: token }, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
      expect((await get('/metrics', { metricsToken: token, profile: 'dev' }, { headers: { authorization: 'Bearer nope' } })).status).toBe(
        401,
      );
      const ok = await get('/metrics', { metricsToken: token }, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('# TYPE');
    });
  });
});
