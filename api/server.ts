import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { App } from './app';
import { errors } from './errors';
import { methodNotAllowed } from './middleware/unmatched';

export interface ServerTimeouts {
  /** Time to receive a whole request, headers and body (Node's `server.requestTimeout`); 408 after. */
  requestTimeoutMs: number;
  /** Time to receive the headers (Node's `server.headersTimeout`); at most `requestTimeoutMs`. */
  headersTimeoutMs: number;
}

/**
 * The HTTP server around the Koa app: slow or stalled clients are cut off (a slow-body client
 * cannot hold a socket and a buffer for minutes), and CONNECT, which Node hands to a separate
 * event instead of the app, gets the same 405/404 envelope as any other method no route serves.
 */
export function createApiServer(app: App, timeouts: ServerTimeouts): http.Server {
  const server = http.createServer(app.koa.callback());
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.headersTimeout = Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs);
  // Outlive the idle timeout of load balancers and clients (commonly 60 s), so the server is
  // never the side that closes an idle keep-alive connection a client is about to reuse.
  server.keepAliveTimeout = 65_000;
  server.on('connect', (req: http.IncomingMessage, socket: Duplex) => answerConnect(app, req, socket));
  return server;
}

function answerConnect(app: App, req: http.IncomingMessage, socket: Duplex): void {
  const path = pathOf(req.url ?? '');
  const allowed = path === undefined ? undefined : app.allowedMethods(path);
  const error = allowed ? methodNotAllowed('CONNECT', allowed) : errors.notFound('Route');
  const body = JSON.stringify(error.toBody());
  const headers = {
    ...error.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'x-request-id': `req_${crypto.randomUUID()}`,
    Connection: 'close',
  };
  const head = [
    `HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status]}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  socket.on('error', () => socket.destroy());
  socket.end(`${head}\r\n\r\n${body}`);
}

/** The path of an origin-form target (`/api/v1/lines?x`); an authority-form one (`host:443`) has none. */
function pathOf(target: string): string | undefined {
  if (!target.startsWith('/')) return undefined;
  try {
    return new URL(target, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}
