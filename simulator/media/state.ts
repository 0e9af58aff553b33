import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { createLogger, type Logger } from '../../src/platform/logger';
import { FRAME_MS, MULAW_SAMPLE_RATE } from '../../src/platform/audio/mulaw';
import type { CallRecord } from '../carrier/callRecords';
import type { CallSimulatorState } from '../carrier/calls';
import { queueFrames, utteranceFrames, type Utterance } from './callerAudio';
import { onSwitchboardMessage } from './heardAudio';
import { audioReport, newMediaCall, type AudioReport, type MediaCall, type ReceivedFrame } from './mediaCall';

/**
 * The media side of the carrier simulator: the raw audio of answered calls over a WebSocket
 * (`/carrier/v1/calls/{carrier_call_id}/media`), in the manner of Twilio Media Streams. The
 * simulated caller sends 20 ms µ-law frames paced in real time when the control API tells it to
 * (./callerAudio.ts), and plays what Switchboard sends back (./heardAudio.ts). This module holds
 * the connections and their lifetime. In memory, like the rest of the simulator. See
 * docs/simulator.md, "Audio (media streams)".
 */

/** How often open streams check whether their call is still answered. */
const CALL_WATCH_MS = 100;
/** Close code for a stream replaced by a newer connection for the same call. */
export const MEDIA_REPLACED_CLOSE_CODE = 4409;

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
      call = newMediaCall(callId, record.carrier_call_id);
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
    socket.on('message', (data, isBinary) => onSwitchboardMessage(current, socket, data as Buffer, isBinary, this.onFrameReceived));
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
    request: Utterance,
  ): Promise<'unknown' | 'not_answered' | 'not_connected' | { source: 'tone' | 'speech'; frames: number; duration_ms: number }> {
    const first = this.connected(callId);
    if (typeof first === 'string') return first;
    const { source, frames, count } = await utteranceFrames(callId, request, this.log);
    const call = this.connected(callId);
    if (typeof call === 'string') return call;
    queueFrames(call, frames, request.stamp === true);
    return { source, frames: count, duration_ms: count * FRAME_MS };
  }

  /** What the caller sent and received on a call; undefined for an unknown call. */
  report(callId: string): AudioReport | undefined {
    const record = this.calls.get(callId);
    if (!record) return undefined;
    return audioReport(this.media.get(callId) ?? newMediaCall(callId, record.carrier_call_id));
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

  /** The call's media if it is answered and has a connection; else why not. */
  private connected(callId: string): 'unknown' | 'not_answered' | 'not_connected' | MediaCall {
    const record = this.calls.get(callId);
    if (!record) return 'unknown';
    if (record.state !== 'answered') return 'not_answered';
    const call = this.media.get(callId);
    if (!call || !call.socket) return 'not_connected';
    return call;
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
