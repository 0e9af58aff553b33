import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import {
  connectedMessage,
  parseCustomerMessage,
  StreamFramer,
  type RelayMessage,
  type StopMessage,
  type StopReason,
} from '../../platform/audio/framing';
import type { Logger } from '../../platform/logger';
import type { EgressPolicy } from '../../platform/net/egress';
import type { CarrierMediaEvent, CarrierMediaStream } from '../../adapters/carrier/port';

/**
 * The audio relay of one call on an audio-mode line: the carrier's media stream on one side, the
 * customer's WebSocket (`audio_handler_url`) on the other, in the JSON framing of
 * src/platform/audio/framing.ts (docs/audio.md). Policies are in docs/decisions/calls.md, "Audio mode".
 */

/** Why the relay ended. */
export type RelayEndedBy =
  /** The call ended: the carrier stream ended, or the signal was aborted (the workflow cancels the relay when the call ends). */
  | 'call'
  /** The customer closed its socket cleanly (close code 1000, or none). */
  | 'customer_closed'
  /** The customer's socket could not be opened at the start of the call, after every attempt. */
  | 'customer_unreachable'
  /** The customer's socket failed mid-call (error, abnormal close) and the one reconnect failed or failed again. */
  | 'customer_error'
  /** The carrier's media stream failed while the call may still be up. */
  | 'carrier_error';

export interface RelaySummary {
  /** Caller frames sent to the customer as `media`. */
  framesToCustomer: number;
  /** Customer `media` messages accepted by the carrier for the caller. */
  framesToCaller: number;
  /** Marks reported back to the customer (played, or cleared). */
  marksToCustomer: number;
  /** Customer messages rejected by the parser (each logged, then ignored). */
  malformed: number;
  /** Caller frames dropped because the customer side was more than ~1 s behind (or not connected yet). */
  dropped: number;
  /** Customer connections re-opened mid-call (0 or 1). */
  reconnects: number;
  /** Every stream id used, in order (a reconnect starts a new stream). */
  streamIds: string[];
  endedBy: RelayEndedBy;
  /** What went wrong, when `endedBy` is not `call` or `customer_closed`. */
  detail?: string;
}

export interface RelayAudioOptions {
  carrier: CarrierMediaStream;
  /** The line's `audio_handler_url` (ws: or wss:). */
  handlerUrl: string;
  callId: string;
  lineId: string;
  /** The first stream's id. */
  streamId: string;
  /** Abort to end the relay because the call ended: `stop` is sent and both ends are closed. */
  signal: AbortSignal;
  /** Vets the handler's address on every connection (src/platform/net/egress.ts); a refusal is a failed attempt. */
  egress: Pick<EgressPolicy, 'webSocketOptions'>;
  log?: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** A fresh stream id for a reconnect (default `MZ` + 32 hex digits). */
  newStreamId?: () => string;
  /** Connecting to the customer: per attempt, attempts, pause before the next attempt (grows linearly). */
  connect?: { timeoutMs?: number; attempts?: number; retryDelayMs?: number };
}

/** Defaults and bounds; see docs/decisions/calls.md, "Audio mode". */
export const RELAY_DEFAULTS = {
  connectTimeoutMs: 3_000,
  connectAttempts: 3,
  retryDelayMs: 250,
  /** Above this many bytes unsent on the customer socket (~4 s of media messages), the relay stops pulling caller frames until it falls below half. */
  customerHighWaterBytes: 64 * 1024,
  /**
   * Above this many bytes of customer messages not yet accepted by the carrier (2 s of µ-law), the
   * customer socket is paused until it falls below half. Marks and clears count too, at
   * `controlMessageBytes` (plus the mark's name), so a flood of them is held back like audio.
   */
  callerPendingHighWaterBytes: 16_000,
  controlMessageBytes: 64,
  /** How long a closing socket may take before it is terminated. */
  closeTimeoutMs: 1_000,
  /** Close codes that count as the customer hanging up cleanly rather than failing. */
  cleanCloseCodes: [1000, 1005] as readonly number[],
} as const;

/** Customer socket options: JSON text frames only, no compression, bounded messages. */
const CUSTOMER_SOCKET = { perMessageDeflate: false, maxPayload: 256 * 1024 } as const;
/** Malformed customer messages logged in full; after that, one line per 100. */
const MALFORMED_LOGGED = 5;

type SessionEnd = { by: 'call' | 'customer_closed' | 'customer_error' | 'carrier_error'; detail?: string };

export const newAudioStreamId = () => `MZ${crypto.randomBytes(16).toString('hex')}`;

/**
 * Relays one call's audio until the call ends or the customer goes away, and says how it ended.
 * Never throws for network reasons: every outcome is in the summary. Closes the carrier stream
 * (not the call) before returning.
 */
export async function relayAudio(options: RelayAudioOptions): Promise<RelaySummary> {
  const { carrier, handlerUrl, callId, lineId, signal, egress } = options;
  const log = options.log;
  const newStreamId = options.newStreamId ?? newAudioStreamId;
  const connectTimeoutMs = options.connect?.timeoutMs ?? RELAY_DEFAULTS.connectTimeoutMs;
  const connectAttempts = Math.max(1, options.connect?.attempts ?? RELAY_DEFAULTS.connectAttempts);
  const retryDelayMs = options.connect?.retryDelayMs ?? RELAY_DEFAULTS.retryDelayMs;

  const counts = { framesToCustomer: 0, framesToCaller: 0, marksToCustomer: 0, malformed: 0 };
  const streamIds: string[] = [];

  // The relay stops when the call ends (signal) or the carrier stream ends, whichever is first.
  const carrierDone = new AbortController();
  let carrierEnd: { reason: string; detail?: string } | null = null;
  void carrier.ended.then((end) => {
    carrierEnd = end;
    carrierDone.abort();
  });
  const stopping = AbortSignal.any([signal, carrierDone.signal]);
  /** Why the relay is stopping, once `stopping` is aborted. */
  const stopCause = (): SessionEnd => {
    if (signal.aborted || !carrierEnd || carrierEnd.reason !== 'error') return { by: 'call' };
    return { by: 'carrier_error', detail: carrierEnd.detail };
  };

  // The carrier iteration outlives a customer session: a pull pending when a session ends is
  // picked up by the next one, so no frame is lost between them.
  const iterator = carrier[Symbol.asyncIterator]();
  let pendingPull: Promise<IteratorResult<CarrierMediaEvent>> | null = null;

  async function connect(): Promise<WebSocket | { error: string }> {
    let lastError = 'not attempted';
    for (let attempt = 1; attempt <= connectAttempts; attempt += 1) {
      if (stopping.aborted) return { error: 'stopped' };
      try {
        return await openCustomerSocket(handlerUrl, connectTimeoutMs, stopping, egress);
      } catch (err) {
        lastError = (err as Error).message;
        log?.warn({ call_id: callId, attempt, error: lastError }, 'audio handler connection failed');
      }
      if (attempt < connectAttempts) await sleep(retryDelayMs * attempt, stopping);
    }
    return { error: lastError };
  }

  /** One customer connection: `connected`, `start`, then both directions until something ends it. */
  async function runSession(ws: WebSocket, streamId: string, previousStreamId: string | undefined): Promise<SessionEnd> {
    const framer = new StreamFramer(streamId);
    const end = await new Promise<SessionEnd>((resolveSession) => {
      let done = false;
      let wakePump: ((value: null) => void) | null = null;
      let pendingToCallerBytes = 0;
      let paused = false;

      const finish = (end: SessionEnd) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onStop);
        carrierDone.signal.removeEventListener('abort', onStop);
        ws.removeAllListeners('message');
        const wake = wakePump;
        wakePump = null;
        wake?.(null);
        resolveSession(end);
      };
      const onStop = () => finish(stopCause());
      const send = (message: RelayMessage) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
      };

      ws.on('message', (data, isBinary) => {
        const parsed = parseCustomerMessage(data as Buffer, streamId, isBinary);
        if (!parsed.ok) {
          counts.malformed += 1;
          if (counts.malformed <= MALFORMED_LOGGED || counts.malformed % 100 === 0) {
            log?.warn(
              { call_id: callId, stream_id: streamId, error: parsed.error, malformed: counts.malformed },
              'malformed audio handler message ignored',
            );
          }
          return;
        }
        const message = parsed.message;
        if (message.event === 'media')
          forwardToCarrier(
            () => carrier.send(message.payload),
            message.payload.length,
            () => (counts.framesToCaller += 1),
          );
        else if (message.event === 'mark')
          forwardToCarrier(() => carrier.mark(message.name), RELAY_DEFAULTS.controlMessageBytes + message.name.length);
        else forwardToCarrier(() => carrier.clear(), RELAY_DEFAULTS.controlMessageBytes);
      });
      /**
       * Hands one customer message to the carrier at once (so order is the socket's order), and
       * pauses reading the customer's socket while too much is not yet taken.
       */
      const forwardToCarrier = (handOver: () => Promise<void>, bytes: number, onTaken?: () => void) => {
        pendingToCallerBytes += bytes;
        handOver()
          .then(onTaken, () => undefined) // a failure means the carrier stream ended; its end is handled through `ended`
          .finally(() => {
            pendingToCallerBytes -= bytes;
            if (paused && pendingToCallerBytes <= RELAY_DEFAULTS.callerPendingHighWaterBytes / 2) {
              paused = false;
              ws.resume();
            }
          });
        if (!paused && pendingToCallerBytes > RELAY_DEFAULTS.callerPendingHighWaterBytes) {
          paused = true;
          ws.pause();
        }
      };
      ws.on('close', (code, reason) => {
        if (RELAY_DEFAULTS.cleanCloseCodes.includes(code)) finish({ by: 'customer_closed' });
        else
          finish({
            by: 'customer_error',
            detail: `closed with ${code}${reason.length ? ` ${reason.toString('utf8').slice(0, 100)}` : ''}`,
          });
      });
      ws.on('error', (err) => finish({ by: 'customer_error', detail: err.message }));
      if (stopping.aborted) return finish(stopCause());
      signal.addEventListener('abort', onStop, { once: true });
      carrierDone.signal.addEventListener('abort', onStop, { once: true });

      send(connectedMessage());
      send(framer.start({ callId, lineId, previousStreamId }));
      const startedAt = performance.now();
      let carrierBase: number | null = null;

      // Caller → customer. Pulls one event at a time; while the customer socket is congested it
      // stops pulling, and the carrier adapter's bounded queue (1 s) drops the oldest frames.
      void (async () => {
        while (!done) {
          pendingPull ??= iterator.next();
          const pull = pendingPull;
          const result = await new Promise<IteratorResult<CarrierMediaEvent> | null>((resolve) => {
            wakePump = resolve;
            pull.then(resolve, () => resolve({ done: true, value: undefined }));
          });
          wakePump = null;
          if (result === null || done) return;
          pendingPull = null;
          if (result.done) {
            const end = await carrier.ended;
            carrierEnd = end;
            return finish(end.reason === 'error' ? { by: 'carrier_error', detail: end.detail } : { by: 'call' });
          }
          const event = result.value;
          if (event.type === 'media') {
            // Media time since this stream's start: the carrier's clock, anchored at the first frame.
            carrierBase ??= event.timestamp - (performance.now() - startedAt);
            send(framer.media(event.payload, event.timestamp - carrierBase));
            counts.framesToCustomer += 1;
          } else {
            send(framer.mark(event.name));
            counts.marksToCustomer += 1;
          }
          if (ws.bufferedAmount > RELAY_DEFAULTS.customerHighWaterBytes) {
            while (!done && ws.bufferedAmount > RELAY_DEFAULTS.customerHighWaterBytes / 2) await sleep(5);
          }
        }
      })().catch((err: Error) => finish({ by: 'carrier_error', detail: `relaying caller audio failed: ${err.message}` }));
    });
    const stopReason: StopReason | null = end.by === 'call' ? 'call_ended' : end.by === 'carrier_error' ? 'carrier_error' : null;
    if (end.by === 'customer_error') terminate(ws);
    else await closeCustomer(ws, stopReason && framer.stop(stopReason));
    return end;
  }

  /** Sends `stop` (when given and the socket is still open) and closes; terminates what does not close in time. */
  async function closeCustomer(ws: WebSocket, stop: StopMessage | null): Promise<void> {
    ws.removeAllListeners('message');
    ws.removeAllListeners('error');
    ws.on('error', () => undefined);
    if (ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    if (stop && ws.readyState === WebSocket.OPEN) {
      if (ws.isPaused) ws.resume();
      ws.send(JSON.stringify(stop));
      ws.close(1000, stop.stop.reason === 'call_ended' ? 'call ended' : 'carrier media failed');
    } else if (ws.readyState === WebSocket.OPEN) {
      ws.close(1000);
    }
    const timer = setTimeout(() => ws.terminate(), RELAY_DEFAULTS.closeTimeoutMs);
    await closed;
    clearTimeout(timer);
  }

  let endedBy: RelayEndedBy;
  let detail: string | undefined;
  let reconnects = 0;
  try {
    let streamId = options.streamId;
    let previousStreamId: string | undefined;
    let connection = await connect();
    for (;;) {
      if (!(connection instanceof WebSocket)) {
        const cause = stopping.aborted ? stopCause() : null;
        if (cause) ({ by: endedBy, detail } = cause);
        else {
          endedBy = reconnects === 0 ? 'customer_unreachable' : 'customer_error';
          detail = connection.error;
        }
        break;
      }
      streamIds.push(streamId);
      log?.info({ call_id: callId, stream_id: streamId, reconnect: previousStreamId !== undefined }, 'audio stream started');
      const end = await runSession(connection, streamId, previousStreamId);
      if (end.by === 'customer_error' && reconnects === 0 && !stopping.aborted) {
        reconnects = 1;
        log?.warn({ call_id: callId, stream_id: streamId, error: end.detail }, 'audio handler failed mid-call; reconnecting once');
        previousStreamId = streamId;
        streamId = newStreamId();
        connection = await connect();
        continue;
      }
      endedBy = end.by;
      detail = end.detail;
      break;
    }
  } finally {
    await carrier.close();
  }
  const summary: RelaySummary = {
    ...counts,
    dropped: carrier.stats().dropped,
    reconnects,
    streamIds,
    endedBy,
    ...(detail ? { detail } : {}),
  };
  log?.info({ call_id: callId, ...summary }, 'audio relay ended');
  return summary;
}

/** Drops a failed socket at once (no close handshake with a peer that is not answering). */
function terminate(ws: WebSocket): void {
  ws.removeAllListeners('message');
  ws.removeAllListeners('error');
  ws.on('error', () => undefined);
  ws.terminate();
}

/**
 * Opens the customer's socket, or throws (egress refusal, handshake timeout, refusal, network
 * error, `signal`). Redirects are not followed (`ws`'s default).
 */
async function openCustomerSocket(
  url: string,
  timeoutMs: number,
  signal: AbortSignal,
  egress: Pick<EgressPolicy, 'webSocketOptions'>,
): Promise<WebSocket> {
  const vetted = await egress.webSocketOptions(url);
  return new Promise((resolve, reject) => {
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, { ...CUSTOMER_SOCKET, ...vetted, handshakeTimeout: timeoutMs });
    } catch (err) {
      reject(err as Error);
      return;
    }
    const fail = (err: Error) => {
      signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      reject(err);
    };
    const onAbort = () => fail(new Error('stopped'));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      fail(new Error(`audio handler answered ${res.statusCode} instead of switching protocols`));
    });
    ws.once('error', fail);
    ws.once('open', () => {
      signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners();
      resolve(ws);
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
