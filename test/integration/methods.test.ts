import crypto from 'node:crypto';
import type http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from '../../api/app';
import { createApiServer } from '../../api/server';
import { createLogger } from '../../src/platform/logger';
import { useSuite } from '../support/suite';

/**
 * Every method a path does not serve is 405 `method_not_allowed` with `Allow` and the envelope,
 * never 501; unknown paths stay 404. The paths and their methods come from the route table, so a
 * new route is covered without editing this test. Requests go over a raw socket: fetch refuses
 * TRACE and CONNECT, and Node hands CONNECT to the server outside the app.
 */
describe('methods a path does not serve', () => {
  const { h } = useSuite({ tenant: 'none' });
  let app: App;
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    app = createApp({
      config: h.config,
      db: h.db,
      temporal: h.temporal,
      logger: createLogger('api-test', 'silent'),
      now: () => new Date(),
    });
    server = createApiServer(app, { requestTimeoutMs: h.config.httpRequestTimeoutMs, headersTimeoutMs: h.config.httpHeadersTimeoutMs });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  interface RawResponse {
    status: number;
    headers: Record<string, string>;
    body: string;
  }

  function rawRequest(method: string, path: string): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head, ...rest] = text.split('\r\n\r\n');
        const [statusLine, ...headerLines] = head.split('\r\n');
        const headers = Object.fromEntries(
          headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
      });
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
  }

  /** A concrete path for a template, and the methods the route table serves there (independent of the app's matcher). */
  function servedPaths(): Array<{ path: string; methods: string[] }> {
    const templates = app.routes.flatMap((r) =>
      [r.path, ...(r.aliases ?? [])].map((template) => ({ template, method: r.method.toUpperCase() })),
    );
    const concrete = [...new Set(templates.map((t) => t.template))].map((template) =>
      template.replace(/\{[^}]+\}/g, () => crypto.randomUUID()),
    );
    const fits = (template: string, path: string) => {
      const a = template.split('/');
      const b = path.split('/');
      return a.length === b.length && a.every((segment, i) => (segment.startsWith('{') ? b[i] !== '' : segment === b[i]));
    };
    return concrete.map((path) => {
      const methods = new Set(templates.filter((t) => fits(t.template, path)).map((t) => t.method));
      if (methods.has('GET')) methods.add('HEAD');
      methods.add('OPTIONS');
      return { path, methods: [...methods].sort() };
    });
  }

  const PROBED = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'CONNECT', 'COPY', 'PURGE'];

  it('every path of the route table answers each method it does not serve with 405, Allow and the envelope', async () => {
    const paths = servedPaths();
    expect(paths.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const { path, methods } of paths) {
      for (const method of PROBED.filter((m) => !methods.includes(m))) {
        const res = await rawRequest(method, path);
        const body = method === 'HEAD' ? undefined : (JSON.parse(res.body) as { error: { code: string; message: string } });
        const ok =
          res.status === 405 &&
          res.headers.allow === methods.join(', ') &&
          (body === undefined || (body.error.code === 'method_not_allowed' && typeof body.error.message === 'string'));
        if (!ok) wrong.push(`${method} ${path} -> ${res.status} allow=${res.headers.allow} ${res.body.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('unknown paths stay 404 not_found, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'TRACE', 'CONNECT', 'PUT']) {
      const res = await rawRequest(method, '/api/v1/nope');
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });

  it('the server bounds how long a request may take to arrive', () => {
    expect(server.requestTimeout).toBe(h.config.httpRequestTimeoutMs);
    expect(server.headersTimeout).toBeLessThanOrEqual(server.requestTimeout);
    expect(h.config.httpRequestTimeoutMs).toBe(30_000);
  });
});
