import WebSocket from 'ws';
import {
  CarrierRejectedError,
  MAX_QUEUED_CALLER_FRAMES,
  type CarrierMediaEnd,
  type CarrierMediaEvent,
  type CarrierMediaStream,
} from './port';

/**
 * The simulator's media stream for one call (docs/simulator.md, "Audio (media streams)"): a
 * WebSocket to `/carrier/v1/calls/{carrier_call_id}/media` carrying JSON messages.
 *
 * Simulator → us: `start`, `media {sequence, timestamp, payload}`, `mark {name}` (played),
 * `stop {reason}`. Us → simulator: `media {sequence, payload}`, `mark {name}`, `clear`.
 */
export class SimulatorMediaStream implements CarrierMediaStream {
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

  private constructor(private readonly ws: WebSocket) {
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

  /**
   * Connects. A 4xx answer to the upgrade (401, 404: unknown call, 409: call not answered) is a
   * `CarrierRejectedError`; anything else that fails (5xx, network, `timeoutMs`) a plain `Error`.
   */
  static open(url: URL, apiKey: string, timeoutMs: number): Promise<SimulatorMediaStream> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, {
        headers: { authorization: `Bearer ${apiKey}` },
        handshakeTimeout: timeoutMs,
        perMessageDeflate: false,
        maxPayload: 1024 * 1024,
      });
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(err);
      };
      ws.once('unexpected-response', (_req, res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8').slice(0, 200);
          if (status >= 400 && status < 500) fail(new CarrierRejectedError(`carrier refused the media stream: ${status} ${body}`));
          else fail(new Error(`carrier error opening the media stream: ${status}`));
        });
        res.on('error', (err) => fail(err));
      });
      ws.once('error', (err) => fail(err));
      ws.once('open', () => {
        if (settled) return;
        settled = true;
        ws.removeAllListeners();
        resolve(new SimulatorMediaStream(ws));
      });
    });
  }

  send(payload: Buffer): Promise<void> {
    this.outSequence += 1;
    return this.write({ event: 'media', sequence: this.outSequence, payload: payload.toString('base64') }).then(() => {
      this.counters.framesSent += 1;
    });
  }

  mark(name: string): Promise<void> {
    return this.write({ event: 'mark', name });
  }

  clear(): Promise<void> {
    return this.write({ event: 'clear' });
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
    if (message.event === 'media' && typeof message.payload === 'string') {
      this.counters.framesReceived += 1;
      this.push({
        type: 'media',
        sequence: Number(message.sequence),
        timestamp: Number(message.timestamp),
        payload: Buffer.from(message.payload, 'base64'),
      });
    } else if (message.event === 'mark' && typeof message.name === 'string') {
      this.push({ type: 'mark', name: message.name });
    } else if (message.event === 'stop') {
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
