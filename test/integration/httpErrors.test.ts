import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import { createDb } from '../../src/platform/db/knex';
import pino from 'pino';
import { webhookLine } from '../support/harness';
import { getFromFreshApp } from '../support/freshApp';
import { useSuite } from '../support/suite';

describe('error envelope on every kind of bad input', () => {
  const { h, tenant } = useSuite({ tenant: 'file', overrides: { maxBodyBytes: 4096 } });

  it('404 not_found for an unknown route, authenticated or not', async () => {
    for (const key of [undefined, tenant.keys.test]) {
      const res = await h.request('GET', '/api/v1/nope', { key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });

  it('405 method_not_allowed for a known path with the wrong method', async () => {
    const res = await h.request('PUT', '/api/v1/lines', { key: tenant.keys.test, body: {} });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('400 invalid_json for a malformed body', async () => {
    const res = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, rawBody: '{"name": "x",' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('413 payload_too_large for an oversized body', async () => {
    const res = await h.request('POST', '/api/v1/lines', {
      key: tenant.keys.test,
      body: webhookLine({ system_prompt: 'x'.repeat(10_000) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('415 unsupported_media_type for a non-JSON body', async () => {
    const res = await h.request('POST', '/api/v1/lines', {
      key: tenant.keys.test,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('422 validation_error when a required body is missing', async () => {
    const res = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'body', message: expect.any(String) }] });
  });

  it('echoes a request id, or makes one', async () => {
    const given = await h.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const made = await h.request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
  });

  it('answers CORS preflight on every route', async () => {
    const res = await h.request('OPTIONS', '/api/v1/lines', {
      headers: { 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
  });

  it('500 internal_error with no stack or driver message when a dependency fails', async () => {
    const brokenUrl = new URL(process.env.DATABASE_URL!);
    brokenUrl.pathname = '/database_that_does_not_exist';
    const db = createDb(brokenUrl.toString(), { max: 1 });
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const { koa } = createApp({ config: h.config, db, temporal: h.temporal, logger, now: () => new Date() });
    const server = http.createServer(koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/lines`, {
        headers: { authorization: `Bearer ${tenant.keys.test}` },
      });
      const body = (await res.json()) as { error: { code: string; details: Array<{ field: string }> } };
      expect(res.status).toBe(500);
      expect(body).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
      expect(JSON.stringify(body)).not.toMatch(/database_that_does_not_exist|at .*\.ts/);
      // The operator gets the cause in the log, tied to the request id the client saw.
      const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'request failed');
      expect(logged.request_id).toBe(res.headers.get('x-request-id'));
      expect(logged.err.message).toMatch(/database_that_does_not_exist/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.destroy();
    }
  });

  it('healthz answers, and readyz checks Postgres and Temporal', async () => {
    expect((await h.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await h.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
  });

  it('readyz is 503 when Postgres is unreachable', async () => {
    const db = createDb('postgres://nobody@127.0.0.1:1/none', { max: 1 });
    try {
      const res = await getFromFreshApp(h, '/readyz', {}, { db });
      expect(res.status).toBe(503);
      const body = JSON.parse(res.text) as { error: { code: string; details: Array<{ field: string }> } };
      expect(body.error.code).toBe('not_ready');
      expect(body.error.details.map((d: { field: string }) => d.field)).toEqual(['postgres']);
    } finally {
      await db.destroy();
    }
  });
});
