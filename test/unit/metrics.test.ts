import crypto from 'node:crypto';
import { loadConfig } from '../../src/platform/config';
import { metricsAccess } from '../../src/platform/metrics/access';
import { configurationReport } from '../../src/platform/startupCheck';
import { serveMetrics, type MetricsServer } from '../../src/platform/metrics/server';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';

const token = 'b3f1c9d2e4a5968778695a4b3c2d1e0f1a2b3c4d5e6f708192a3b4c5d6e7f809';

describe('metricsAccess: the rule every /metrics shares', () => {
  it.each([
    [{ metricsToken: undefined, profile: 'production' }, undefined, 'not_found'],
    [{ metricsToken: undefined, profile: 'production' }, `Bearer ${token}`, 'not_found'],
    [{ metricsToken: undefined, profile: 'dev' }, undefined, 'allowed'],
    [{ metricsToken: token, profile: 'production' }, undefined, 'unauthorized'],
    [{ metricsToken: token, profile: 'dev' }, 'Bearer nope', 'unauthorized'],
    [{ metricsToken: token, profile: 'production' }, `Bearer ${token}x`, 'unauthorized'],
    [{ metricsToken: token, profile: 'production' }, token, 'unauthorized'],
    [{ metricsToken: token, profile: 'production' }, `bearer  ${token} `, 'allowed'],
  ] as const)('%o with %s: %s', (config, authorization, expected) => {
    expect(metricsAccess(config, authorization)).toBe(expected);
  });
});

describe('serveMetrics (the worker /metrics)', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => server?.close());
  const errors: unknown[] = [];

  const start = (
    sources: Array<() => Promise<string>>,
    access: { metricsToken?: string; profile: string } = { metricsToken: token, profile: 'production' },
  ) =>
    serveMetrics({
      host: '127.0.0.1',
      port: 0,
      access: { metricsToken: access.metricsToken, profile: access.profile },
      sources,
      onSourceError: (err) => errors.push(err),
    });

  it('concatenates its sources for the bearer, and leaves out one that fails', async () => {
    server = await start([
      async () => '# TYPE a counter\na 1',
      async () => {
        throw new Error('exporter down');
      },
      async () => '# TYPE b gauge\nb 2\n',
    ]);
    const res = await fetch(server.url, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await res.text()).toBe('# TYPE a counter\na 1\n# TYPE b gauge\nb 2\n');
    expect(errors).toEqual([new Error('exporter down')]);
  });

  it('answers 401 without the bearer and 404 elsewhere, in the API error shape', async () => {
    server = await start([async () => 'a 1\n']);
    const without = await fetch(server.url);
    expect(without.status).toBe(401);
    expect(await without.json()).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('METRICS_TOKEN') } });
    expect((await fetch(server.url.replace('/metrics', '/'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
  });

  it('answers the probes without a bearer when given `ready`: /healthz always, /readyz 503 once not ready; without it, neither', async () => {
    let ready = true;
    server = await serveMetrics({
      host: '127.0.0.1',
      port: 0,
      access: { metricsToken: token, profile: 'production' },
      sources: [async () => 'a 1\n'],
      onSourceError: (err) => errors.push(err),
      ready: () => ready,
    });
    const probe = async (path: string) => {
      const res = await fetch(server!.url.replace('/metrics', path));
      return { path, status: res.status, body: (await res.json()) as unknown };
    };
    expect(await probe('/healthz')).toEqual({ path: '/healthz', status: 200, body: { status: 'ok' } });
    expect(await probe('/readyz')).toEqual({ path: '/readyz', status: 200, body: { status: 'ready' } });
    ready = false;
    expect(await probe('/readyz')).toEqual({
      path: '/readyz',
      status: 503,
      body: {
        error: { code: 'not_ready', message: 'The service is not ready', details: [{ field: 'draining', message: 'shutting down' }] },
      },
    });
    expect(await probe('/healthz')).toEqual({ path: '/healthz', status: 200, body: { status: 'ok' } });
    // The metrics still want the bearer.
    expect((await fetch(server.url)).status).toBe(401);
    await server.close();
    server = await start([async () => 'a 1\n']);
    expect((await fetch(server.url.replace('/metrics', '/healthz'))).status).toBe(404);
  });

  it('does not exist without METRICS_TOKEN outside the dev profile', async () => {
    server = await start([async () => 'a 1\n'], { profile: 'production' });
    const res = await fetch(server.url);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});

describe('the worker metrics settings', () => {
  const env = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    SWITCHBOARD_DATA_DIR: '/nonexistent',
    DATABASE_URL: 'postgres://switchboard@postgres:5432/switchboard',
    TEMPORAL_ADDRESS: 'temporal:7233',
    PUBLIC_BASE_URL: 'https://switchboard.example.com',
    CARRIER_API_KEY: crypto.randomBytes(32).toString('hex'),
    PAYMENTS_API_KEY: crypto.randomBytes(32).toString('hex'),
    SECRETS_KEY: crypto.randomBytes(32).toString('hex'),
    TEMPORAL_PAYLOAD_KEY: crypto.randomBytes(32).toString('hex'),
    ...extra,
  });

  it('WORKER_METRICS_PORT is optional and must be a TCP port', () => {
    expect(loadConfig(env({})).workerMetricsPort).toBeUndefined();
    expect(loadConfig(env({ WORKER_METRICS_PORT: '9464' })).workerMetricsPort).toBe(9464);
    expect(() => loadConfig(env({ WORKER_METRICS_PORT: '65536' }))).toThrow(/WORKER_METRICS_PORT must be a TCP port/);
    expect(() => loadConfig(env({ WORKER_METRICS_PORT: 'metrics' }))).toThrow(/WORKER_METRICS_PORT/);
  });

  it('a worker refuses a weak METRICS_TOKEN, as the API does', () => {
    for (const role of ['worker', 'api'] as const) {
      const report = configurationReport(
        role,
        loadConfig(env({ CARRIER_WEBHOOK_SECRET: token, METRICS_TOKEN: 'changeme' })),
        PROVIDER_SETTINGS,
      );
      expect({ role, refused: report.problems.map((p) => p.setting) }).toEqual({ role, refused: ['METRICS_TOKEN'] });
    }
    expect(configurationReport('worker', loadConfig(env({ METRICS_TOKEN: token })), PROVIDER_SETTINGS).problems).toEqual([]);
  });
});
