import { createLogger, type Logger } from '../../src/platform/logger';
import { deliveryOptions, type CallbackSender, type DeliveryOptions } from '../delivery';
import type { AnsweredBy, CarrierCallEvent, MachineKind } from '../../src/adapters/carrier/callbacks/wire';
import { CallEvents } from './callEvents';
import {
  inMediaPath,
  newLiveCall,
  type CallOutcome,
  type CallRecord,
  type DtmfRecord,
  type LiveCall,
  type SpeechRecord,
  type TransferRecord,
} from './callRecords';
import { DEFAULT_RING_MS, placedCallPlan, transferPlan, type Answerer, type DestinationSetting } from './destinations';
import { DEFAULT_WORDS_PER_SECOND, Playback } from './playback';

/**
 * The carrier's calls: outbound calls played out by their destination's outcome, inbound calls
 * announced and answered, transfers, DTMF and recordings. Their records are in ./callRecords.ts,
 * their timers and events in ./callEvents.ts, their speech in ./playback.ts.
 * In memory on purpose: the simulator plays an external system. See docs/simulator.md, "Calls".
 */

/** How long an inbound call rings unanswered before the caller gives up. */
const INBOUND_RING_TIMEOUT_MS = 30_000;
/**
 * How long a machine's greeting lasts, from the answer to its beep, on a call placed with greeting-end detection
 * (short: the suite waits for it; a real greeting lasts 5-30 s).
 */
export const MACHINE_GREETING_MS = 1_500;
/** How long one DTMF tone (with its gap) takes, and a `w` pause. */
const DTMF_TONE_MS = 100;
const DTMF_PAUSE_MS = 500;

/** Who answered, as the detection reports it: `answered_by`, and `machine_kind` for a fax. */
function whoAnswered(call: LiveCall): { answered_by: AnsweredBy; machine_kind?: MachineKind } {
  return { answered_by: call.record.answered_by!, ...(call.record.machine_kind ? { machine_kind: call.record.machine_kind } : {}) };
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
  /** What each destination does (./destinations.ts), by number. */
  readonly outcomes = new Map<string, DestinationSetting>();
  private readonly events: CallEvents;
  private readonly playback: Playback;
  private readonly inboundRingTimeoutMs: number;
  /**
   * The URL the simulator listens on (set by `startSimulator`), for `recording_url`.
   * While null, recorded calls complete without a `recording_url`.
   */
  baseUrl: string | null;

  constructor(options: { delivery?: Partial<DeliveryOptions>; log?: Logger; inboundRingTimeoutMs?: number; baseUrl?: string } = {}) {
    this.events = new CallEvents(deliveryOptions(options.delivery), options.log ?? createLogger('simulator'));
    this.playback = new Playback(this.events);
    this.baseUrl = options.baseUrl ?? null;
    this.inboundRingTimeoutMs = options.inboundRingTimeoutMs ?? INBOUND_RING_TIMEOUT_MS;
  }

  /** Signs and sends events; set by the app (`createSimulatorApp`). Without it events are not delivered. */
  get callbacks(): CallbackSender | null {
    return this.events.callbacks;
  }

  set callbacks(sender: CallbackSender | null) {
    this.events.callbacks = sender;
  }

  /** Called with every event queued for an existing call, `call.incoming` aside (in-process observers such as the bench). */
  get onEvent(): ((event: CarrierCallEvent) => void) | null {
    return this.events.onEvent;
  }

  set onEvent(observer: ((event: CarrierCallEvent) => void) | null) {
    this.events.onEvent = observer;
  }

  /** Text-to-speech speed for playbacks that start from now on. */
  get wordsPerSecond(): number {
    return this.playback.wordsPerSecond;
  }

  set wordsPerSecond(wordsPerSecond: number) {
    this.playback.wordsPerSecond = wordsPerSecond;
  }

  list(): CallRecord[] {
    return [...this.byCarrierId.values()].map((call) => ({ ...call.record }));
  }

  get(callId: string): CallRecord | undefined {
    const call = this.calls.get(callId);
    return call ? { ...call.record } : undefined;
  }

  /** What calls (and transfers) to `to` do; `answeredBy` is who answers when machine detection is asked (default `human`). */
  setOutcome(to: string, outcome: CallOutcome, ringMs = DEFAULT_RING_MS, answeredBy?: Answerer): void {
    this.outcomes.set(to, { outcome, ringMs, ...(answeredBy ? { answeredBy } : {}) });
  }

  /** What calls to `to` do, with a hang-up after answering and a next setting (see {@link DestinationSetting}). */
  setDestination(to: string, setting: DestinationSetting): void {
    this.outcomes.set(to, setting);
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
    /** With `machineDetection`: answer first, say who answered after it, and report a machine's greeting end. */
    greetingEndDetection?: boolean;
  }): CallRecord | 'call_id_reused' | 'refused' {
    if (this.outcomes.get(request.to)?.outcome === 'reject') return 'refused';
    const existing = this.calls.get(request.callId);
    if (existing) {
      if (existing.record.direction !== 'outbound') return 'call_id_reused';
      if (existing.record.from !== request.from || existing.record.to !== request.to) return 'call_id_reused';
      existing.record.requests += 1;
      return existing.record;
    }
    const setting = this.outcomes.get(request.to);
    const { outcome, ringMs } = placedCallPlan(request.to, setting);
    // A destination's next setting applies from the next new call on (a repeat of this call id came back above).
    if (setting?.then) this.outcomes.set(request.to, setting.then);
    const call = newLiveCall({
      direction: 'outbound',
      callId: request.callId,
      from: request.from,
      to: request.to,
      eventsUrl: request.eventsUrl,
      ringMs,
      outcome,
      recording: request.record === true,
      machineDetection: request.machineDetection === true,
      greetingEndDetection: request.machineDetection === true && request.greetingEndDetection === true,
      hangUpAfterMs: setting?.hangUpAfterMs ?? null,
    });
    this.calls.set(request.callId, call);
    this.byCarrierId.set(call.record.carrier_call_id, call);

    if (outcome === 'fail') {
      this.end(call);
      this.events.emit(call, { type: 'call.failed' });
      return call.record;
    }
    this.events.emit(call, { type: 'call.ringing' });
    if (outcome !== 'never_connect') this.events.schedule(call, call.ringMs, () => this.ringEnded(call));
    return call.record;
  }

  /**
   * Someone calls one of our numbers (the control API): the call rings, and `call.incoming` goes
   * to `eventsUrl`. A non-2xx answer to it (or giving up delivering it) declines the call; if
   * nobody answers within the ring timeout the caller gives up. Neither sends another event.
   */
  incoming(request: { from: string; to: string; eventsUrl: string }): CallRecord {
    const call = newLiveCall({
      direction: 'inbound',
      callId: null,
      from: request.from,
      to: request.to,
      eventsUrl: request.eventsUrl,
      ringMs: this.inboundRingTimeoutMs,
      outcome: null,
      recording: false,
      machineDetection: false,
      hangUpAfterMs: null,
    });
    this.byCarrierId.set(call.record.carrier_call_id, call);
    this.events.schedule(call, call.ringMs, () => this.endRinging(call, 'unanswered'));
    this.events.announce(call, () => this.endRinging(call, 'rejected'));
    return { ...call.record };
  }

  /**
   * The caller gives up on a ringing inbound call before anyone answers (as after the ring
   * timeout): `ended`, outcome `unanswered`, no event. False unless the call is inbound and ringing.
   */
  abandon(carrierCallId: string): boolean {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call || call.record.direction !== 'inbound' || call.record.state !== 'ringing') return false;
    this.endRinging(call, 'unanswered');
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
    this.events.cancelSchedule(call);
    call.record.call_id = callId;
    call.recording = record;
    call.record.state = 'answered';
    call.record.outcome = 'answer';
    call.record.requests += 1;
    call.record.answered_at = new Date().toISOString();
    this.calls.set(callId, call);
    this.events.emit(call, { type: 'call.answered' });
    return { ...call.record };
  }

  /** Switchboard declines a ringing inbound call (the carrier API); no events. An ended call is left as it is. */
  reject(carrierCallId: string): 'unknown' | 'not_inbound' | 'answered' | CallRecord {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return 'unknown';
    if (call.record.direction !== 'inbound') return 'not_inbound';
    if (call.record.state === 'answered') return 'answered';
    this.endRinging(call, 'rejected');
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
      this.endRinging(call, 'rejected');
    } else if (call.record.state !== 'ended') {
      const answered = call.record.state === 'answered';
      this.end(call);
      this.events.emit(call, { type: 'call.completed', ended_by: 'switchboard', answered, ...this.recordingUrl(call) });
    }
    return call.record;
  }

  /** The remote party hangs up an answered call (the control API). */
  hangUpByCaller(callId: string): 'unknown' | 'not_answered' | CallRecord {
    const call = this.calls.get(callId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    this.end(call);
    this.events.emit(call, { type: 'call.completed', ended_by: 'caller', answered: true, ...this.recordingUrl(call) });
    return call.record;
  }

  /** The caller finishes saying `text` on an answered call (the control API): `call.utterance`. */
  say(callId: string, text: string, language: string): 'unknown' | 'not_answered' | 'transferred' | CallRecord {
    const call = this.calls.get(callId);
    if (!call) return 'unknown';
    if (call.record.state !== 'answered') return 'not_answered';
    if (!inMediaPath(call)) return 'transferred';
    this.events.emit(call, { type: 'call.utterance', text, language });
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
    if (!inMediaPath(call)) return 'transferred';
    const stopped = this.playback.stop(call, true);
    this.events.emit(call, { type: 'call.utterance', text, language });
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
    if (!inMediaPath(call)) return 'not_answered';
    return this.playback.enqueue(call, speakId, text, voice);
  }

  /**
   * Switchboard stops speaking (the carrier API): the playing command ends with `call.playback`
   * `done: true, stopped: true`; queued ones are dropped without events. Null for an unknown call.
   */
  stopSpeaking(carrierCallId: string): { stopped: string | null; dropped: number } | null {
    const call = this.byCarrierId.get(carrierCallId);
    if (!call) return null;
    return this.playback.stop(call, true);
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
    this.playback.stop(call, false);
    const transfer: TransferRecord = { transfer_id: request.transferId, to: request.to, from: request.from, state: 'ringing' };
    call.record.transfer = transfer;
    const { answers, afterMs } = transferPlan(request.to, this.outcomes.get(request.to));
    this.events.schedule(call, afterMs, () => {
      if (call.record.state !== 'answered' || call.record.transfer !== transfer) return;
      transfer.state = answers ? 'connected' : 'failed';
      this.events.emit(call, { type: 'call.transfer', answered: answers });
    });
    return { ...transfer };
  }

  /**
   * The recording of an ended, answered call that was asked to record: when the answered part
   * started and ended (epoch ms). Null for unknown, live, unrecorded or never-answered calls.
   */
  recording(carrierCallId: string): { answeredAt: number; endedAt: number } | null {
    const call = this.byCarrierId.get(carrierCallId);
    if (
      !call ||
      !call.recording ||
      call.recordingDeleted ||
      call.record.state !== 'ended' ||
      !call.record.answered_at ||
      !call.record.ended_at
    )
      return null;
    return { answeredAt: Date.parse(call.record.answered_at), endedAt: Date.parse(call.record.ended_at) };
  }

  /**
   * How recording deletions behave (`/control/recordings/faults`): `unauthorized` answers 401 (the credentials refused),
   * `error` 503 (transient), `reject` 400 (a permanent refusal); `remaining` of the next deletions, then `normal`
   * (null: until changed or reset).
   */
  recordingDeleteFault: { mode: 'normal' | RecordingDeleteFault; remaining: number | null } = { mode: 'normal', remaining: null };

  /**
   * The customer deletes a recording from the media store: it is never served again. `not_found` for one that does not
   * exist (unknown, unrecorded or unanswered call, or deleted before); `not_ended` while its call goes on (not yet stored).
   */
  deleteRecording(carrierCallId: string): 'deleted' | 'not_found' | 'not_ended' | RecordingDeleteFault {
    if (this.recordingDeleteFault.mode !== 'normal') {
      const { mode } = this.recordingDeleteFault;
      if (this.recordingDeleteFault.remaining !== null && --this.recordingDeleteFault.remaining <= 0)
        this.recordingDeleteFault = { mode: 'normal', remaining: null };
      return mode;
    }
    const call = this.byCarrierId.get(carrierCallId);
    if (!call || !call.recording || call.recordingDeleted || !call.record.answered_at) return 'not_found';
    if (call.record.state !== 'ended') return 'not_ended';
    call.recordingDeleted = true;
    return 'deleted';
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
    if (!inMediaPath(call)) return 'not_answered';
    const record: DtmfRecord = { digits, at: new Date().toISOString() };
    call.dtmf.push(record);
    const ms = [...digits].reduce((sum, digit) => sum + (digit === 'w' ? DTMF_PAUSE_MS : DTMF_TONE_MS), 0);
    await this.events.pause(ms);
    return { ...record };
  }

  dtmfFor(callId: string): DtmfRecord[] | undefined {
    const call = this.calls.get(callId);
    return call ? call.dtmf.map((record) => ({ ...record })) : undefined;
  }

  /** What was said to the caller on a call, oldest first; undefined for an unknown `callId`. */
  speechFor(callId: string): SpeechRecord[] | undefined {
    const call = this.calls.get(callId);
    return call ? this.playback.said(call) : undefined;
  }

  /** Forgets calls and outcomes, and the speech speed; stops timers and pending deliveries. */
  reset(): void {
    this.stop();
    this.events.restart();
    this.calls.clear();
    this.byCarrierId.clear();
    this.outcomes.clear();
    this.wordsPerSecond = DEFAULT_WORDS_PER_SECOND;
    this.recordingDeleteFault = { mode: 'normal', remaining: null };
  }

  /** Clears every timer and abandons pending deliveries (the server is closing). */
  stop(): void {
    this.events.stop();
    for (const call of this.byCarrierId.values()) {
      call.timer = null;
      call.speechTimer = null;
    }
  }

  private ringEnded(call: LiveCall): void {
    if (call.record.state !== 'ringing') return;
    switch (call.record.outcome) {
      case 'answer': {
        call.record.state = 'answered';
        call.record.answered_at = new Date().toISOString();
        const callId = call.record.call_id;
        // Its own timer, not the call's (a transfer may take that one): the callee hangs up whatever else goes on.
        if (call.hangUpAfterMs !== null && callId !== null) this.events.later(call.hangUpAfterMs, () => this.hangUpByCaller(callId));
        if (!call.record.machine_detection) return this.events.emit(call, { type: 'call.answered' });
        const answerer = this.outcomes.get(call.record.to)?.answeredBy ?? 'human';
        call.record.answered_by = answerer === 'fax' ? 'machine' : answerer;
        call.record.machine_kind = answerer === 'fax' ? 'fax' : null;
        if (call.record.greeting_end_detection) return this.detectAfterAnswer(call);
        this.events.emit(call, { type: 'call.answered', ...whoAnswered(call) });
        return;
      }
      case 'busy':
        this.end(call);
        this.events.emit(call, { type: 'call.busy' });
        return;
      case 'no_answer':
        this.end(call);
        this.events.emit(call, { type: 'call.no_answer' });
        return;
      default:
        return;
    }
  }

  /**
   * End-of-greeting detection, as Twilio's asynchronous DetectMessageEnd and Telnyx's `detect_beep` report it: the
   * answer at once, who answered after it, and for a machine the end of its greeting (a beep after
   * {@link MACHINE_GREETING_MS}); a fax has no greeting.
   */
  private detectAfterAnswer(call: LiveCall): void {
    this.events.emit(call, { type: 'call.answered' });
    this.events.emit(call, { type: 'call.machine_detection', ...whoAnswered(call) });
    if (call.record.answered_by !== 'machine' || call.record.machine_kind === 'fax') return;
    this.events.later(MACHINE_GREETING_MS, () => {
      if (call.record.state !== 'answered') return;
      call.record.greeting_ended_at = new Date().toISOString();
      this.events.emit(call, { type: 'call.greeting_ended' });
    });
  }

  private end(call: LiveCall): void {
    this.events.cancelSchedule(call);
    this.playback.stop(call, false);
    call.record.state = 'ended';
    call.record.ended_at = new Date().toISOString();
  }

  /** A ringing inbound call ends without a word (no event): declined, or the caller gave up. */
  private endRinging(call: LiveCall, outcome: 'rejected' | 'unanswered'): void {
    if (call.record.state !== 'ringing') return;
    this.end(call);
    call.record.outcome = outcome;
  }
}

/** A fault recording deletions answer with (`/control/recordings/faults`), instead of deleting. */
export type RecordingDeleteFault = 'unauthorized' | 'error' | 'reject';
