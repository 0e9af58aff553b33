import crypto from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';
import { CarrierRejectedError } from '../port';
import { WebSocketMediaStream, type DecodedMediaMessage } from '../webSocketMedia';

/**
 * Telnyx media streaming for audio lines: Telnyx connects to us. The worker listens on
 * TELNYX_MEDIA_PORT; `streaming_start` gives Telnyx `<TELNYX_MEDIA_URL>/<token>`, a one-time token,
 * and the socket that arrives with it becomes the call's `CarrierMediaStream` (bidirectional RTP
 * mode, PCMU 8 kHz: the µ-law the audio relay speaks).
 *
 * Telnyx → us: `connected`, `start`, `media {sequence_number, media: {track, chunk, timestamp, payload}}`
 * (caller audio on the inbound track), `mark {mark: {name}}` (played), `stop`. Us → Telnyx:
 * `media {media: {payload}}`, `mark {mark: {name}}`, `clear`.
 */
export class TelnyxMediaStream extends WebSocketMediaStream {
  static accept(ws: WebSocket): TelnyxMediaStream {
    return new TelnyxMediaStream(ws);
  }

  protected encodeMedia(payload: Buffer): object {
    return { event: 'media', media: { payload: payload.toString('base64') } };
  }

  protected encodeMark(name: string): object {
    return { event: 'mark', mark: { name } };
  }

  protected encodeClear(): object {
    return { event: 'clear' };
  }

  protected decode(message: Record<string, unknown>): DecodedMediaMessage | null {
    const media = message.media as { track?: unknown; chunk?: unknown; timestamp?: unknown; payload?: unknown } | undefined;
    if (message.event === 'media' && media && typeof media.payload === 'string' && (media.track ?? 'inbound') === 'inbound')
      // `chunk` numbers the media frames 1, 2, 3…; `sequence_number` counts every message.
      return {
        kind: 'media',
        sequence: Number(media.chunk),
        timestamp: Number(media.timestamp),
        payload: Buffer.from(media.payload, 'base64'),
      };
    const mark = message.mark as { name?: unknown } | undefined;
    if (message.event === 'mark' && typeof mark?.name === 'string') return { kind: 'mark', name: mark.name };
    if (message.event === 'stop') return { kind: 'stop' };
    return null;
  }
}

/**
 * The worker's listener for Telnyx's media sockets, each expected by a one-time token. Started on the
 * first audio call; it does not keep the process alive (the worker's shutdown ends it).
 */
export class TelnyxMediaServer {
  private server: WebSocketServer | null = null;
  private readonly waiting = new Map<string, (stream: TelnyxMediaStream) => void>();

  constructor(
    private readonly publicUrl: string,
    private readonly port: number,
    private readonly host = '0.0.0.0',
  ) {}

  /** A URL for one stream and the stream Telnyx opens on it (rejects after `timeoutMs`). */
  async expect(timeoutMs: number): Promise<{ url: string; stream: Promise<TelnyxMediaStream>; cancel(): void }> {
    await this.listen();
    const token = crypto.randomBytes(24).toString('base64url');
    let cancel = (): void => undefined;
    const stream = new Promise<TelnyxMediaStream>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(token);
        reject(new Error('Telnyx did not open the media stream in time'));
      }, timeoutMs);
      cancel = () => {
        clearTimeout(timer);
        this.waiting.delete(token);
      };
      this.waiting.set(token, (opened) => {
        cancel();
        resolve(opened);
      });
    });
    return { url: `${this.publicUrl.replace(/\/+$/, '')}/${token}`, stream, cancel };
  }

  private async listen(): Promise<void> {
    if (this.server) return;
    const httpServer = http.createServer();
    this.server = new WebSocketServer({ server: httpServer, perMessageDeflate: false, maxPayload: 1024 * 1024 });
    this.server.on('connection', (ws, req) => this.onConnection(ws, req));
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(this.port, this.host, () => resolve());
    });
    httpServer.unref();
  }

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const token = (req.url ?? '').split('/').pop() ?? '';
    const take = this.waiting.get(token);
    if (!take) {
      // Not a stream we asked for (or asked for once already).
      ws.close(1008, 'unknown stream');
      return;
    }
    // Wrapped at once, so no frame sent right after the handshake is lost.
    take(TelnyxMediaStream.accept(ws));
  }
}

/** What `openMediaStream` throws when the worker has no media listener configured. */
export function noMediaListener(): CarrierRejectedError {
  return new CarrierRejectedError('audio lines need TELNYX_MEDIA_URL and TELNYX_MEDIA_PORT on the worker');
}
