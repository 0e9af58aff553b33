import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { ResourceRouters } from '../../api/resourceRouters';
import type { AppState } from '../../api/context';

/**
 * The API's routes are matched per resource (api/resourceRouters.ts): the answer must be the one a single router gives,
 * case-insensitive and with an optional trailing slash, and a request no resource holds falls through to what follows.
 */
describe('routes matched per resource', () => {
  let server: http.Server;
  let base = '';

  beforeAll(async () => {
    const routers = new ResourceRouters();
    const answer = (name: string) => (ctx: Koa.ParameterizedContext<AppState>) => {
      ctx.body = { route: name, params: ctx.params };
    };
    routers.add('get', '/api/v1/lines', answer('listLines'));
    routers.add('get', '/api/v1/lines/{id}', answer('getLine'));
    routers.add('post', '/api/v1/lines/{id}/sms', answer('sendSms'));
    routers.add('get', '/v1/keys/{id}', answer('getKey'));
    routers.add('post', '/api-tokens/{id}/revoke', answer('revokeToken'));
    routers.add('get', '/healthz', answer('healthz'));
    // Two routes that match the same request: the first added answers; one that passes on reaches what follows it.
    routers.add('get', '/api/v1/calls/{id}', answer('getCall'));
    routers.add('get', '/api/v1/calls/{callId}', answer('shadowed'));
    routers.add('get', '/api/v1/events/{id}', async (ctx, next) => {
      ctx.set('x-first', 'passed');
      await next();
    });
    const koa = new Koa<AppState>();
    koa.use(routers.routes());
    koa.use((ctx) => {
      ctx.status = 404;
      ctx.body = { route: 'fell through' };
    });
    server = http.createServer(koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const route = async (method: string, path: string) => {
    const res = await fetch(`${base}${path}`, { method });
    return { status: res.status, ...((await res.json()) as { route: string; params?: Record<string, string> }) };
  };

  test('each path reaches its route, with its parameters', async () => {
    expect(await route('GET', '/api/v1/lines')).toMatchObject({ status: 200, route: 'listLines' });
    expect(await route('GET', '/api/v1/lines/l1')).toMatchObject({ route: 'getLine', params: { id: 'l1' } });
    expect(await route('POST', '/api/v1/lines/l1/sms')).toMatchObject({ route: 'sendSms', params: { id: 'l1' } });
    expect(await route('GET', '/v1/keys/k1')).toMatchObject({ route: 'getKey', params: { id: 'k1' } });
    expect(await route('POST', '/api-tokens/t1/revoke')).toMatchObject({ route: 'revokeToken', params: { id: 't1' } });
    expect(await route('GET', '/healthz')).toMatchObject({ route: 'healthz' });
  });

  test('as one router: case-insensitive, trailing slash optional', async () => {
    expect(await route('GET', '/API/V1/Lines/l1')).toMatchObject({ route: 'getLine', params: { id: 'l1' } });
    expect(await route('GET', '/api/v1/lines/')).toMatchObject({ route: 'listLines' });
    expect(await route('GET', '/HEALTHZ')).toMatchObject({ route: 'healthz' });
  });

  test('a GET route answers HEAD; parameters are percent-decoded, or left as sent when malformed', async () => {
    const head = await fetch(`${base}/api/v1/lines/l1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/json/);
    expect(await route('GET', '/api/v1/lines/a%20b')).toMatchObject({ route: 'getLine', params: { id: 'a b' } });
    expect(await route('GET', '/api/v1/lines/a%zzb')).toMatchObject({ route: 'getLine', params: { id: 'a%zzb' } });
    expect((await fetch(`${base}/api/v1/lines/l1/sms`, { method: 'HEAD' })).status).toBe(404);
  });

  test('the first route added that matches answers; one passing on reaches what follows the routers', async () => {
    expect(await route('GET', '/api/v1/calls/c1')).toMatchObject({ route: 'getCall', params: { id: 'c1' } });
    const passed = await fetch(`${base}/api/v1/events/e1`);
    expect(passed.headers.get('x-first')).toBe('passed');
    expect(await passed.json()).toMatchObject({ route: 'fell through' });
  });

  test('what no route matches falls through: unknown resources, methods and paths', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/texts'],
      ['DELETE', '/api/v1/lines/l1'],
      ['GET', '/api/v1/lines/l1/sms/extra'],
      ['GET', '/api/v1'],
      ['GET', '//api/v1/lines'],
      ['GET', '/'],
    ]) {
      expect(await route(method, path)).toMatchObject({ status: 404, route: 'fell through' });
    }
  });

  test('a parameter among the segments that pick the resource is refused', () => {
    expect(() => new ResourceRouters().add('get', '/api/v1/{resource}', () => undefined)).toThrow(/parameter/);
    expect(() => new ResourceRouters().add('get', '/{tenant}/lines', () => undefined)).toThrow(/parameter/);
  });
});
