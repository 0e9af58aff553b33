import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type Router from '@koa/router';
import WebSocket, { WebSocketServer } from 'ws';
import { createLogger, type Logger } from '../src/platform/logger';
import {
  chunkFrames,
  FRAME_BYTES,
  FRAME_MS,
  framesFor,
  MULAW_SAMPLE_RATE,
  mulawSumOfSquares,
  toneFrames,
} from '../src/platform/audio/mulaw';
import type { CallRecord, CallSimulatorState } from './carrier/calls';
import { answer, badRequest, bearerMatches, readJson } from './http';
import { synthesizeSpeech } from './speech';

/**
 * The media side of the carrier simulator: the raw audio of answered calls over a WebSocket
 * (`/carrier/v1/calls/{carrier_call_id}/media`), in the manner of Twilio Media Streams. The
 * simulated caller sends 20 ms µ-law frames paced in real time when the control API tells it to,
 * and plays what Switchboard sends back (in real time, so marks and `clear` mean something).
 * In memory, like the rest of the simulator. See docs/simulator.md, "Audio (media streams)".
 */

const MEDIA_PATH = /^\/carrier\/v1\/calls\/([^/?#]+)\/media(?:\?.*)?$/;
/** How often open streams check whether their call is still answered. */
const CALL_WATCH_MS = 100;
/** The caller's socket holding more than this unsent (about 2 s of frames as JSON): new frames are dropped, as a real-time sender would. */
const SEND_HIGH_WATER_BYTES = 64 * 1024;
/** Sent frames remembered for matching echoes (about 20 s at 50 frames/s). */
const ECHO_WINDOW = 1_024;
/** Round-trip samples kept per call (about 6.5 minutes of frames); later ones are counted, not kept. */
const MAX_LATENCY_SAMPLES = 20_000;
const MAX_DURATION_MS = 10 * 60_000;
const MAX_TEXT = 1_000;
/** Without espeak-ng, text becomes a tone this long per word. */
const MS_PER_WORD = 350;
const DEFAULT_TONE_HZ = 440;
const DEFAULT_DURATION_MS = 1_000;
/** Close code for a stream replaced by a newer connection for the same call. */
export const MEDIA_REPLACED_CLOSE_CODE = 4409;

/** One mark Switchboard sent: when it arrived and when the audio before it finished playing. */
export interface MarkRecord {
  name: string;
  received_at: string;
  played_at: string | null;
}

/** What `GET /control/calls/{call_id}/audio` answers. */
export interface AudioReport {
  call_id: string;
  carrier_call_id: string;
  connected: boolean;
  /** Media connections accepted for the call so far. */
  connections: number;
  /** The caller's audio (caller → Switchboard). */
  sent: {
    frames: number;
    bytes: number;
    /** Frames the caller could not send (no connection, or the socket was more than ~2 s behind). */
    dropped: number;
    /** Whether frames are still being paced out. */
    sending: boolean;
    first_sent_at: string | null;
    last_sent_at: string | null;
  };
  /** Switchboard's audio (Switchboard → caller). */
  received: {
    frames: number;
    bytes: number;
    /** Every frame's `sequence` was the previous one + 1 (per connection). */
    in_order: boolean;
    out_of_order: number;
    /** Messages that were not valid JSON of a known event. */
    malformed: number;
    first_received_at: string | null;
    last_received_at: string | null;
    /** RMS of the decoded audio received (16-bit scale); 0 for silence. */
    rms: number;
  };
  /** Received frames whose bytes equal a frame the caller sent (an echo), matched oldest first. */
  echo: {
    matched: number;
    /** The matched frames came back in the order the caller sent them. */
    in_order: boolean;
    round_trip_ms: { p50: number; p99: number; max: number } | null;
  };
  marks: MarkRecord[];
  clears: number;
  /** Bytes of received audio that a `clear` dropped before they were played. */
  cleared_bytes: number;
}

/** Observed for every media frame the caller receives (the bench's in-process hook). */
export interface ReceivedFrame {
  callId: string;
  bytes: number;
  /** `performance.now()` when the matching frame was sent, if this frame is an echo of one. */
  sentAt: number | null;
  /** `performance.now()` at receipt. */
  receivedAt: number;
}

interface PlayItem {
  frames: Iterator<Buffer>;
  /** The item's next frame, fetched ahead so an item leaves the queue as soon as its last frame is sent. */
  next: Buffer;
  stamp: boolean;
}

interface MediaCall {
  callId: string;
  carrierCallId: string;
  socket: WebSocket | null;
  connections: number;
  /** performance.now() when the current connection's media clock started. */
  clockStart: number;
  /** The carrier's sequence number of the last frame sent on the current connection. */
  sequence: number;
  play: PlayItem[];
  timer: NodeJS.Timeout | null;
  /** When the next frame is due (performance.now() clock). */
  nextAt: number;
  sent: { frames: number; bytes: number; dropped: number; firstAt: number | null; lastAt: number | null };
  /** When each of the last ECHO_WINDOW sent frames went (slot = rank among sent frames % ECHO_WINDOW). */
  sentTimes: Float64Array;
  /** Their bytes (latin1), by the same slot. */
  sentKeys: string[];
  /** Frame bytes (latin1) → ranks of unmatched sent frames with those bytes, oldest first. */
  pendingEcho: Map<string, number[]>;
  received: {
    frames: number;
    bytes: number;
    lastSequence: number;
    outOfOrder: number;
    malformed: number;
    firstAt: number | null;
    lastAt: number | null;
    sumSquares: number;
  };
  echo: { matched: number; lastIndex: number; inOrder: boolean };
  latencies: number[];
  /** When everything received so far will have played (performance.now() clock). */
  playoutEndsAt: number;
  marks: MarkRecord[];
  pendingMarks: Array<{ record: MarkRecord; timer: NodeJS.Timeout }>;
  clears: number;
  clearedBytes: number;
}

const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export class MediaSimulatorState {
  private readonly media = new Map<string, MediaCall>();
  private watch: NodeJS.Timeout | null = null;
  private readonly log: Logger;
  /** Called for every media frame the caller receives (in-process observers such as the bench). */
  onFrameReceived: ((frame: ReceivedFrame) => void) | null = null;

  constructor(
    private readonly calls: CallSimulatorState,
    options: { log?: Logger } = {},
  ) {
    this.log = options.log ?? createLogger('simulator');
  }

  /**
   * Whether a media connection for `carrierCallId` may open: the call must exist and be answered
   * (an answered inbound call has its call_id by then).
   */
  admit(carrierCallId: string): { status: 404 | 409; error: string } | CallRecord {
    const record = this.calls.list().find((call) => call.carrier_call_id === carrierCallId);
    if (!record) return { status: 404, error: 'no such call' };
    if (record.state !== 'answered' || record.call_id === null) return { status: 409, error: 'call is not answered' };
    return record;
  }

  /** A media connection opened for an answered call: it replaces any previous one for the call. */
  attach(record: CallRecord, socket: WebSocket): void {
    const callId = record.call_id as string;
    // Forget the media of calls a reset forgot.
    for (const known of this.media.keys()) if (!this.calls.get(known)) this.media.delete(known);
    let call = this.media.get(callId);
    if (!call) {
      call = this.newCall(callId, record.carrier_call_id);
      this.media.set(callId, call);
    }
    const previous = call.socket;
    if (previous) previous.close(MEDIA_REPLACED_CLOSE_CODE, 'replaced by a newer media connection');
    const current = call;
    current.socket = socket;
    current.connections += 1;
    current.clockStart = performance.now();
    current.sequence = 0;
    current.received.lastSequence = 0;
    socket.on('message', (data, isBinary) => this.onMessage(current, socket, data as Buffer, isBinary));
    socket.on('close', () => {
      if (current.socket === socket) current.socket = null;
    });
    socket.on('error', (err) => this.log.debug({ call_id: callId, error: err.message }, 'media socket error'));
    socket.send(
      JSON.stringify({
        event: 'start',
        carrier_call_id: record.carrier_call_id,
        call_id: callId,
        media_format: { encoding: 'audio/x-mulaw', sample_rate: MULAW_SAMPLE_RATE, channels: 1 },
      }),
    );
    this.startWatching();
  }

  /**
   * The caller says something (the control API): a tone, or `text` through espeak-ng when it is
   * installed (else a tone as long as the text would take). Frames are paced at 20 ms after
   * whatever the caller is still sending. With `stamp`, each frame's first 4 bytes are replaced
   * by the call's frame counter (big-endian), so every frame is unique (for order checks).
   */
  async speak(
    callId: string,
    request: { toneHz?: number; durationMs?: number; text?: string; stamp?: boolean },
  ): Promise<'unknown' | 'not_answered' | 'not_connected' | { source: 'tone' | 'speech'; frames: number; duration_ms: number }> {
    const check = () => {
      const record = this.calls.get(callId);
      if (!record) return 'unknown' as const;
      if (record.state !== 'answered') return 'not_answered' as const;
      const call = this.media.get(callId);
      if (!call || !call.socket) return 'not_connected' as const;
      return call;
    };
    const first = check();
    if (typeof first === 'string') return first;
    let frames: Iterator<Buffer>;
    let count: number;
    let source: 'tone' | 'speech' = 'tone';
    const speech =
      request.text !== undefined
        ? await synthesizeSpeech(request.text).catch((err: Error) => {
            this.log.warn({ call_id: callId, error: err.message }, 'espeak-ng failed; the caller says a tone instead');
            return null;
          })
        : null;
    if (speech) {
      source = 'speech';
      count = Math.ceil(speech.length / FRAME_BYTES);
      frames = chunkFrames(speech);
    } else {
      const words = request.text ? request.text.trim().split(/\s+/).length : 0;
      const durationMs = request.durationMs ?? (words > 0 ? Math.min(MAX_DURATION_MS, words * MS_PER_WORD) : DEFAULT_DURATION_MS);
      count = framesFor(durationMs);
      frames = toneFrames(request.toneHz ?? DEFAULT_TONE_HZ, durationMs);
    }
    const call = check();
    if (typeof call === 'string') return call;
    const head = frames.next();
    if (!head.done) call.play.push({ frames, next: head.value, stamp: request.stamp === true });
    if (!call.timer && call.play.length > 0) {
      call.nextAt = performance.now();
      this.pace(call);
    }
    return { source, frames: count, duration_ms: count * FRAME_MS };
  }

  /** What the caller sent and received on a call; undefined for an unknown call. */
  report(callId: string): AudioReport | undefined {
    const record = this.calls.get(callId);
    if (!record) return undefined;
    const call = this.media.get(callId) ?? this.newCall(callId, record.carrier_call_id);
    const sorted = [...call.latencies].sort((a, b) => a - b);
    return {
      call_id: callId,
      carrier_call_id: call.carrierCallId,
      connected: call.socket !== null,
      connections: call.connections,
      sent: {
        frames: call.sent.frames,
        bytes: call.sent.bytes,
        dropped: call.sent.dropped,
        sending: call.play.length > 0,
        first_sent_at: iso(call.sent.firstAt),
        last_sent_at: iso(call.sent.lastAt),
      },
      received: {
        frames: call.received.frames,
        bytes: call.received.bytes,
        in_order: call.received.outOfOrder === 0,
        out_of_order: call.received.outOfOrder,
        malformed: call.received.malformed,
        first_received_at: iso(call.received.firstAt),
        last_received_at: iso(call.received.lastAt),
        rms: call.received.bytes === 0 ? 0 : Math.round(Math.sqrt(call.received.sumSquares / call.received.bytes)),
      },
      echo: {
        matched: call.echo.matched,
        in_order: call.echo.inOrder,
        round_trip_ms: sorted.length
          ? { p50: round2(quantile(sorted, 0.5)), p99: round2(quantile(sorted, 0.99)), max: round2(sorted[sorted.length - 1]) }
          : null,
      },
      marks: call.marks.map((mark) => ({ ...mark })),
      clears: call.clears,
      cleared_bytes: call.clearedBytes,
    };
  }

  /** Every echo round trip measured on a call so far (ms, in arrival order; at most 20000). */
  roundTrips(callId: string): number[] {
    return [...(this.media.get(callId)?.latencies ?? [])];
  }

  /** Closes every media connection and stops every timer (the server is closing, or a reset). */
  stop(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    for (const call of this.media.values()) this.endCall(call, false);
    this.media.clear();
  }

  private newCall(callId: string, carrierCallId: string): MediaCall {
    return {
      callId,
      carrierCallId,
      socket: null,
      connections: 0,
      clockStart: performance.now(),
      sequence: 0,
      play: [],
      timer: null,
      nextAt: 0,
      sent: { frames: 0, bytes: 0, dropped: 0, firstAt: null, lastAt: null },
      sentTimes: new Float64Array(ECHO_WINDOW),
      sentKeys: new Array<string>(ECHO_WINDOW),
      pendingEcho: new Map(),
      received: { frames: 0, bytes: 0, lastSequence: 0, outOfOrder: 0, malformed: 0, firstAt: null, lastAt: null, sumSquares: 0 },
      echo: { matched: 0, lastIndex: -1, inOrder: true },
      latencies: [],
      playoutEndsAt: 0,
      marks: [],
      pendingMarks: [],
      clears: 0,
      clearedBytes: 0,
    };
  }

  /** Sends every frame that is due, then sleeps until the next one. */
  private pace(call: MediaCall): void {
    call.timer = null;
    const now = performance.now();
    while (call.nextAt <= now) {
      const item = call.play[0];
      if (!item) return;
      this.sendFrame(call, item.next, item.stamp, call.nextAt);
      call.nextAt += FRAME_MS;
      const next = item.frames.next();
      if (next.done) call.play.shift();
      else item.next = next.value;
    }
    if (call.play.length === 0) return;
    call.timer = setTimeout(() => this.pace(call), Math.max(0, call.nextAt - performance.now()));
  }

  private sendFrame(call: MediaCall, frame: Buffer, stamp: boolean, dueAt: number): void {
    const index = call.sent.frames + call.sent.dropped;
    if (stamp && frame.length >= 4) frame.writeUInt32BE(index >>> 0, 0);
    const socket = call.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || socket.bufferedAmount > SEND_HIGH_WATER_BYTES) {
      call.sent.dropped += 1;
      return;
    }
    call.sequence += 1;
    const sentAt = performance.now();
    socket.send(
      JSON.stringify({
        event: 'media',
        sequence: call.sequence,
        timestamp: Math.round(dueAt - call.clockStart),
        payload: frame.toString('base64'),
      }),
    );
    call.sent.frames += 1;
    call.sent.bytes += frame.length;
    call.sent.firstAt ??= Date.now();
    call.sent.lastAt = Date.now();
    // Remember the frame for echo matching (slot = its rank among sent frames); forget the one
    // ECHO_WINDOW sent frames older, which is the oldest unmatched entry of its bytes if still there.
    const rank = call.sent.frames - 1;
    const slot = rank % ECHO_WINDOW;
    const old = call.sentKeys[slot];
    if (old !== undefined) {
      const queue = call.pendingEcho.get(old);
      if (queue && queue[0] === rank - ECHO_WINDOW) {
        queue.shift();
        if (queue.length === 0) call.pendingEcho.delete(old);
      }
    }
    const key = frame.toString('latin1');
    call.sentKeys[slot] = key;
    call.sentTimes[slot] = sentAt;
    const queue = call.pendingEcho.get(key);
    if (queue) queue.push(rank);
    else call.pendingEcho.set(key, [rank]);
  }

  private onMessage(call: MediaCall, socket: WebSocket, data: Buffer, isBinary: boolean): void {
    if (call.socket !== socket) return;
    let message: Record<string, unknown> | null = null;
    if (!isBinary) {
      try {
        const parsed = JSON.parse(data.toString('utf8')) as unknown;
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) message = parsed as Record<string, unknown>;
      } catch {
        message = null;
      }
    }
    const now = performance.now();
    if (message?.event === 'media' && typeof message.payload === 'string' && message.payload !== '') {
      this.received(call, Buffer.from(message.payload, 'base64'), message.sequence, now);
    } else if (message?.event === 'mark' && typeof message.name === 'string') {
      this.markReceived(call, message.name, now);
    } else if (message?.event === 'clear') {
      this.clear(call, now);
    } else {
      call.received.malformed += 1;
    }
  }

  private received(call: MediaCall, payload: Buffer, sequence: unknown, now: number): void {
    const r = call.received;
    if (sequence !== r.lastSequence + 1) r.outOfOrder += 1;
    r.lastSequence = typeof sequence === 'number' && Number.isSafeInteger(sequence) ? sequence : r.lastSequence + 1;
    r.frames += 1;
    r.bytes += payload.length;
    r.sumSquares += mulawSumOfSquares(payload);
    r.firstAt ??= Date.now();
    r.lastAt = Date.now();
    call.playoutEndsAt = Math.max(now, call.playoutEndsAt) + (payload.length * 1000) / MULAW_SAMPLE_RATE;

    let sentAt: number | null = null;
    const key = payload.toString('latin1');
    const queue = call.pendingEcho.get(key);
    if (queue) {
      const rank = queue.shift() as number;
      if (queue.length === 0) call.pendingEcho.delete(key);
      sentAt = call.sentTimes[rank % ECHO_WINDOW];
      if (rank <= call.echo.lastIndex) call.echo.inOrder = false;
      call.echo.lastIndex = rank;
      call.echo.matched += 1;
      if (call.latencies.length < MAX_LATENCY_SAMPLES) call.latencies.push(now - sentAt);
    }
    this.onFrameReceived?.({ callId: call.callId, bytes: payload.length, sentAt, receivedAt: now });
  }

  /** Switchboard's mark: reported back when the audio received before it has played. */
  private markReceived(call: MediaCall, name: string, now: number): void {
    const record: MarkRecord = { name, received_at: new Date().toISOString(), played_at: null };
    call.marks.push(record);
    const timer = setTimeout(() => this.markPlayed(call, record), Math.max(0, call.playoutEndsAt - now));
    call.pendingMarks.push({ record, timer });
  }

  private markPlayed(call: MediaCall, record: MarkRecord): void {
    const at = call.pendingMarks.findIndex((pending) => pending.record === record);
    if (at === -1) return;
    const [pending] = call.pendingMarks.splice(at, 1);
    clearTimeout(pending.timer);
    record.played_at = new Date().toISOString();
    if (call.socket?.readyState === WebSocket.OPEN) call.socket.send(JSON.stringify({ event: 'mark', name: record.name }));
  }

  /** Drops what has not played yet; pending marks are reported at once, in order. */
  private clear(call: MediaCall, now: number): void {
    call.clears += 1;
    call.clearedBytes += Math.round((Math.max(0, call.playoutEndsAt - now) * MULAW_SAMPLE_RATE) / 1000);
    call.playoutEndsAt = now;
    for (const pending of [...call.pendingMarks]) this.markPlayed(call, pending.record);
  }

  private startWatching(): void {
    if (this.watch) return;
    this.watch = setInterval(() => this.checkCalls(), CALL_WATCH_MS);
    this.watch.unref();
  }

  /** Ends the media of calls that ended (or were forgotten by a reset). */
  private checkCalls(): void {
    let live = 0;
    for (const [callId, call] of this.media) {
      const record = this.calls.get(callId);
      if (!record || record.state !== 'answered') {
        this.endCall(call, true);
        if (!record) this.media.delete(callId);
      } else if (call.socket) {
        live += 1;
      }
    }
    if (live === 0 && this.watch) {
      clearInterval(this.watch);
      this.watch = null;
    }
  }

  /**
   * Stops the caller's audio and closes the call's media connection: after `stop` with 1000 when
   * the call ended, with 1001 and no `stop` when the simulator itself is going away.
   */
  private endCall(call: MediaCall, callEnded: boolean): void {
    if (call.timer) clearTimeout(call.timer);
    call.timer = null;
    call.play = [];
    for (const pending of call.pendingMarks) clearTimeout(pending.timer);
    call.pendingMarks = [];
    const socket = call.socket;
    call.socket = null;
    if (socket && socket.readyState === WebSocket.OPEN) {
      if (callEnded) socket.send(JSON.stringify({ event: 'stop', reason: 'call_ended' }));
      socket.close(callEnded ? 1000 : 1001, callEnded ? 'call ended' : 'simulator stopping');
      const timer = setTimeout(() => socket.terminate(), 1_000);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    } else if (socket) {
      socket.terminate();
    }
  }
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * Serves media connections on the simulator's HTTP server: `GET /carrier/v1/calls/{carrier_call_id}/media`
 * with `Upgrade: websocket` and the carrier bearer. Other upgrade paths are left to other
 * `upgrade` handlers (answered 404 when there is none).
 */
export function handleMediaUpgrades(server: http.Server, media: MediaSimulatorState, apiKey: string): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = MEDIA_PATH.exec(req.url ?? '');
    if (!match) {
      // Another path: another handler's, if there is one; otherwise nobody serves it.
      if (server.listenerCount('upgrade') === 1) refuse(socket, 404, 'no WebSocket endpoint here');
      return;
    }
    if (!bearerMatches(req.headers.authorization, apiKey)) return refuse(socket, 401, 'invalid carrier credentials');
    let carrierCallId: string;
    try {
      carrierCallId = decodeURIComponent(match[1]);
    } catch {
      return refuse(socket, 404, 'no such call');
    }
    const admitted = media.admit(carrierCallId);
    if ('status' in admitted) return refuse(socket, admitted.status, admitted.error);
    wss.handleUpgrade(req, socket, head, (ws) => media.attach(admitted, ws));
  });
  return wss;
}

function refuse(socket: Duplex, status: 401 | 404 | 409, error: string): void {
  const body = JSON.stringify({ error });
  const text = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Conflict';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** `POST/GET /control/calls/{call_id}/audio`: the caller speaks; what the caller heard. */
export function mediaRoutes(router: Router, media: MediaSimulatorState): void {
  router.post('/control/calls/:call_id/audio', async (ctx) => {
    const body = await readJson(ctx);
    const { tone_hz: toneHz, duration_ms: durationMs, text, stamp } = body;
    if (toneHz !== undefined && !(typeof toneHz === 'number' && Number.isFinite(toneHz) && toneHz > 0 && toneHz < MULAW_SAMPLE_RATE / 2))
      return badRequest(ctx, 'tone_hz must be a number above 0 and below 4000');
    if (
      durationMs !== undefined &&
      !(typeof durationMs === 'number' && Number.isSafeInteger(durationMs) && durationMs >= FRAME_MS && durationMs <= MAX_DURATION_MS)
    ) {
      return badRequest(ctx, `duration_ms must be an integer from ${FRAME_MS} to ${MAX_DURATION_MS}`);
    }
    if (text !== undefined && !(typeof text === 'string' && text.trim() !== '' && text.length <= MAX_TEXT))
      return badRequest(ctx, `text must be a non-blank string of at most ${MAX_TEXT} characters`);
    if (stamp !== undefined && typeof stamp !== 'boolean') return badRequest(ctx, 'stamp must be a boolean');
    const result = await media.speak(ctx.params.call_id, { toneHz, durationMs, text, stamp });
    const refusals = { not_answered: 'call is not answered', not_connected: 'no media stream is connected' };
    answer(ctx, result, refusals, (spoken) => ({ call_id: ctx.params.call_id, ...spoken }), 202);
  });
  router.get('/control/calls/:call_id/audio', async (ctx) => {
    answer(ctx, media.report(ctx.params.call_id), {}, (report) => report);
  });
}
