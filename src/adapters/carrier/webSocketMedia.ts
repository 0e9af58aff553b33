import WebSocket from 'ws';
import { MAX_QUEUED_CALLER_FRAMES, type CarrierMediaEnd, type CarrierMediaEvent, type CarrierMediaStream } from './port';

/** One caller-side message of a carrier's media socket, decoded. */
export type DecodedMediaMessage =
  { kind: 'media'; sequence: number; timestamp: number; payload: Buffer } | { kind: 'mark'; name: string } | { kind: 'stop' };

/**
 * The caller-side `media`, `mark` and `stop` messages as Twilio's Media Streams define them, which
 * Telnyx's media streaming repeats: `media {media: {track, chunk, timestamp, payload}}` (the
 * inbound track only; `chunk` numbers the frames), `mark {mark: {name}}`, `stop`. Anything else is null.
 */
export function decodeStreamedMedia(message: Record<string, unknown>): DecodedMediaMessage | null {
  const media = message.media as { track?: unknown; chunk?: unknown; timestamp?: unknown; payload?: unknown } | undefined;
  if (message.event === 'media' && media && typeof media.payload === 'string' && (media.track ?? 'inbound') === 'inbound')
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

/**
 * A `CarrierMediaStream` over one open WebSocket carrying JSON messages: the queueing, backpressure,
 * marks and end of the port, shared by the carriers' media sockets. Each carrier says how its
 * messages look (`encode*`, `decode`).
 */
export abstract class WebSocketMediaStream implements CarrierMediaStream {
  readonly format = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } as const;
  readonly ended: Promise<CarrierMediaEnd>;
  private resolveEnded!: (end: CarrierMediaEnd) => void;
  private end: CarrierMediaEnd | null = null;
  /** Events not yet pulled by the consumer (bounded: see `push`). */
  private queue: CarrierMediaEvent[] = [];
  private queuedMedia = 0;
  /** A consumer waiting in `next()`. */
  private waiter: (() => void) | null = null;
  private iterating = false;
  private outSequence = 0;
  private counters = { framesReceived: 0, framesSent: 0, dropped: 0 };
  private stopReceived = false;

  protected constructor(private readonly ws: WebSocket) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('close', (code, reason) => {
      if (this.stopReceived || code === 1000) this.finish({ reason: 'call_ended' });
      else
        this.finish({
          reason: 'error',
          detail: `media socket closed with ${code}${reason.length ? ` ${reason.toString('utf8').slice(0, 100)}` : ''}`,
        });
    });
    ws.on('error', (err) => this.finish({ reason: 'error', detail: err.message }));
  }

  /** The carrier's message for our audio, our mark and clearing what was not played yet. */
  protected abstract encodeMedia(payload: Buffer, sequence: number): object;
  protected abstract encodeMark(name: string): object;
  protected abstract encodeClear(): object;
  /** The carrier's message, or null for one the port has no use for. */
  protected abstract decode(message: Record<string, unknown>): DecodedMediaMessage | null;

  send(payload: Buffer): Promise<void> {
    this.outSequence += 1;
    return this.write(this.encodeMedia(payload, this.outSequence)).then(() => {
      this.counters.framesSent += 1;
    });
  }

  mark(name: string): Promise<void> {
    return this.write(this.encodeMark(name));
  }

  clear(): Promise<void> {
    return this.write(this.encodeClear());
  }

  async close(): Promise<void> {
    if (this.end) return;
    this.finish({ reason: 'closed' });
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 1_000);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.ws.close(1000, 'closed by switchboard');
    });
  }

  stats() {
    return { ...this.counters };
  }

  [Symbol.asyncIterator](): AsyncIterator<CarrierMediaEvent> {
    if (this.iterating) throw new Error('a media stream has a single consumer');
    this.iterating = true;
    return {
      next: async (): Promise<IteratorResult<CarrierMediaEvent>> => {
        for (;;) {
          const event = this.queue.shift();
          if (event) {
            if (event.type === 'media') this.queuedMedia -= 1;
            return { value: event, done: false };
          }
          if (this.end) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.waiter = resolve));
        }
      },
      return: async (): Promise<IteratorResult<CarrierMediaEvent>> => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  private write(message: object): Promise<void> {
    if (this.end || this.ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('media stream has ended'));
    return new Promise((resolve, reject) => {
      this.ws.send(JSON.stringify(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (isBinary || this.end) return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    } catch {
      return;
    }
    const decoded = this.decode(message);
    if (decoded?.kind === 'media') {
      this.counters.framesReceived += 1;
      this.push({ type: 'media', sequence: decoded.sequence, timestamp: decoded.timestamp, payload: decoded.payload });
    } else if (decoded?.kind === 'mark') {
      this.push({ type: 'mark', name: decoded.name });
    } else if (decoded?.kind === 'stop') {
      this.stopReceived = true;
    }
  }

  /** Queues an event for the consumer; beyond one second of caller frames the oldest frame goes. */
  private push(event: CarrierMediaEvent): void {
    this.queue.push(event);
    if (event.type === 'media') {
      this.queuedMedia += 1;
      if (this.queuedMedia > MAX_QUEUED_CALLER_FRAMES) {
        const oldest = this.queue.findIndex((queued) => queued.type === 'media');
        this.queue.splice(oldest, 1);
        this.queuedMedia -= 1;
        this.counters.dropped += 1;
      }
    }
    this.wake();
  }

  private finish(end: CarrierMediaEnd): void {
    if (this.end) return;
    this.end = end;
    this.resolveEnded(end);
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}
