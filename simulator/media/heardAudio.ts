import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { MULAW_SAMPLE_RATE, mulawSumOfSquares } from '../../src/platform/audio/mulaw';
import { ECHO_WINDOW, type MarkRecord, type MediaCall, type ReceivedFrame } from './mediaCall';

/**
 * What the simulated caller hears: Switchboard's messages on the call's media connection, played
 * in real time so that marks and `clear` mean something, each frame matched against the caller's
 * own sent frames to measure echo round trips.
 */

/** Round-trip samples kept per call (about 6.5 minutes of frames); later ones are counted, not kept. */
const MAX_LATENCY_SAMPLES = 20_000;

/** One message from Switchboard on the connection `socket` (ignored once a newer connection replaced it). */
export function onSwitchboardMessage(
  call: MediaCall,
  socket: WebSocket,
  data: Buffer,
  isBinary: boolean,
  observe: ((frame: ReceivedFrame) => void) | null,
): void {
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
    const frame = received(call, Buffer.from(message.payload, 'base64'), message.sequence, now);
    observe?.(frame);
  } else if (message?.event === 'mark' && typeof message.name === 'string') {
    markReceived(call, message.name, now);
  } else if (message?.event === 'clear') {
    clear(call, now);
  } else {
    call.received.malformed += 1;
  }
}

function received(call: MediaCall, payload: Buffer, sequence: unknown, now: number): ReceivedFrame {
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
  return { callId: call.callId, bytes: payload.length, sentAt, receivedAt: now };
}

/** Switchboard's mark: reported back when the audio received before it has played. */
function markReceived(call: MediaCall, name: string, now: number): void {
  const record: MarkRecord = { name, received_at: new Date().toISOString(), played_at: null };
  call.marks.push(record);
  const timer = setTimeout(() => markPlayed(call, record), Math.max(0, call.playoutEndsAt - now));
  call.pendingMarks.push({ record, timer });
}

function markPlayed(call: MediaCall, record: MarkRecord): void {
  const at = call.pendingMarks.findIndex((pending) => pending.record === record);
  if (at === -1) return;
  const [pending] = call.pendingMarks.splice(at, 1);
  clearTimeout(pending.timer);
  record.played_at = new Date().toISOString();
  if (call.socket?.readyState === WebSocket.OPEN) call.socket.send(JSON.stringify({ event: 'mark', name: record.name }));
}

/** Drops what has not played yet; pending marks are reported at once, in order. */
function clear(call: MediaCall, now: number): void {
  call.clears += 1;
  call.clearedBytes += Math.round((Math.max(0, call.playoutEndsAt - now) * MULAW_SAMPLE_RATE) / 1000);
  call.playoutEndsAt = now;
  for (const pending of [...call.pendingMarks]) markPlayed(call, pending.record);
}
