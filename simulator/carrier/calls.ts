import crypto from 'node:crypto';
import { createLogger, maskPhone, type Logger } from '../../src/platform/logger';
import { deliveryOptions, postEvent, sleep, type CallbackSender, type DeliveryOptions } from '../delivery';
import type { AnsweredBy, CarrierCallEvent } from '../../src/adapters/carrier/callbacks/wire';

/**
 * The carrier's calls: outbound calls played out by their destination's outcome, inbound calls
 * announced and answered, speech, DTMF and recordings, and the events each call POSTs back.
 * In memory on purpose: the simulator plays an external system. See docs/simulator.md, "Calls".
 */

/** +1 <any area code> 555-0100…0199: calls to these ring and never connect. */
export const NEVER_CONNECTS = /^\+1\d{3}55501\d{2}$/;
const DEFAULT_RING_MS = 200;
/** How long an inbound call rings unanswered before the caller gives up. */
const INBOUND_RING_TIMEOUT_MS = 30_000;
/** How long a transfer's destination rings before the transfer fails (the carriers' dial timeout). */
const TRANSFER_RING_TIMEOUT_MS = 30_000;
/** How fast text-to-speech plays, by default (settable with `POST /control/speech`). */
export const DEFAULT_WORDS_PER_SECOND = 20;
/** How often a playing speak command reports progress (`call.playback`, `done: false`). */
export const PLAYBACK_PROGRESS_MS = 250;

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
  /** Placed with `machine_detection`: `call.answered` then says who answered. */
  machine_detection: boolean;
  /** Who answered, when detection was asked (the destination's configured `answered_by`, else `human`). */
  answered_by: AnsweredBy | null;
  /** The latest transfer Switchboard asked for on this call. */
  transfer: TransferRecord | null;
}

/** A blind transfer of an answered call (`POST /carrier/v1/calls/{id}/transfer`), played out by its destination's outcome. */
export interface TransferRecord {
  transfer_id: string;
  to: string;
  from: string;
  /** `connected`: the destination answered and talks with the caller; Switchboard hears and says nothing any more. */
  state: 'ringing' | 'connected' | 'failed';
}

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
  readonly outcomes = new Map<string, { outcome: CallOutcome; ringMs: number; answeredBy?: AnsweredBy }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private abort = new AbortController();
  private readonly delivery: DeliveryOptions;
  private readonly log: Logger;
  private readonly inboundRingTimeoutMs: number;
  /** Signs and sends events; set by the app (`createSimulatorApp`). Without it events are not delivered. */
  callbacks: CallbackSender | null = null;
  /** Text-to-speech speed for playbacks that start from now on. */
  wordsPerSecond = DEFAULT_WORDS_PER_SECOND;
  /**
   * The URL the simulator listens on (set by `startSimulator`), for `recording_url`.
   * While null, recorded calls complete without a `recording_url`.
   */
  baseUrl: string | null;

  constructor(options: { delivery?: Partial<DeliveryOptions>; log?: Logger; inboundRingTimeoutMs?: number; baseUrl?: string } = {}) {
    this.delivery = deliveryOptions(options.delivery);
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

  /** What calls (and transfers) to `to` do; `answeredBy` is who answers when machine detection is asked (default `human`). */
  setOutcome(to: string, outcome: CallOutcome, ringMs = DEFAULT_RING_MS, answeredBy?: AnsweredBy): void {
    this.outcomes.set(to, { outcome, ringMs, ...(answeredBy ? { answeredBy } : {}) });
  }

  /**
   * Starts a call, or answers a repeat of `callId` with the call it already started.
   * `call_id_reused` when `callId` was already used for a different from/to; `refused` for a
   * destination whose outcome is `reject` (nothing is placed).
   */
  place(request: {
    callId: string;
    from: string;
    to: string;
    eventsUrl: string;
    record?: boolean;
    machineDetection?: boolean;
  }): CallRecord | 'call_id_reused' | 'refused' {
    if (this.outcomes.get(request.to)?.outcome === 'reject') return 'refused';
    const existing = this.calls.get(request.callId);
    if (existing) {
      if (existing.record.direction !== 'outbound') return 'call_id_reused';
      if (existing.record.from !== request.from || existing.record.to !== request.to) return 'call_id_reused';
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
        machine_detection: request.machineDetection === true,
        answered_by: null,
        transfer: null,
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
        machine_detection: false,
        answered_by: null,
        transfer: null,
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
    const event: CarrierCallEvent = {
      type: 'call.incoming',
      carrier_call_id: call.record.carrier_call_id,
      from: call.record.from,
      to: call.record.to,
      at: Date.now(),
    };
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
  answer(
    carrierCallId: string,
    callId: string,
    record = false,
  ): 'unknown' | 'not_inbound' | 'call_id_mismatch' | 'call_id_reused' | 'ended' | CallRecord {
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
  say(callId: string, text: string, language: string): 'unknown' | 'not_answered' | 'transferred' | CallRecord {
    const call = this.calls.get(callId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    if (!this.inMediaPath(call)) return 'transferred';
    this.emit(call, { type: 'call.utterance', text, language });
    return { ...call.record };
  }

  /**
   * The caller talks over the playback (the control API): if a speak command is playing, it is
   * stopped exactly as by `stopSpeaking` (its `call.playback` with `stopped: true` goes first),
   * then `call.utterance` with `text`.
   */
  bargeIn(callId: string, text: string, language: string): 'unknown' | 'not_answered' | 'transferred' | { stopped: string | null } {
    const call = this.calls.get(callId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    if (!this.inMediaPath(call)) return 'transferred';
    const stopped = this.stopPlayback(call, true);
    this.emit(call, { type: 'call.utterance', text, language });
    return { stopped: stopped.stopped };
  }

  /**
   * Switchboard asks the carrier to speak `text` (the carrier API). Queued behind any speak
   * command still playing. Idempotent on `speakId`: a repeat with the same text is accepted again
   * (even after the call ended) without speaking twice.
   */
  speak(
    carrierCallId: string,
    speakId: string,
    text: string,
    voice: string | null = null,
  ): 'unknown' | 'not_answered' | 'speak_id_reused' | SpeechRecord {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    const existing = call.speech.find((item) => item.record.speak_id === speakId);
    if (existing) return existing.record.text === text ? { ...existing.record } : 'speak_id_reused';
    if (!this.inMediaPath(call)) return 'not_answered';
    const item: SpeechItem = {
      record: { speak_id: speakId, text, played_text: '', state: 'queued', voice },
      words: text
        .trim()
        .split(/\s+/)
        .filter((word) => word !== ''),
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
   * Switchboard transfers an answered call to `to` (the carrier API): speech stops, the
   * destination rings for its outcome's ring time, then either answers (`call.transfer`
   * `answered: true`: the caller talks with it, Switchboard hears and says nothing more, and the
   * call ends when either hangs up) or not (`answered: false`: the call is back as before).
   * Idempotent on `transferId`; a second transfer while one rings or is connected is refused.
   */
  transfer(
    carrierCallId: string,
    request: { transferId: string; to: string; from: string },
  ): 'unknown' | 'not_answered' | 'transfer_in_progress' | 'transfer_id_reused' | TransferRecord {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    const current = call.record.transfer;
    if (current?.transfer_id === request.transferId) return current.to === request.to ? { ...current } : 'transfer_id_reused';
    if (call.record.state !== 'answered') return 'not_answered';
    if (current && current.state !== 'failed') return 'transfer_in_progress';
    this.stopPlayback(call, false);
    const transfer: TransferRecord = { transfer_id: request.transferId, to: request.to, from: request.from, state: 'ringing' };
    call.record.transfer = transfer;
    const configured = this.outcomes.get(request.to);
    const ringMs = configured?.ringMs ?? DEFAULT_RING_MS;
    // Like a carrier's dial timeout: a destination that rings longer has not answered.
    const answers =
      (configured?.outcome ?? (NEVER_CONNECTS.test(request.to) ? 'no_answer' : 'answer')) === 'answer' &&
      ringMs <= TRANSFER_RING_TIMEOUT_MS;
    this.schedule(call, Math.min(ringMs, TRANSFER_RING_TIMEOUT_MS), () => {
      if (call.record.state !== 'answered' || call.record.transfer !== transfer) return;
      transfer.state = answers ? 'connected' : 'failed';
      this.emit(call, { type: 'call.transfer', answered: answers });
    });
    return { ...transfer };
  }

  /** Switchboard hears and speaks on the call: answered, and not handed to a transfer's destination. */
  private inMediaPath(call: LiveCall): boolean {
    return call.record.state === 'answered' && call.record.transfer?.state !== 'connected';
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

  /**
   * Switchboard plays DTMF digits on an answered call (the carrier API); resolves once they have
   * been played (100 ms a digit, 500 ms a `w` pause).
   */
  async sendDigits(carrierCallId: string, digits: string): Promise<'unknown' | 'not_answered' | DtmfRecord> {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    if (!this.inMediaPath(call)) return 'not_answered';
    const record: DtmfRecord = { digits, at: new Date().toISOString() };
    call.dtmf.push(record);
    const ms = [...digits].reduce((sum, digit) => sum + (digit === 'w' ? DTMF_PAUSE_MS : DTMF_TONE_MS), 0);
    await sleep(ms, this.abort.signal);
    return { ...record };
  }

  dtmfFor(callId: string): DtmfRecord[] | undefined {
    const call = this.calls.get(callId);
    return call ? call.dtmf.map((record) => ({ ...record })) : undefined;
  }

  /** What was said to the caller on a call, oldest first; undefined for an unknown `callId`. */
  speechFor(callId: string): SpeechRecord[] | undefined {
    const call = this.calls.get(callId);
    if (!call) return undefined;
    return call.speech.map((item) => ({
      ...item.record,
      played_text: item.record.state === 'speaking' ? this.playedWords(item).join(' ') : item.record.played_text,
    }));
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
    const timer = setTimeout(
      () => {
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
      },
      Math.max(0, at - Date.now()),
    );
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
        if (report)
          this.emit(call, {
            type: 'call.playback',
            speak_id: item.record.speak_id,
            played_text: item.record.played_text,
            done: true,
            stopped: true,
          });
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
      case 'answer': {
        call.record.state = 'answered';
        call.record.answered_at = new Date().toISOString();
        if (!call.record.machine_detection) return this.emit(call, { type: 'call.answered' });
        call.record.answered_by = this.outcomes.get(call.record.to)?.answeredBy ?? 'human';
        this.emit(call, { type: 'call.answered', answered_by: call.record.answered_by });
        return;
      }
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

  private emit(
    call: LiveCall,
    event: DistributiveOmit<Exclude<CarrierCallEvent, { type: 'call.incoming' }>, 'call_id' | 'carrier_call_id' | 'at'>,
  ): void {
    const { type, ...extra } = event;
    const full = {
      type,
      call_id: call.record.call_id ?? '',
      carrier_call_id: call.record.carrier_call_id,
      at: Date.now(),
      ...extra,
    } as CarrierCallEvent;
    const signal = this.abort.signal;
    call.queue = call.queue.then(async () => {
      await this.deliver(call, full, signal);
    });
  }

  /**
   * POSTs one event, retrying a few times (simulator/delivery.ts); never throws, so the call's
   * later events still go. With `retryHttpErrors: false` a non-2xx answer is final ('refused');
   * network errors and timeouts are still retried.
   */
  private async deliver(
    call: LiveCall,
    event: CarrierCallEvent,
    signal: AbortSignal,
    options: { retryHttpErrors?: boolean } = {},
  ): Promise<'delivered' | 'refused' | 'failed'> {
    const outcome = await postEvent({
      callbacks: this.callbacks,
      url: call.eventsUrl,
      event,
      signal,
      options: this.delivery,
      isFinal: () => options.retryHttpErrors === false,
      dropped: (error) => {
        let origin = '?';
        try {
          origin = new URL(call.eventsUrl).origin;
        } catch {
          // logged as '?'
        }
        const about = { call_id: 'call_id' in event ? event.call_id : null, carrier_call_id: event.carrier_call_id, type: event.type };
        const where = { to: maskPhone(call.record.to), events_origin: origin };
        this.log.warn({ ...about, ...where, attempts: this.delivery.attempts, error }, 'carrier event not delivered; dropped');
      },
    });
    return outcome.delivery;
  }
}
