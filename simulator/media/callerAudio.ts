import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { Logger } from '../../src/platform/logger';
import { chunkFrames, FRAME_BYTES, FRAME_MS, framesFor, toneFrames } from '../../src/platform/audio/mulaw';
import { synthesizeSpeech } from '../speech';
import { ECHO_WINDOW, type MediaCall } from './mediaCall';

/**
 * What the simulated caller says: a tone or synthesised speech, cut into 20 ms µ-law frames and
 * paced out in real time on the call's media connection, each sent frame remembered for matching
 * its echo.
 */

export const MAX_DURATION_MS = 10 * 60_000;
export const MAX_TEXT = 1_000;
/** The caller's socket holding more than this unsent (about 2 s of frames as JSON): new frames are dropped, as a real-time sender would. */
const SEND_HIGH_WATER_BYTES = 64 * 1024;
/** Without espeak-ng, text becomes a tone this long per word. */
const MS_PER_WORD = 350;
const DEFAULT_TONE_HZ = 440;
const DEFAULT_DURATION_MS = 1_000;

/** What the control API asks the caller to say. */
export interface Utterance {
  toneHz?: number;
  durationMs?: number;
  text?: string;
  stamp?: boolean;
}

/**
 * The frames of an utterance: `text` through espeak-ng when it is installed (else a tone as long
 * as the text would take), or a tone.
 */
export async function utteranceFrames(
  callId: string,
  request: Utterance,
  log: Logger,
): Promise<{ source: 'tone' | 'speech'; frames: Iterator<Buffer>; count: number }> {
  const speech =
    request.text !== undefined
      ? await synthesizeSpeech(request.text).catch((err: Error) => {
          log.warn({ call_id: callId, error: err.message }, 'espeak-ng failed; the caller says a tone instead');
          return null;
        })
      : null;
  if (speech) return { source: 'speech', frames: chunkFrames(speech), count: Math.ceil(speech.length / FRAME_BYTES) };
  const words = request.text ? request.text.trim().split(/\s+/).length : 0;
  const durationMs = request.durationMs ?? (words > 0 ? Math.min(MAX_DURATION_MS, words * MS_PER_WORD) : DEFAULT_DURATION_MS);
  return { source: 'tone', frames: toneFrames(request.toneHz ?? DEFAULT_TONE_HZ, durationMs), count: framesFor(durationMs) };
}

/** Queues frames after whatever the caller is still sending, and starts pacing if it was idle. */
export function queueFrames(call: MediaCall, frames: Iterator<Buffer>, stamp: boolean): void {
  const head = frames.next();
  if (!head.done) call.play.push({ frames, next: head.value, stamp });
  if (!call.timer && call.play.length > 0) {
    call.nextAt = performance.now();
    pace(call);
  }
}

/** Sends every frame that is due, then sleeps until the next one. */
function pace(call: MediaCall): void {
  call.timer = null;
  const now = performance.now();
  while (call.nextAt <= now) {
    const item = call.play[0];
    if (!item) return;
    sendFrame(call, item.next, item.stamp, call.nextAt);
    call.nextAt += FRAME_MS;
    const next = item.frames.next();
    if (next.done) call.play.shift();
    else item.next = next.value;
  }
  if (call.play.length === 0) return;
  call.timer = setTimeout(() => pace(call), Math.max(0, call.nextAt - performance.now()));
}

/**
 * Sends one frame (with `stamp`, its first 4 bytes replaced by the call's frame counter,
 * big-endian, so every frame is unique), or drops it when the connection is gone or too far behind.
 */
function sendFrame(call: MediaCall, frame: Buffer, stamp: boolean, dueAt: number): void {
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
  rememberForEcho(call, frame, sentAt);
}

/**
 * Remembers a sent frame for echo matching (slot = its rank among sent frames); forgets the one
 * ECHO_WINDOW sent frames older, which is the oldest unmatched entry of its bytes if still there.
 */
function rememberForEcho(call: MediaCall, frame: Buffer, sentAt: number): void {
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
