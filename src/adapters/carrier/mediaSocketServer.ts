import crypto from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { CarrierRejectedError } from './port';

/** One stream the worker waits for: how its socket is taken, and what its upgrade must prove (the carrier's signature). */
export interface ExpectedSocket<T> {
  accept(ws: WebSocket): T;
  /** The upgrade request and the public URL it was sent to; false refuses it (403, and the token stays unused). */
  verify?(req: IncomingMessage, url: string): boolean;
}

/** A one-time URL handed to the carrier, and the socket the carrier opens on it. */
export interface MediaSocketExpectation<T> {
  url: string;
  /** Whether the carrier's socket is already here. */
  arrived(): boolean;
  /**
   * The stream, once the carrier was asked for it: `timeoutMs` counts from this call, so a slow answer from the
   * carrier's API does not eat the time its socket has to arrive. Call it once.
   */
  opened(timeoutMs: number): Promise<T>;
  /** The carrier will not open it: the URL is refused from now on. */
  cancel(): void;
}

/**
 * Asks the carrier for the stream (`ask`: the API request handing it `expectation.url`), then waits up to
 * `timeoutMs` for its socket. A refusal (`CarrierRejectedError`) cancels the URL. Any other failure of the
 * request (a timeout, a lost answer) may hide a request the carrier carried out, perhaps later: the socket is
 * still awaited on the same URL, and the failure is thrown only when none comes. Without that wait a retry would
 * move the call to a new URL, and the earlier request, applied late, would move it back to a URL nobody holds.
 */
export async function openExpectedStream<T>(
  expectation: MediaSocketExpectation<T>,
  timeoutMs: number,
  ask: () => Promise<void>,
): Promise<T> {
  try {
    await ask();
  } catch (err) {
    if (err instanceof CarrierRejectedError && !expectation.arrived()) {
      expectation.cancel();
      throw err;
    }
    try {
      return await expectation.opened(timeoutMs);
    } catch {
      throw err;
    }
  }
  return expectation.opened(timeoutMs);
}

/**
 * The worker's listener for the media sockets a carrier opens to it (Telnyx media streaming, Twilio
 * Media Streams), each expected under a one-time token: the audio relay activity runs in the worker
 * that asked for the stream, so no rendezvous across processes is needed. Started with the worker
 * (`start`); it does not keep the process alive (the worker's shutdown ends it).
 */
export class MediaSocketServer {
  private listening: Promise<void> | null = null;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 });
  private readonly waiting = new Map<string, { expected: ExpectedSocket<unknown>; take(ws: WebSocket): void }>();

  constructor(
    private readonly publicUrl: string,
    private readonly port: number,
    private readonly host = '0.0.0.0',
  ) {}

  /** A URL for one stream; nothing waits for its socket until `opened` (see `openExpectedStream`). */
  async expect<T>(expected: ExpectedSocket<T>): Promise<MediaSocketExpectation<T>> {
    await this.listen();
    const token = crypto.randomBytes(24).toString('base64url');
    let arrived: { stream: T } | undefined;
    let onArrival: ((stream: T) => void) | undefined;
    this.waiting.set(token, {
      expected,
      take: (ws) => {
        // Wrapped at once, so no frame sent right after the handshake is lost.
        arrived = { stream: expected.accept(ws) };
        onArrival?.(arrived.stream);
      },
    });
    return {
      url: this.urlOf(token),
      arrived: () => arrived !== undefined,
      opened: (timeoutMs) =>
        new Promise<T>((resolve, reject) => {
          if (arrived) return resolve(arrived.stream);
          const timer = setTimeout(() => {
            this.waiting.delete(token);
            reject(new Error('the carrier did not open the media stream in time'));
          }, timeoutMs);
          onArrival = (stream) => {
            clearTimeout(timer);
            resolve(stream);
          };
        }),
      cancel: () => void this.waiting.delete(token),
    };
  }

  private urlOf(token: string): string {
    return `${this.publicUrl.replace(/\/+$/, '')}/${token}`;
  }

  /**
   * Listens now. The worker starts it with the process (src/main/carriers.ts), so a port already taken shows in
   * its log at start rather than at the first audio call; `expect` listens too, and tries again after a failure.
   */
  start(): Promise<void> {
    return this.listen();
  }

  private listen(): Promise<void> {
    this.listening ??= this.bind().catch((err: unknown) => {
      // Not listening: the next call binds again (the port may be free by then) instead of handing out URLs nobody serves.
      this.listening = null;
      throw err;
    });
    return this.listening;
  }

  private async bind(): Promise<void> {
    const httpServer = http.createServer((_req, res) => res.writeHead(426).end());
    httpServer.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
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
