import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import getRawBody from 'raw-body';
import { WebSocketServer, type WebSocket } from 'ws';
import { verifyWebhook } from '../../../sdk/webhooks';
import { fail } from './runner';

/**
 * The smoke kit's local receiver, reached through the operator's tunnel at SMOKE_RECEIVER_URL:
 * the webhook endpoint of the lines the kit creates (verified with each line's signing secret by
 * the customer SDK's `verifyWebhook`, as a customer would), plus whatever routes and WebSocket
 * paths a provider's checks add (a TwiML answer, a relay, an audio handler). Every delivery is
 * kept, duplicates included, so a check can count them.
 */

export interface ReceivedEvent {
  lineId: string;
  eventId: string;
  deliveryId: string;
  type: string;
  callId: string | undefined;
  body: Record<string, unknown>;
  at: number;
}

export interface RawAnswer {
  status: number;
  type?: string;
  body: string;
}

type RawRoute = (request: { headers: http.IncomingHttpHeaders; body: Buffer }) => Promise<RawAnswer>;

export class Receiver {
  readonly events: ReceivedEvent[] = [];
  /** Deliveries refused (bad signature, unknown line): each is a finding. */
  readonly refused: string[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly replies = new Map<string, string[]>();
  private readonly routes = new Map<string, RawRoute>();
  private readonly sockets = new Map<string, (socket: WebSocket) => void>();
  private readonly pings = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private readonly wss = new WebSocketServer({ noServer: true });
  private server: http.Server | undefined;

  constructor(
    readonly publicUrl: string,
    private readonly port: number,
  ) {}

  get webhookUrl(): string {
    return `${this.publicUrl}/switchboard`;
  }

  /** The public WebSocket URL of `path` (https becomes wss). */
  socketUrl(path: string): string {
    return `${this.publicUrl.replace(/^http/, 'ws')}${path}`;
  }

  /** Webhooks of this line are verified with its secret; others are refused (401). */
  addLine(lineId: string, secret: string): void {
    this.secrets.set(lineId, secret);
  }

  /** The next `message` event of the line is answered with `text` (spoken by the line); later ones with silence. */
  replyNext(lineId: string, text: string): void {
    this.replies.set(lineId, [...(this.replies.get(lineId) ?? []), text]);
  }

  route(method: string, path: string, answer: RawRoute): void {
    this.routes.set(`${method} ${path}`, answer);
  }

  onSocket(path: string, accept: (socket: WebSocket) => void): void {
    this.sockets.set(path, accept);
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const accept = this.sockets.get(new URL(req.url ?? '/', 'http://receiver').pathname);
      if (!accept) return socket.destroy();
      this.wss.handleUpgrade(req, socket, head, accept);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    this.wss.clients.forEach((client) => client.terminate());
    const closed = new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    await closed;
  }

  /** Whether a request to the public URL reaches this process (the tunnel works); the reason when not. */
  async reachable(): Promise<string | undefined> {
    const nonce = crypto.randomUUID();
    try {
      const response = await fetch(`${this.publicUrl}/smoke/ping/${nonce}`, { signal: AbortSignal.timeout(10_000) });
      if (this.pings.has(nonce)) return undefined;
      return `${this.publicUrl} answered ${response.status} but the request did not reach this receiver (port ${this.port})`;
    } catch (err) {
      return `${this.publicUrl} cannot be reached: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** The first event (already received or still to come) that `matches`; fails after `timeoutMs`. */
  async waitFor(what: string, matches: (event: ReceivedEvent) => boolean, timeoutMs: number): Promise<ReceivedEvent> {
    const found = () => this.events.find(matches);
    const now = found();
    if (now) return now;
    return new Promise<ReceivedEvent>((resolve, reject) => {
      const check = () => {
        const event = found();
        if (!event) return;
        done();
        resolve(event);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${what}: no such webhook within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    }).catch((err: Error) => fail(err.message));
  }

  /** Events of one call and type, one per `event_id` (Switchboard's own retries collapsed). */
  distinct(callId: string, type: string): ReceivedEvent[] {
    const byId = new Map<string, ReceivedEvent>();
    for (const event of this.events)
      if (event.callId === callId && event.type === type && !byId.has(event.eventId)) byId.set(event.eventId, event);
    return [...byId.values()];
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    const send = (answer: RawAnswer): void => {
      res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' }).end(answer.body);
    };
    try {
      const ping = /^\/smoke\/ping\/([0-9a-f-]{36})$/.exec(path);
      if (ping) {
        this.pings.add(ping[1]);
        return send({ status: 200, type: 'text/plain', body: 'switchboard smoke receiver' });
      }
      const body = await getRawBody(req, { limit: '1mb' });
      if (req.method === 'POST' && path === '/switchboard') return send(await this.webhook(req.headers, body));
      const route = this.routes.get(`${req.method} ${path}`);
      send(route ? await route({ headers: req.headers, body }) : { status: 404, body: '{"error":"not_found"}' });
    } catch (err) {
      send({ status: 500, body: JSON.stringify({ error: err instanceof Error ? err.message : String(err) }) });
    }
  }

  private async webhook(headers: http.IncomingHttpHeaders, rawBody: Buffer): Promise<RawAnswer> {
    let lineId: unknown;
    try {
      lineId = (JSON.parse(rawBody.toString('utf8')) as { line_id?: unknown }).line_id;
    } catch {
      lineId = undefined;
    }
    const secret = typeof lineId === 'string' ? this.secrets.get(lineId) : undefined;
    const verified = await verifyWebhook({ rawBody, headers, secrets: secret ? [secret] : [] });
    if (!verified.ok) {
      this.refused.push(`${String(lineId)}: ${verified.reason}`);
      return { status: 401, body: JSON.stringify({ error: verified.reason }) };
    }
    const { body } = verified;
    const event: ReceivedEvent = {
      lineId: lineId as string,
      eventId: verified.eventId ?? verified.deliveryId,
      deliveryId: verified.deliveryId,
      type: String(body.event),
      callId: typeof body.call_id === 'string' ? body.call_id : undefined,
      body,
      at: Date.now(),
    };
    this.events.push(event);
    for (const waiter of [...this.waiters]) waiter();
    const reply = event.type === 'message' ? this.replies.get(event.lineId)?.shift() : undefined;
    return { status: 200, body: JSON.stringify(reply ? { text: reply } : {}) };
  }
}
