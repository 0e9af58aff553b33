import crypto from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';

/** One stream the worker waits for: how its socket is taken, and what its upgrade must prove (the carrier's signature). */
export interface ExpectedSocket<T> {
  accept(ws: WebSocket): T;
  /** The upgrade request and the public URL it was sent to; false refuses it (403, and the token stays unused). */
  verify?(req: IncomingMessage, url: string): boolean;
}

/**
 * The worker's listener for the media sockets a carrier opens to it (Telnyx media streaming, Twilio
 * Media Streams), each expected under a one-time token: the audio relay activity runs in the worker
 * that asked for the stream, so no rendezvous across processes is needed. Started on the first
 * audio call; it does not keep the process alive (the worker's shutdown ends it).
 */
export class MediaSocketServer {
  private server: http.Server | null = null;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 });
  private readonly waiting = new Map<string, { expected: ExpectedSocket<unknown>; take(ws: WebSocket): void }>();

  constructor(
    private readonly publicUrl: string,
    private readonly port: number,
    private readonly host = '0.0.0.0',
  ) {}

  /** A URL for one stream and the stream the carrier opens on it (rejects after `timeoutMs`). */
  async expect<T>(timeoutMs: number, expected: ExpectedSocket<T>): Promise<{ url: string; stream: Promise<T>; cancel(): void }> {
    await this.listen();
    const token = crypto.randomBytes(24).toString('base64url');
    let cancel = (): void => undefined;
    const stream = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(token);
        reject(new Error('the carrier did not open the media stream in time'));
      }, timeoutMs);
      cancel = () => {
        clearTimeout(timer);
        this.waiting.delete(token);
      };
      this.waiting.set(token, {
        expected,
        take: (ws) => {
          cancel();
          // Wrapped at once, so no frame sent right after the handshake is lost.
          resolve(expected.accept(ws));
        },
      });
    });
    return { url: this.urlOf(token), stream, cancel };
  }

  private urlOf(token: string): string {
    return `${this.publicUrl.replace(/\/+$/, '')}/${token}`;
  }

  private async listen(): Promise<void> {
    if (this.server) return;
    const httpServer = http.createServer((_req, res) => res.writeHead(426).end());
    httpServer.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    this.server = httpServer;
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(this.port, this.host, () => resolve());
    });
    httpServer.unref();
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const token = new URL(req.url ?? '/', 'http://worker').pathname.split('/').pop() ?? '';
    const waiting = this.waiting.get(token);
    // Not a stream we asked for (or asked for once already), or not signed by the carrier.
    const refusal = !waiting ? '404 Not Found' : waiting.expected.verify?.(req, this.urlOf(token)) === false ? '403 Forbidden' : null;
    if (refusal || !waiting) {
      socket.on('error', () => socket.destroy());
      socket.end(`HTTP/1.1 ${refusal ?? '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    this.waiting.delete(token);
    this.wss.handleUpgrade(req, socket, head, (ws) => waiting.take(ws));
  }
}
