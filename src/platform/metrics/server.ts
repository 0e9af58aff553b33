import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config';
import { metricsAccess, METRICS_UNAUTHORIZED_MESSAGE } from './access';

/** Prometheus text exposition, as prom-client and the Temporal SDK's exporter both write it. */
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` for a process without the API's stack (the worker): the texts of
 * `sources`, concatenated (their metric names must not overlap), under the access rule every
 * /metrics shares. A source that fails is left out of that scrape and reported to `onSourceError`.
 * With `ready`, also the probes an orchestrator sends, without a bearer and telling nothing but the state:
 * `GET /healthz` (200 while the process answers) and `GET /readyz` (200 while `ready()`, else 503 `draining`).
 */
export async function serveMetrics(options: {
  host: string;
  port: number;
  access: Pick<Config, 'metricsToken' | 'profile'>;
  sources: Array<() => Promise<string>>;
  onSourceError: (err: unknown) => void;
  ready?: () => boolean;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (options.ready && req.method === 'GET' && path === '/healthz') return json(res, 200, { status: 'ok' });
      if (options.ready && req.method === 'GET' && path === '/readyz')
        return options.ready()
          ? json(res, 200, { status: 'ready' })
          : error(res, 503, 'not_ready', 'The service is not ready', [{ field: 'draining', message: 'shutting down' }]);
      const access = metricsAccess(options.access, req.headers.authorization);
      if (path !== '/metrics' || req.method !== 'GET' || access === 'not_found') return error(res, 404, 'not_found', 'Route not found');
      if (access === 'unauthorized') return error(res, 401, 'unauthorized', METRICS_UNAUTHORIZED_MESSAGE);
      const texts = await Promise.all(
        options.sources.map((source) =>
          source().catch((err: unknown) => {
            options.onSourceError(err);
            return '';
          }),
        ),
      );
      res.writeHead(200, { 'content-type': CONTENT_TYPE });
      res.end(texts.map((text) => (text === '' || text.endsWith('\n') ? text : `${text}\n`)).join(''));
    })().catch((err: unknown) => {
      options.onSourceError(err);
      if (!res.headersSent) error(res, 500, 'internal_error', 'Metrics could not be collected');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The API's error shape (`{error: {code, message, details?}}`). */
function error(
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  details?: Array<{ field: string; message: string }>,
): void {
  json(res, status, { error: { code, message, ...(details ? { details } : {}) } });
}

/** Reads another exporter's text (the SDK's, on loopback), within `timeoutMs`. */
export async function scrapeText(url: string, timeoutMs = 2_000): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.text();
}
