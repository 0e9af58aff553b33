import type WebSocket from 'ws';
import { performance } from 'node:perf_hooks';

/**
 * One call's media as the simulated caller sees it: the connection, what it has sent and
 * received, the echoes it matched, and Switchboard's marks and clears; and the report the
 * control API gives of it (`GET /control/calls/{call_id}/audio`).
 */

/** Sent frames remembered for matching echoes (about 20 s at 50 frames/s). */
export const ECHO_WINDOW = 1_024;

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

export interface PlayItem {
  frames: Iterator<Buffer>;
  /** The item's next frame, fetched ahead so an item leaves the queue as soon as its last frame is sent. */
  next: Buffer;
  stamp: boolean;
}

export interface MediaCall {
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

export function newMediaCall(callId: string, carrierCallId: string): MediaCall {
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

/** The control API's view of a call's media. */
export function audioReport(call: MediaCall): AudioReport {
  const sorted = [...call.latencies].sort((a, b) => a - b);
  return {
    call_id: call.callId,
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

const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());
const round2 = (value: number) => Math.round(value * 100) / 100;

/** The nearest-rank quantile of ascending `sorted`; NaN when empty. */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
