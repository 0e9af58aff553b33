import http from 'node:http';
import { duplexPair } from 'node:stream';

export interface ApiRequest {
  method: string;
  /** Path and query string, e.g. `/api/v1/calls?limit=5`. */
  path: string;
  body?: unknown;
  /** A body sent as written with its media type (an upload's CSV), instead of `body` as JSON. */
  upload?: { mediaType: string; text: string };
  headers?: Record<string, string>;
  /** Aborting it closes the request, as a client that goes away does (a wait on the route then stops). */
  signal?: AbortSignal;
}

export interface ApiAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export type Dispatch = (request: ApiRequest) => Promise<ApiAnswer>;

/**
 * Sends requests to the API's own request listener in this process, over an in-memory connection:
 * every request passes the whole chain of the route it names (authentication with the caller's
 * key, body limit, idempotency, validation, rate limit, handler), exactly as one from the network,
 * without a socket, so it works while the listening server drains.
 */
export function inProcessApi(listener: () => http.RequestListener): (callerHeaders: Record<string, string>) => Dispatch {
  let server: http.Server | undefined;
  return (callerHeaders) => (request) => {
    // Never listens: it only parses the connections handed to it.
    server ??= http.createServer(listener());
    const [client, serverSide] = duplexPair();
    server.emit('connection', serverSide);
    const payload = request.upload
      ? Buffer.from(request.upload.text, 'utf8')
      : request.body === undefined
        ? undefined
        : Buffer.from(JSON.stringify(request.body));
    const headers: Record<string, string> = { ...callerHeaders, ...request.headers, connection: 'close' };
    if (payload)
      Object.assign(headers, {
        'content-type': request.upload?.mediaType ?? 'application/json',
        'content-length': String(payload.length),
      });
    return new Promise<ApiAnswer>((resolve, reject) => {
      const req = http.request({ method: request.method, path: request.path, headers, createConnection: () => client as never }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 500, headers: res.headers, body: text ? parseJson(text) : undefined });
        });
      });
      req.on('error', reject);
      // Both ends: the route sees its connection close, as when a client over the network goes away.
      const cancel = () => {
        req.destroy(new Error('the MCP request was cancelled'));
        serverSide.destroy();
      };
      if (request.signal?.aborted) cancel();
      else request.signal?.addEventListener('abort', cancel, { once: true });
      req.end(payload);
    });
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
