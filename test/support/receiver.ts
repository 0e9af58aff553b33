import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { until } from './waits';

/** A customer's webhook endpoint for tests: records every request, answers as scripted. */
export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, unknown>;
  receivedAt: number;
}

export interface ScriptedAnswer {
  status: number;
  body?: string;
  delayMs?: number;
  headers?: Record<string, string>;
  /** Streams NDJSON instead of `body`: each line written `afterMs` after the previous one. */
  stream?: Array<{ afterMs: number; line: unknown }>;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Answers, in order, for the next requests; afterwards every request gets 200. */
  script(...answers: ScriptedAnswer[]): void;
  /** Decides the answer from the request itself (after any scripted answers run out). */
  respondWith(responder: ((req: ReceivedRequest) => ScriptedAnswer | undefined) | undefined): void;
  /** As the agent: answers the `message` event whose text is `heard` with `reply` to speak (replaces the responder). */
  replyTo(heard: string, reply: string): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let answers: ScriptedAnswer[] = [];
  let responder: ((req: ReceivedRequest) => ScriptedAnswer | undefined) | undefined;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw);
      } catch {
        body = {};
      }
      const received = { headers: req.headers, rawBody: raw, body, receivedAt: Date.now() };
      requests.push(received);
      const answer = answers.shift() ?? responder?.(received) ?? { status: 200, body: '{"ok":true}' };
      const respond = () => {
        if (res.destroyed) return;
        if (answer.stream) {
          res.writeHead(answer.status, { 'content-type': 'application/x-ndjson', ...(answer.headers ?? {}) });
          const lines = [...answer.stream];
          const next = () => {
            const item = lines.shift();
            if (!item || res.destroyed) return void res.end();
            setTimeout(() => {
              if (!res.destroyed) res.write(`${JSON.stringify(item.line)}\n`);
              next();
            }, item.afterMs);
          };
          next();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests,
    script: (...next) => {
      answers = next;
    },
    respondWith: (next) => {
      responder = next;
    },
    replyTo: (heard, reply) => {
      responder = (req) =>
        req.body.event === 'message' && req.body.text === heard ? { status: 200, body: JSON.stringify({ text: reply }) } : undefined;
    },
    async waitForRequests(count, timeoutMs = 20_000) {
      await until(() => requests.length >= count, `${count} requests`, {
        timeoutMs,
        intervalMs: 25,
        detail: () => `the receiver got ${requests.length}`,
      });
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A local port nothing listens on: bound, then closed (a receiver that is down answers "connection refused"). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
