import crypto from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import Koa from 'koa';
import Router, { type RouterContext } from '@koa/router';
import { createLogger, maskPhone, type Logger } from '../src/platform/logger';
import { CallbackSender } from './callbacks';
import { CardProcessorSimulatorState, cardProcessorRoutes } from './cardProcessorSimulator';
import { badRequest, bearerMatches, readJson } from './http';
import { handleMediaUpgrades, MediaSimulatorState, mediaRoutes } from './mediaSimulator';
import { ModelSimulatorState, modelRoutes } from './modelSimulator';
import { MessageSimulatorState, messageRoutes } from './smsSimulator';

/**
 * The carrier simulator: a stand-in for a real carrier (Twilio, Telnyx) with the same
 * shape of API, plus a control API that tests and the demo use to steer it.
 * Its state is in memory on purpose: it plays an external system, not part of Switchboard.
 * See docs/simulator.md.
 */
type ProvisionFault = 'normal' | 'hold' | 'reject' | 'error';

interface NumberRecord {
  idempotency_key: string;
  phone_number: string;
  number_ref: string;
  country: string;
  status: 'active' | 'released';
  /** How many provisioning requests carried this idempotency key. */
  requests: number;
  allocated_at: string;
  released_at: string | null;
}

const AREA_CODES = ['202', '212', '312', '415', '512', '617', '646', '702', '718', '917'];

/** +1 <any area code> 555-0100…0199: calls to these ring and never connect. */
export const NEVER_CONNECTS = /^\+1\d{3}55501\d{2}$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const DEFAULT_RING_MS = 200;
const MAX_RING_MS = 10 * 60_000;
/** How long an inbound call rings unanswered before the caller gives up. */
const INBOUND_RING_TIMEOUT_MS = 30_000;
/** How fast text-to-speech plays, by default (settable with `POST /control/speech`). */
export const DEFAULT_WORDS_PER_SECOND = 20;
const MAX_WORDS_PER_SECOND = 1_000;
/** How often a playing speak command reports progress (`call.playback`, `done: false`). */
export const PLAYBACK_PROGRESS_MS = 250;
const MAX_SPEECH_TEXT = 10_000;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/**
 * What a call to a destination does, set per number through the control API. `reject`: the
 * carrier refuses to place it at all (403, as for a destination outside the account's
 * geographic permissions), so no call exists.
 */
export type CallOutcome = 'answer' | 'busy' | 'no_answer' | 'fail' | 'reject';
/** `never_connect` is what the reserved range does when no outcome is configured for it. */
export type CallBehaviour = CallOutcome | 'never_connect';
/**
 * How an inbound call went: null while it rings, `answer` once answered, `rejected` when
 * declined (reject, or a non-2xx answer to `call.incoming`), `unanswered` after the ring timeout.
 */
export type InboundOutcome = 'answer' | 'rejected' | 'unanswered' | null;

export interface CallRecord {
  /** Null for an inbound call until Switchboard answers it. */
  call_id: string | null;
  carrier_call_id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  state: 'ringing' | 'answered' | 'ended';
  outcome: CallBehaviour | InboundOutcome;
  /** Outbound: how many POST /carrier/v1/calls requests carried this call_id. Inbound: how many answer requests succeeded. */
  requests: number;
  created_at: string;
  answered_at: string | null;
  ended_at: string | null;
}

export type SimulatedCallEvent =
  | { type: 'call.incoming'; carrier_call_id: string; from: string; to: string; at: number }
  | { type: 'call.ringing' | 'call.answered' | 'call.busy' | 'call.no_answer' | 'call.failed'; call_id: string; carrier_call_id: string; at: number }
  | { type: 'call.completed'; call_id: string; carrier_call_id: string; at: number; ended_by: 'caller' | 'switchboard'; answered: boolean; recording_url?: string }
  | { type: 'call.utterance'; call_id: string; carrier_call_id: string; text: string; language: string; at: number }
  | { type: 'call.playback'; call_id: string; carrier_call_id: string; speak_id: string; played_text: string; done: boolean; stopped?: true; at: number };

/** One speak command on a call, as `GET /control/calls/{call_id}/speech` lists it. */
export interface SpeechRecord {
  speak_id: string;
  text: string;
  /** The words played so far, joined with single spaces. */
  played_text: string;
  state: 'queued' | 'speaking' | 'done' | 'stopped';
  /** The voice asked for (a catalog slug), or null for the carrier's default. */
  voice: string | null;
}

/** DTMF digits Switchboard sent on a call (`POST /carrier/v1/calls/{id}/dtmf`). */
export interface DtmfRecord {
  digits: string;
  at: string;
}

/** How long one DTMF tone (with its gap) takes, and a `w` pause. */
const DTMF_TONE_MS = 100;
const DTMF_PAUSE_MS = 500;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface SpeechItem {
  record: SpeechRecord;
  words: string[];
  /** Words per second, fixed when playback starts. */
  wordsPerSecond: number;
  startedAt: number;
}

interface LiveCall {
  record: CallRecord;
  /** Under the callback base (checked when the call was placed or announced). */
  eventsUrl: string;
  ringMs: number;
  timer: NodeJS.Timeout | null;
  /** Deliveries for this call, chained so its events arrive in order. */
  queue: Promise<void>;
  /** Speak commands, in the order received (queued ones wait for the one speaking). */
  speech: SpeechItem[];
  /** The playing speak command's next progress (or end) tick. */
  speechTimer: NodeJS.Timeout | null;
  /** Asked to record (`record: true` on place or answer). */
  recording: boolean;
  /** DTMF digits played on the call, in order. */
  dtmf: DtmfRecord[];
}

export interface EventDeliveryOptions {
  /** Tries per event before it is logged and dropped. */
  attempts: number;
  /** Pause between tries. */
  delayMs: number;
  /** How long one try may take. */
  timeoutMs: number;
}

/**
 * Outbound calls: accepts them, plays each one out by its destination's outcome, and POSTs
 * carrier events to the call's events URL. Inbound calls: announces them with `call.incoming`
 * and waits for Switchboard to answer or reject them. In memory; `stop()` (run when the server
 * closes) clears every timer and abandons pending deliveries.
 */
export class CallSimulatorState {
  /** By call_id: outbound calls, and inbound calls once answered. */
  private readonly calls = new Map<string, LiveCall>();
  /** Every call, by carrier_call_id (in creation order). */
  private readonly byCarrierId = new Map<string, LiveCall>();
  readonly outcomes = new Map<string, { outcome: CallOutcome; ringMs: number }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private abort = new AbortController();
  private readonly delivery: EventDeliveryOptions;
  private readonly log: Logger;
  private readonly inboundRingTimeoutMs: number;
  /** Signs and sends events; set by the app (`createCarrierSimulatorApp`). Without it events are not delivered. */
  callbacks: CallbackSender | null = null;
  /** Text-to-speech speed for playbacks that start from now on. */
  wordsPerSecond = DEFAULT_WORDS_PER_SECOND;
  /**
   * The URL the simulator listens on (set by `startCarrierSimulator`), for `recording_url`.
   * While null, recorded calls complete without a `recording_url`.
   */
  baseUrl: string | null;

  constructor(options: { delivery?: Partial<EventDeliveryOptions>; log?: Logger; inboundRingTimeoutMs?: number; baseUrl?: string } = {}) {
    // Like a real carrier's status callbacks, events are retried for a while (here 12 tries
    // 200 ms apart growing to 2 s, about 15 s) so a restarting Switchboard loses none.
    this.delivery = { attempts: 12, delayMs: 200, timeoutMs: 2_000, ...options.delivery };
    this.baseUrl = options.baseUrl ?? null;
    this.log = options.log ?? createLogger('simulator');
    this.inboundRingTimeoutMs = options.inboundRingTimeoutMs ?? INBOUND_RING_TIMEOUT_MS;
  }

  list(): CallRecord[] {
    return [...this.byCarrierId.values()].map((call) => ({ ...call.record }));
  }

  get(callId: string): CallRecord | undefined {
    const call = this.calls.get(callId);
    return call ? { ...call.record } : undefined;
  }

  setOutcome(to: string, outcome: CallOutcome, ringMs = DEFAULT_RING_MS): void {
    this.outcomes.set(to, { outcome, ringMs });
  }

  /**
   * Starts a call, or answers a repeat of `callId` with the call it already started.
   * Returns null when `callId` was already used for a different from/to, and `refused` for a
   * destination whose outcome is `reject` (nothing is placed).
   */
  place(request: { callId: string; from: string; to: string; eventsUrl: string; record?: boolean }): CallRecord | null | 'refused' {
    if (this.outcomes.get(request.to)?.outcome === 'reject') return 'refused';
    const existing = this.calls.get(request.callId);
    if (existing) {
      if (existing.record.direction !== 'outbound') return null;
      if (existing.record.from !== request.from || existing.record.to !== request.to) return null;
      existing.record.requests += 1;
      return existing.record;
    }
    const configured = this.outcomes.get(request.to);
    const outcome: CallBehaviour = configured?.outcome ?? (NEVER_CONNECTS.test(request.to) ? 'never_connect' : 'answer');
    const call: LiveCall = {
      record: {
        call_id: request.callId,
        carrier_call_id: `CA${crypto.randomBytes(16).toString('hex')}`,
        direction: 'outbound',
        from: request.from,
        to: request.to,
        state: 'ringing',
        outcome,
        requests: 1,
        created_at: new Date().toISOString(),
        answered_at: null,
        ended_at: null,
      },
      eventsUrl: request.eventsUrl,
      ringMs: configured?.ringMs ?? DEFAULT_RING_MS,
      timer: null,
      queue: Promise.resolve(),
      speech: [],
      speechTimer: null,
      recording: request.record === true,
      dtmf: [],
    };
    this.calls.set(request.callId, call);
    this.byCarrierId.set(call.record.carrier_call_id, call);

    if (outcome === 'fail') {
      this.end(call);
      this.emit(call, { type: 'call.failed' });
      return call.record;
    }
    this.emit(call, { type: 'call.ringing' });
    if (outcome !== 'never_connect') this.schedule(call, call.ringMs, () => this.ringEnded(call));
    return call.record;
  }

  /**
   * Someone calls one of our numbers (the control API): the call rings, and `call.incoming` goes
   * to `eventsUrl`. A non-2xx answer to it (or giving up delivering it) declines the call; if
   * nobody answers within the ring timeout the caller gives up. Neither sends another event.
   */
  incoming(request: { from: string; to: string; eventsUrl: string }): CallRecord {
    const call: LiveCall = {
      record: {
        call_id: null,
        carrier_call_id: `CA${crypto.randomBytes(16).toString('hex')}`,
        direction: 'inbound',
        from: request.from,
        to: request.to,
        state: 'ringing',
        outcome: null,
        requests: 0,
        created_at: new Date().toISOString(),
        answered_at: null,
        ended_at: null,
      },
      eventsUrl: request.eventsUrl,
      ringMs: this.inboundRingTimeoutMs,
      timer: null,
      queue: Promise.resolve(),
      speech: [],
      speechTimer: null,
      recording: false,
      dtmf: [],
    };
    this.byCarrierId.set(call.record.carrier_call_id, call);
    this.schedule(call, call.ringMs, () => {
      if (call.record.state !== 'ringing') return;
      this.end(call);
      call.record.outcome = 'unanswered';
    });
    const event: SimulatedCallEvent = { type: 'call.incoming', carrier_call_id: call.record.carrier_call_id, from: call.record.from, to: call.record.to, at: Date.now() };
    const signal = this.abort.signal;
    call.queue = call.queue.then(async () => {
      const result = await this.deliver(call, event, signal, { retryHttpErrors: false });
      if (result !== 'delivered' && !signal.aborted && call.record.state === 'ringing') {
        this.end(call);
        call.record.outcome = 'rejected';
      }
    });
    return { ...call.record };
  }

  /**
   * The caller gives up on a ringing inbound call before anyone answers (as after the ring
   * timeout): `ended`, outcome `unanswered`, no event. False unless the call is inbound and ringing.
   */
  abandon(carrierCallId: string): boolean {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call || call.record.direction !== 'inbound' || call.record.state !== 'ringing') return false;
    this.end(call);
    call.record.outcome = 'unanswered';
    return true;
  }

  /**
   * Switchboard answers an inbound call (the carrier API) and binds `callId` to it.
   * Answering again with the same `callId` is a no-op, even after the call ended. With `record`
   * the call is recorded (a repeat does not change that).
   */
  answer(carrierCallId: string, callId: string, record = false): 'unknown' | 'not_inbound' | 'call_id_mismatch' | 'call_id_reused' | 'ended' | CallRecord {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    if (call.record.direction !== 'inbound') return 'not_inbound';
    if (call.record.call_id !== null) {
      if (call.record.call_id !== callId) return 'call_id_mismatch';
      call.record.requests += 1;
      return { ...call.record };
    }
    if (call.record.state === 'ended') return 'ended';
    if (this.calls.has(callId)) return 'call_id_reused';
    if (call.timer) {
      clearTimeout(call.timer);
      this.timers.delete(call.timer);
      call.timer = null;
    }
    call.record.call_id = callId;
    call.recording = record;
    call.record.state = 'answered';
    call.record.outcome = 'answer';
    call.record.requests += 1;
    call.record.answered_at = new Date().toISOString();
    this.calls.set(callId, call);
    this.emit(call, { type: 'call.answered' });
    return { ...call.record };
  }

  /** Switchboard declines a ringing inbound call (the carrier API); no events. An ended call is left as it is. */
  reject(carrierCallId: string): 'unknown' | 'not_inbound' | 'answered' | CallRecord {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    if (call.record.direction !== 'inbound') return 'not_inbound';
    if (call.record.state === 'answered') return 'answered';
    if (call.record.state === 'ringing') {
      this.end(call);
      call.record.outcome = 'rejected';
    }
    return { ...call.record };
  }

  /**
   * Switchboard hangs up (the carrier API). Null if the carrier call is unknown; an ended call is
   * left as it is. A ringing inbound call has no call_id to report on: hanging it up rejects it.
   */
  hangUpBySwitchboard(carrierCallId: string): CallRecord | null {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return null;
    if (call.record.direction === 'inbound' && call.record.state === 'ringing') {
      this.end(call);
      call.record.outcome = 'rejected';
    } else if (call.record.state !== 'ended') {
      const answered = call.record.state === 'answered';
      this.end(call);
      this.emit(call, { type: 'call.completed', ended_by: 'switchboard', answered, ...this.recordingUrl(call) });
    }
    return call.record;
  }

  /** The remote party hangs up an answered call (the control API). */
  hangUpByCaller(callId: string): 'unknown' | 'not_answered' | CallRecord {
    const call = this.calls.get(callId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    this.end(call);
    this.emit(call, { type: 'call.completed', ended_by: 'caller', answered: true, ...this.recordingUrl(call) });
    return call.record;
  }

  /** The caller finishes saying `text` on an answered call (the control API): `call.utterance`. */
  say(callId: string, text: string, language: string): 'unknown' | 'not_answered' | CallRecord {
    const call = this.calls.get(callId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    this.emit(call, { type: 'call.utterance', text, language });
    return { ...call.record };
  }

  /**
   * The caller talks over the playback (the control API): if a speak command is playing, it is
   * stopped exactly as by `stopSpeaking` (its `call.playback` with `stopped: true` goes first),
   * then `call.utterance` with `text`.
   */
  bargeIn(callId: string, text: string, language: string): 'unknown' | 'not_answered' | { stopped: string | null } {
    const call = this.calls.get(callId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    const stopped = this.stopPlayback(call, true);
    this.emit(call, { type: 'call.utterance', text, language });
    return { stopped: stopped.stopped };
  }

  /**
   * Switchboard asks the carrier to speak `text` (the carrier API). Queued behind any speak
   * command still playing. Idempotent on `speakId`: a repeat with the same text is accepted again
   * (even after the call ended) without speaking twice.
   */
  speak(carrierCallId: string, speakId: string, text: string, voice: string | null = null): 'unknown' | 'not_answered' | 'speak_id_reused' | SpeechRecord {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    const existing = call.speech.find((item) => item.record.speak_id === speakId);
    if (existing) return existing.record.text === text ? { ...existing.record } : 'speak_id_reused';
    if (call.record.state !== 'answered') return 'not_answered';
    const item: SpeechItem = {
      record: { speak_id: speakId, text, played_text: '', state: 'queued', voice },
      words: text.trim().split(/\s+/).filter((word) => word !== ''),
      wordsPerSecond: this.wordsPerSecond,
      startedAt: 0,
    };
    call.speech.push(item);
    if (!call.speech.some((other) => other.record.state === 'speaking')) this.startNextSpeech(call);
    return { ...item.record };
  }

  /**
   * Switchboard stops speaking (the carrier API): the playing command ends with `call.playback`
   * `done: true, stopped: true`; queued ones are dropped without events. Null for an unknown call.
   */
  stopSpeaking(carrierCallId: string): { stopped: string | null; dropped: number } | null {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return null;
    return this.stopPlayback(call, true);
  }

  /**
   * The recording of an ended, answered call that was asked to record: when the answered part
   * started and ended (epoch ms). Null for unknown, live, unrecorded or never-answered calls.
   */
  recording(carrierCallId: string): { answeredAt: number; endedAt: number } | null {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call || !call.recording || call.record.state !== 'ended' || !call.record.answered_at || !call.record.ended_at) return null;
    return { answeredAt: Date.parse(call.record.answered_at), endedAt: Date.parse(call.record.ended_at) };
  }

  /** `{recording_url}` for a recorded call that was answered (spread into `call.completed`); else nothing. */
  private recordingUrl(call: LiveCall): { recording_url?: string } {
    if (!call.recording || !call.record.answered_at || this.baseUrl === null) return {};
    return { recording_url: new URL(`/recordings/${encodeURIComponent(call.record.carrier_call_id)}.wav`, this.baseUrl).toString() };
  }

  /** What was said to the caller on a call, oldest first; undefined for an unknown `callId`. */
  /**
   * Switchboard plays DTMF digits on an answered call (the carrier API); resolves once they have
   * been played (100 ms a digit, 500 ms a `w` pause).
   */
  async sendDigits(carrierCallId: string, digits: string): Promise<'unknown' | 'not_answered' | DtmfRecord> {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    const record: DtmfRecord = { digits, at: new Date().toISOString() };
    call.dtmf.push(record);
    const ms = [...digits].reduce((sum, digit) => sum + (digit === 'w' ? DTMF_PAUSE_MS : DTMF_TONE_MS), 0);
    await this.sleep(ms, this.abort.signal);
    return { ...record };
  }

  dtmfFor(callId: string): DtmfRecord[] | undefined {
    const call = this.calls.get(callId);
    return call ? call.dtmf.map((record) => ({ ...record })) : undefined;
  }

  speechFor(callId: string): SpeechRecord[] | undefined {
    const call = this.calls.get(callId);
    if (!call) return undefined;
    return call.speech.map((item) => ({ ...item.record, played_text: item.record.state === 'speaking' ? this.playedWords(item).join(' ') : item.record.played_text }));
  }

  /** Forgets calls and outcomes, and the speech speed; stops timers and pending deliveries. */
  reset(): void {
    this.stop();
    this.abort = new AbortController();
    this.calls.clear();
    this.byCarrierId.clear();
    this.outcomes.clear();
    this.wordsPerSecond = DEFAULT_WORDS_PER_SECOND;
  }

  /** Clears every timer and abandons pending deliveries (the server is closing). */
  stop(): void {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const call of this.byCarrierId.values()) {
      call.timer = null;
      call.speechTimer = null;
    }
  }

  private playedWords(item: SpeechItem): string[] {
    const count = Math.floor(((Date.now() - item.startedAt) * item.wordsPerSecond) / 1000);
    return item.words.slice(0, Math.max(0, Math.min(item.words.length, count)));
  }

  /** Starts the oldest queued speak command, if any. */
  private startNextSpeech(call: LiveCall): void {
    const item = call.speech.find((other) => other.record.state === 'queued');
    if (!item) return;
    item.record.state = 'speaking';
    item.startedAt = Date.now();
    item.wordsPerSecond = this.wordsPerSecond;
    this.scheduleSpeechTick(call, item);
  }

  /** The next progress tick, or the end of the text if that comes first. */
  private scheduleSpeechTick(call: LiveCall, item: SpeechItem): void {
    const endsAt = item.startedAt + Math.ceil((item.words.length * 1000) / item.wordsPerSecond);
    const elapsed = Date.now() - item.startedAt;
    const nextTick = item.startedAt + (Math.floor(elapsed / PLAYBACK_PROGRESS_MS) + 1) * PLAYBACK_PROGRESS_MS;
    const at = Math.min(endsAt, nextTick);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      call.speechTimer = null;
      if (item.record.state !== 'speaking') return;
      if (Date.now() >= endsAt) {
        item.record.state = 'done';
        item.record.played_text = item.words.join(' ');
        this.emit(call, { type: 'call.playback', speak_id: item.record.speak_id, played_text: item.record.played_text, done: true });
        this.startNextSpeech(call);
        return;
      }
      item.record.played_text = this.playedWords(item).join(' ');
      this.emit(call, { type: 'call.playback', speak_id: item.record.speak_id, played_text: item.record.played_text, done: false });
      this.scheduleSpeechTick(call, item);
    }, Math.max(0, at - Date.now()));
    call.speechTimer = timer;
    this.timers.add(timer);
  }

  /**
   * Stops the playing speak command and drops the queued ones. With `report`, the playing one's
   * `call.playback` (`stopped: true`) is sent; a hang-up stops speech silently.
   */
  private stopPlayback(call: LiveCall, report: boolean): { stopped: string | null; dropped: number } {
    if (call.speechTimer) {
      clearTimeout(call.speechTimer);
      this.timers.delete(call.speechTimer);
      call.speechTimer = null;
    }
    let stopped: string | null = null;
    let dropped = 0;
    for (const item of call.speech) {
      if (item.record.state === 'speaking') {
        item.record.played_text = this.playedWords(item).join(' ');
        item.record.state = 'stopped';
        stopped = item.record.speak_id;
        if (report) this.emit(call, { type: 'call.playback', speak_id: item.record.speak_id, played_text: item.record.played_text, done: true, stopped: true });
      } else if (item.record.state === 'queued') {
        item.record.state = 'stopped';
        dropped += 1;
      }
    }
    return { stopped, dropped };
  }

  private ringEnded(call: LiveCall): void {
    if (call.record.state !== 'ringing') return;
    switch (call.record.outcome) {
      case 'answer':
        call.record.state = 'answered';
        call.record.answered_at = new Date().toISOString();
        this.emit(call, { type: 'call.answered' });
        return;
      case 'busy':
        this.end(call);
        this.emit(call, { type: 'call.busy' });
        return;
      case 'no_answer':
        this.end(call);
        this.emit(call, { type: 'call.no_answer' });
        return;
      default:
        return;
    }
  }

  private end(call: LiveCall): void {
    if (call.timer) {
      clearTimeout(call.timer);
      this.timers.delete(call.timer);
      call.timer = null;
    }
    this.stopPlayback(call, false);
    call.record.state = 'ended';
    call.record.ended_at = new Date().toISOString();
  }

  private schedule(call: LiveCall, ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      call.timer = null;
      run();
    }, ms);
    call.timer = timer;
    this.timers.add(timer);
  }

  private emit(call: LiveCall, event: DistributiveOmit<Exclude<SimulatedCallEvent, { type: 'call.incoming' }>, 'call_id' | 'carrier_call_id' | 'at'>): void {
    const { type, ...extra } = event;
    const full = { type, call_id: call.record.call_id ?? '', carrier_call_id: call.record.carrier_call_id, at: Date.now(), ...extra } as SimulatedCallEvent;
    const signal = this.abort.signal;
    call.queue = call.queue.then(async () => {
      await this.deliver(call, full, signal);
    });
  }

  /**
   * POSTs one event, retrying a few times; never throws, so the call's later events still go.
   * With `retryHttpErrors: false` a non-2xx answer is final ('refused'); network errors and
   * timeouts are still retried.
   */
  private async deliver(call: LiveCall, event: SimulatedCallEvent, signal: AbortSignal, options: { retryHttpErrors?: boolean } = {}): Promise<'delivered' | 'refused' | 'failed'> {
    let lastError = '';
    const signing = {};
    for (let attempt = 1; attempt <= this.delivery.attempts; attempt += 1) {
      if (signal.aborted) return 'failed';
      try {
        if (!this.callbacks) throw new Error('no callback sender configured');
        // Signed afresh on every attempt with a new timestamp: a retry is a new request, not a replay.
        const response = await this.callbacks.post(call.eventsUrl, event, AbortSignal.any([signal, AbortSignal.timeout(this.delivery.timeoutMs)]), signing);
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) return 'delivered';
        lastError = `HTTP ${response.status}`;
        if (options.retryHttpErrors === false) return 'refused';
      } catch (err) {
        if (signal.aborted) return 'failed';
        lastError = err instanceof Error ? err.message : String(err);
      }
      if (attempt < this.delivery.attempts) await this.sleep(Math.min(this.delivery.delayMs * 2 ** Math.floor((attempt - 1) / 2), 2_000), signal);
    }
    let origin = '?';
    try {
      origin = new URL(call.eventsUrl).origin;
    } catch {
      // logged as '?'
    }
    this.log.warn(
      { call_id: 'call_id' in event ? event.call_id : null, carrier_call_id: event.carrier_call_id, type: event.type, to: maskPhone(call.record.to), events_origin: origin, attempts: this.delivery.attempts, error: lastError },
      'carrier event not delivered; dropped',
    );
    return 'failed';
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.timers.add(timer);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

export class CarrierSimulatorState {
  readonly numbers = new Map<string, NumberRecord>();
  readonly calls: CallSimulatorState;
  readonly messages: MessageSimulatorState;
  readonly model: ModelSimulatorState;
  provisionFault: ProvisionFault = 'normal';
  private held: Array<() => void> = [];

  constructor(options: { calls?: CallSimulatorState; messages?: MessageSimulatorState; model?: ModelSimulatorState } = {}) {
    this.calls = options.calls ?? new CallSimulatorState();
    this.messages = options.messages ?? new MessageSimulatorState();
    this.model = options.model ?? new ModelSimulatorState();
  }

  private randomNumber(): string {
    for (;;) {
      const area = AREA_CODES[crypto.randomInt(AREA_CODES.length)];
      // 555-0100..0199 is the reserved never-connects range; hand out 555-2000..9999 only.
      const line = 2000 + crypto.randomInt(8000);
      const candidate = `+1${area}555${line}`;
      if (![...this.numbers.values()].some((n) => n.phone_number === candidate && n.status === 'active')) return candidate;
    }
  }

  /** Blocks until the control API releases held requests (fault `hold`). */
  waitWhileHeld(): Promise<void> {
    if (this.provisionFault !== 'hold') return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }

  releaseHeld(): number {
    const waiting = this.held;
    this.held = [];
    waiting.forEach((resolve) => resolve());
    return waiting.length;
  }

  get heldCount(): number {
    return this.held.length;
  }

  provision(idempotencyKey: string, country: string): NumberRecord {
    const existing = this.numbers.get(idempotencyKey);
    if (existing) {
      existing.requests += 1;
      return existing;
    }
    const record: NumberRecord = {
      idempotency_key: idempotencyKey,
      phone_number: this.randomNumber(),
      number_ref: `PN${crypto.randomBytes(12).toString('hex')}`,
      country,
      status: 'active',
      requests: 1,
      allocated_at: new Date().toISOString(),
      released_at: null,
    };
    this.numbers.set(idempotencyKey, record);
    return record;
  }

  release(phoneNumber: string): boolean {
    for (const record of this.numbers.values()) {
      if (record.phone_number === phoneNumber && record.status === 'active') {
        record.status = 'released';
        record.released_at = new Date().toISOString();
        return true;
      }
    }
    return false;
  }
}

function isSpeechText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_SPEECH_TEXT;
}

const RECORDING_SAMPLE_RATE = 8_000;
const WAV_HEADER_BYTES = 44;
/** Samples per chunk when streaming a recording. */
const WAV_CHUNK_SAMPLES = 8_000;

/**
 * A simulated recording, streamed chunk by chunk: a WAV header (8000 Hz, mono, 16-bit PCM) then
 * `samples` samples of a quiet 440 Hz tone (amplitude 1000).
 */
function* wavChunks(samples: number): Generator<Buffer> {
  const dataBytes = samples * 2;
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(RECORDING_SAMPLE_RATE, 24);
  header.writeUInt32LE(RECORDING_SAMPLE_RATE * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  yield header;
  for (let start = 0; start < samples; start += WAV_CHUNK_SAMPLES) {
    const count = Math.min(WAV_CHUNK_SAMPLES, samples - start);
    const chunk = Buffer.alloc(count * 2);
    for (let i = 0; i < count; i += 1) {
      chunk.writeInt16LE(Math.round(1000 * Math.sin((2 * Math.PI * 440 * (start + i)) / RECORDING_SAMPLE_RATE)), i * 2);
    }
    yield chunk;
  }
}

/** `language` from a body: absent means `en`; null when it is not a language tag. */
function languageOf(value: unknown): string | null {
  if (value === undefined) return 'en';
  return typeof value === 'string' && LANGUAGE.test(value) && value.length <= 35 ? value : null;
}

/** The carrier's call API (`/carrier/v1/calls...`) and its control API (`/control/calls...`). */
function callRoutes(router: Router, calls: CallSimulatorState, requireCarrierAuth: Koa.Middleware, callbacks: CallbackSender): void {
  router.post('/carrier/v1/calls', requireCarrierAuth, async (ctx) => {
    const body = await readJson(ctx);
    const { call_id: callId, from, to, events_url: eventsUrl, record } = body;
    if (typeof callId !== 'string' || callId === '' || callId.length > 200) return badRequest(ctx, 'call_id is required');
    if (typeof from !== 'string' || !E164.test(from)) return badRequest(ctx, 'from must be an E.164 number');
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    const target = callbacks.resolve(eventsUrl, '/carrier/events');
    if ('error' in target) return badRequest(ctx, `events_url ${target.error}`);
    if (record !== undefined && typeof record !== 'boolean') return badRequest(ctx, 'record must be a boolean');
    const placed = calls.place({ callId, from, to, eventsUrl: target.url, record });
    if (placed === 'refused') {
      ctx.status = 403;
      ctx.body = { error: 'destination_not_permitted' };
      return;
    }
    if (!placed) {
      ctx.status = 409;
      ctx.body = { error: 'call_id_reused' };
      return;
    }
    ctx.status = 201;
    ctx.body = { carrier_call_id: placed.carrier_call_id };
  });

  router.post('/carrier/v1/calls/:carrier_call_id/answer', requireCarrierAuth, async (ctx) => {
    const { call_id: callId, record } = await readJson(ctx);
    if (typeof callId !== 'string' || callId === '' || callId.length > 200) return badRequest(ctx, 'call_id is required');
    if (record !== undefined && typeof record !== 'boolean') return badRequest(ctx, 'record must be a boolean');
    const result = calls.answer(ctx.params.carrier_call_id, callId, record === true);
    if (typeof result === 'object') {
      ctx.body = { carrier_call_id: result.carrier_call_id, call_id: result.call_id, state: result.state };
      return;
    }
    if (result === 'unknown') {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    ctx.status = 409;
    ctx.body = { error: result };
  });

  router.post('/carrier/v1/calls/:carrier_call_id/reject', requireCarrierAuth, async (ctx) => {
    const result = calls.reject(ctx.params.carrier_call_id);
    if (typeof result === 'object') {
      ctx.body = { carrier_call_id: result.carrier_call_id, state: result.state };
      return;
    }
    if (result === 'unknown') {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    ctx.status = 409;
    ctx.body = { error: result === 'answered' ? 'call is answered' : 'not_inbound' };
  });

  router.post('/carrier/v1/calls/:carrier_call_id/hangup', requireCarrierAuth, async (ctx) => {
    const record = calls.hangUpBySwitchboard(ctx.params.carrier_call_id);
    if (!record) {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    ctx.body = { carrier_call_id: record.carrier_call_id, state: record.state };
  });

  router.post('/carrier/v1/calls/:carrier_call_id/speak', requireCarrierAuth, async (ctx) => {
    const { text, speak_id: speakId, voice } = await readJson(ctx);
    if (typeof speakId !== 'string' || speakId === '' || speakId.length > 200) return badRequest(ctx, 'speak_id is required');
    if (!isSpeechText(text)) return badRequest(ctx, `text must be a non-blank string of at most ${MAX_SPEECH_TEXT} characters`);
    if (voice !== undefined && voice !== null && !(typeof voice === 'string' && /^[a-z0-9-]{1,64}$/.test(voice))) return badRequest(ctx, 'voice must be a voice slug');
    const result = calls.speak(ctx.params.carrier_call_id, speakId, text, typeof voice === 'string' ? voice : null);
    if (typeof result === 'object') {
      ctx.status = 202;
      ctx.body = { speak_id: result.speak_id };
      return;
    }
    if (result === 'unknown') {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    ctx.status = 409;
    ctx.body = { error: result === 'not_answered' ? 'call is not answered' : 'speak_id_reused' };
  });

  router.post('/carrier/v1/calls/:carrier_call_id/dtmf', requireCarrierAuth, async (ctx) => {
    const { digits } = await readJson(ctx);
    if (typeof digits !== 'string' || !/^[0-9*#w]{1,64}$/.test(digits)) return badRequest(ctx, 'digits must be 1 to 64 of 0-9, *, # and w');
    const result = await calls.sendDigits(ctx.params.carrier_call_id, digits);
    if (result === 'unknown') {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    if (result === 'not_answered') {
      ctx.status = 409;
      ctx.body = { error: 'call is not answered' };
      return;
    }
    ctx.body = result;
  });

  router.post('/carrier/v1/calls/:carrier_call_id/stop', requireCarrierAuth, async (ctx) => {
    const result = calls.stopSpeaking(ctx.params.carrier_call_id);
    if (!result) {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    ctx.body = { carrier_call_id: ctx.params.carrier_call_id, stopped: result.stopped, dropped: result.dropped };
  });

  // The carrier's media store: recordings of ended calls, generated on request (bearer checked by `requireControlToken`).
  router.get('/recordings/:file', async (ctx) => {
    const match = /^(.+)\.wav$/.exec(ctx.params.file);
    const recording = match ? calls.recording(match[1]) : null;
    if (!recording) {
      ctx.status = 404;
      ctx.body = { error: 'no such recording' };
      return;
    }
    const samples = Math.round((Math.max(0, recording.endedAt - recording.answeredAt) * RECORDING_SAMPLE_RATE) / 1000);
    ctx.type = 'audio/wav';
    ctx.length = WAV_HEADER_BYTES + samples * 2;
    ctx.body = Readable.from(wavChunks(samples));
  });

  router.get('/control/calls', async (ctx) => {
    ctx.body = { calls: calls.list() };
  });
  router.get('/control/calls/outcomes', async (ctx) => {
    ctx.body = { outcomes: [...calls.outcomes].map(([to, { outcome, ringMs }]) => ({ to, outcome, ring_ms: ringMs })) };
  });
  router.post('/control/calls/outcomes', async (ctx) => {
    const { to, outcome, ring_ms: ringMs } = await readJson(ctx);
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    if (outcome !== 'answer' && outcome !== 'busy' && outcome !== 'no_answer' && outcome !== 'fail' && outcome !== 'reject') {
      return badRequest(ctx, 'outcome must be answer, busy, no_answer, fail or reject');
    }
    if (ringMs !== undefined && !(typeof ringMs === 'number' && Number.isSafeInteger(ringMs) && ringMs >= 0 && ringMs <= MAX_RING_MS)) {
      return badRequest(ctx, `ring_ms must be an integer from 0 to ${MAX_RING_MS}`);
    }
    calls.setOutcome(to, outcome, ringMs);
    ctx.body = { to, outcome, ring_ms: calls.outcomes.get(to)?.ringMs };
  });
  router.delete('/control/calls/outcomes', async (ctx) => {
    calls.outcomes.clear();
    ctx.body = { reset: true };
  });
  router.post('/control/calls/inbound', async (ctx) => {
    const { from, to, events_url: eventsUrl } = await readJson(ctx);
    if (typeof from !== 'string' || !E164.test(from)) return badRequest(ctx, 'from must be an E.164 number');
    if (typeof to !== 'string' || !E164.test(to)) return badRequest(ctx, 'to must be an E.164 number');
    const target = callbacks.resolve(eventsUrl, '/carrier/events');
    if ('error' in target) return badRequest(ctx, `events_url ${target.error}`);
    const record = calls.incoming({ from, to, eventsUrl: target.url });
    ctx.status = 201;
    ctx.body = { carrier_call_id: record.carrier_call_id };
  });
  router.post('/control/calls/reset', async (ctx) => {
    calls.reset();
    ctx.body = { reset: true };
  });
  router.get('/control/speech', async (ctx) => {
    ctx.body = { words_per_second: calls.wordsPerSecond };
  });
  router.post('/control/speech', async (ctx) => {
    const { words_per_second: wordsPerSecond } = await readJson(ctx);
    if (!(typeof wordsPerSecond === 'number' && Number.isFinite(wordsPerSecond) && wordsPerSecond > 0 && wordsPerSecond <= MAX_WORDS_PER_SECOND)) {
      return badRequest(ctx, `words_per_second must be a number above 0 and at most ${MAX_WORDS_PER_SECOND}`);
    }
    calls.wordsPerSecond = wordsPerSecond;
    ctx.body = { words_per_second: calls.wordsPerSecond };
  });
  router.get('/control/calls/:call_id/dtmf', async (ctx) => {
    const dtmf = calls.dtmfFor(ctx.params.call_id);
    if (!dtmf) {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    ctx.body = { dtmf };
  });
  router.get('/control/calls/:call_id/speech', async (ctx) => {
    const speech = calls.speechFor(ctx.params.call_id);
    if (!speech) {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    ctx.body = { speech };
  });
  const callerSpeaks = async (ctx: RouterContext, bargeIn: boolean) => {
    const body = await readJson(ctx);
    if (!isSpeechText(body.text)) return badRequest(ctx, `text must be a non-blank string of at most ${MAX_SPEECH_TEXT} characters`);
    const language = languageOf(body.language);
    if (language === null) return badRequest(ctx, 'language must be a language tag such as en or pt-BR');
    const result = bargeIn ? calls.bargeIn(ctx.params.call_id, body.text, language) : calls.say(ctx.params.call_id, body.text, language);
    if (result === 'unknown') {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    if (result === 'not_answered') {
      ctx.status = 409;
      ctx.body = { error: 'call is not answered', state: calls.get(ctx.params.call_id)?.state };
      return;
    }
    ctx.status = 202;
    ctx.body = bargeIn ? { call_id: ctx.params.call_id, text: body.text, language, stopped: (result as { stopped: string | null }).stopped } : { call_id: ctx.params.call_id, text: body.text, language };
  };
  router.post('/control/calls/:call_id/say', (ctx) => callerSpeaks(ctx, false));
  router.post('/control/calls/:call_id/barge-in', (ctx) => callerSpeaks(ctx, true));
  router.post('/control/calls/:call_id/hangup', async (ctx) => {
    const result = calls.hangUpByCaller(ctx.params.call_id);
    if (result === 'unknown') {
      ctx.status = 404;
      ctx.body = { error: 'no such call' };
      return;
    }
    if (result === 'not_answered') {
      ctx.status = 409;
      ctx.body = { error: 'call is not answered', state: calls.get(ctx.params.call_id)?.state };
      return;
    }
    ctx.body = result;
  });
}

/**
 * The simulator's credentials, one per direction (docs/simulator.md, "Authentication"): bearers it
 * accepts on its carrier API (and media socket), processor API and control API, and the secret it
 * signs its callbacks to Switchboard with.
 */
export interface SimulatorCredentials {
  /** `CARRIER_API_KEY`: bearer of `/carrier/v1/*` and the media socket. */
  carrierApiKey: string;
  /** `PAYMENTS_API_KEY`: bearer of `/processor/v1/*`. */
  paymentsApiKey: string;
  /** `CARRIER_WEBHOOK_SECRET`: signs every callback attempt (never sent). */
  webhookSecret: string;
  /** `SIMULATOR_CONTROL_TOKEN`: bearer of `/control/*` and `/recordings/*`. */
  controlToken: string;
}

export function createCarrierSimulatorApp(options: {
  credentials: SimulatorCredentials;
  /** The only base callbacks are posted under (`SIMULATOR_CALLBACK_BASE_URL`); settable later through `callbacks`. */
  callbackBaseUrl?: string | null;
  state?: CarrierSimulatorState;
  processor?: CardProcessorSimulatorState;
  /** The URL the simulator is reached at, for recordings' `recording_url` (`startCarrierSimulator` sets it once listening). */
  baseUrl?: string;
  /** Calls' audio (simulator/mediaSimulator.ts); defaults to a fresh one over `state.calls`. */
  media?: MediaSimulatorState;
}) {
  const state = options.state ?? new CarrierSimulatorState();
  const media = options.media ?? new MediaSimulatorState(state.calls);
  if (options.baseUrl !== undefined) state.calls.baseUrl = options.baseUrl;
  const processor = options.processor ?? new CardProcessorSimulatorState();
  const { credentials } = options;
  const callbacks = new CallbackSender(credentials.webhookSecret, options.callbackBaseUrl ?? null);
  state.calls.callbacks = callbacks;
  state.messages.callbacks = callbacks;
  const router = new Router();

  const requireCarrierAuth: Koa.Middleware = async (ctx, next) => {
    if (!bearerMatches(ctx.get('authorization'), credentials.carrierApiKey)) {
      ctx.status = 401;
      ctx.body = { error: 'invalid carrier credentials' };
      return;
    }
    await next();
  };
  // The control API and the media store steer or read the simulated world: never open (review M10).
  const requireControlToken: Koa.Middleware = async (ctx, next) => {
    const guarded = /^\/(control|recordings)(\/|$)/.test(ctx.path);
    if (guarded && !bearerMatches(ctx.get('authorization'), credentials.controlToken)) {
      ctx.status = 401;
      ctx.body = { error: 'the control API needs Authorization: Bearer <SIMULATOR_CONTROL_TOKEN>' };
      return;
    }
    await next();
  };

  // Carrier API: what a Switchboard adapter calls.
  router.post('/carrier/v1/numbers', requireCarrierAuth, async (ctx) => {
    const body = await readJson(ctx);
    const key = body.idempotency_key;
    if (typeof key !== 'string' || key === '') {
      ctx.status = 400;
      ctx.body = { error: 'idempotency_key is required' };
      return;
    }
    const fault = state.provisionFault;
    if (fault === 'hold') await state.waitWhileHeld();
    if (fault === 'reject') {
      ctx.status = 409;
      ctx.body = { error: 'no numbers available in this region' };
      return;
    }
    if (fault === 'error') {
      ctx.status = 503;
      ctx.body = { error: 'carrier temporarily unavailable' };
      return;
    }
    const record = state.provision(key, typeof body.country === 'string' ? body.country : 'US');
    ctx.status = 201;
    ctx.body = { phone_number: record.phone_number, number_ref: record.number_ref };
  });

  router.delete('/carrier/v1/numbers/:phone', requireCarrierAuth, async (ctx) => {
    state.release(ctx.params.phone);
    ctx.body = { released: true };
  });

  // Control API: what tests and the demo call to steer the simulated world.
  router.get('/control/numbers', async (ctx) => {
    ctx.body = { numbers: [...state.numbers.values()] };
  });
  router.post('/control/faults', async (ctx) => {
    const body = await readJson(ctx);
    const fault = body.provision_numbers;
    if (fault !== 'normal' && fault !== 'hold' && fault !== 'reject' && fault !== 'error') {
      ctx.status = 400;
      ctx.body = { error: 'provision_numbers must be normal, hold, reject or error' };
      return;
    }
    state.provisionFault = fault;
    if (fault !== 'hold') state.releaseHeld();
    ctx.body = { provision_numbers: state.provisionFault };
  });
  router.get('/control/holds', async (ctx) => {
    ctx.body = { held: state.heldCount };
  });
  router.post('/control/holds/release', async (ctx) => {
    ctx.body = { released: state.releaseHeld() };
  });
  router.get('/healthz', async (ctx) => {
    ctx.body = { status: 'ok' };
  });

  callRoutes(router, state.calls, requireCarrierAuth, callbacks);
  messageRoutes(router, state.messages, requireCarrierAuth, callbacks);
  modelRoutes(router, state.model);
  mediaRoutes(router, media);

  // The card processor lives in the same process (simulator/cardProcessorSimulator.ts).
  cardProcessorRoutes(router, processor, credentials.paymentsApiKey);

  const app = new Koa();
  app.silent = true;
  app.use(requireControlToken);
  app.use(router.routes()).use(router.allowedMethods());
  return { app, state, processor, media, callbacks };
}

export async function startCarrierSimulator(options: {
  host: string;
  port: number;
  credentials: SimulatorCredentials;
  /** See `createCarrierSimulatorApp`; the returned `callbacks.setBaseUrl` sets it later. */
  callbackBaseUrl?: string | null;
  /** Defaults to a fresh state (tests pass one to shorten timeouts). */
  state?: CarrierSimulatorState;
}): Promise<{ server: http.Server; state: CarrierSimulatorState; processor: CardProcessorSimulatorState; media: MediaSimulatorState; callbacks: CallbackSender; url: string }> {
  const { app, state, processor, media, callbacks } = createCarrierSimulatorApp({ credentials: options.credentials, callbackBaseUrl: options.callbackBaseUrl, state: options.state });
  const server = http.createServer(app.callback());
  // Calls' audio: WebSocket upgrades on /carrier/v1/calls/{carrier_call_id}/media.
  handleMediaUpgrades(server, media, options.credentials.carrierApiKey);
  // Requests held by the processor's `timeout` fault would keep close() waiting: let them go.
  const close = server.close.bind(server);
  // Likewise ring timers and pending call-event deliveries would keep the process alive.
  server.close = ((callback?: (err?: Error) => void) => {
    processor.releaseHeld();
    state.calls.stop();
    state.messages.stop();
    state.model.stop();
    media.stop();
    return close(callback);
  }) as typeof server.close;
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host}:${port}`;
  state.calls.baseUrl = url;
  return { server, state, processor, media, callbacks, url };
}
