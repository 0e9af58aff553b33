/**
 * Local HTTP endpoints that stand in for a customer's webhook receiver or a service's callback
 * endpoint. Kept-alive sockets stay open longer than the senders' (65 s), so no request races a close.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { closeServer, listen } from './http';

export interface Endpoint {
  /** `http://127.0.0.1:<port>`; any path reaches the same handler. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Hands every request's JSON body (undefined when it is not JSON) and its arrival time
 * (`performance.now()`, once the body is in) to `onRequest`, which answers.
 */
export async function startJsonReceiver(
  onRequest: (body: unknown, receivedAt: number, res: http.ServerResponse) => void,
): Promise<Endpoint> {
  return startEndpoint((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = performance.now();
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      onRequest(body, receivedAt, res);
    });
  });
}

/** Answers every request with `status` (and `body` as JSON, if given) as soon as it has arrived, without reading it. */
export async function startStubEndpoint(status: number, body?: string): Promise<Endpoint> {
  return startEndpoint((req, res) => {
    req.resume();
    req.on('end', () => {
      if (body === undefined) res.writeHead(status).end();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
}

async function startEndpoint(handler: http.RequestListener): Promise<Endpoint> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  const origin = await listen(server);
  return { origin, close: () => closeServer(server) };
}
