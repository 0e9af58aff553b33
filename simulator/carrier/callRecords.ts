import crypto from 'node:crypto';
import type { AnsweredBy, MachineKind } from '../../src/adapters/carrier/callbacks/wire';

/**
 * What the simulated carrier knows about a call: the records its control API shows, and the live
 * call behind each (timers, event queue, speech, DTMF). Shared by the call state machine
 * (./calls.ts), its event sender (./callEvents.ts) and its playback (./playback.ts).
 */

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
  /** With `answered_by: machine`: `fax` when a fax answered (the destination's `answered_by: fax`), else null. */
  machine_kind: MachineKind | null;
  /** Placed with `greeting_end_detection`: who answered follows the answer, and a machine's greeting end is reported. */
  greeting_end_detection: boolean;
  /** When a machine's greeting ended (its beep): what is said from then on is what it records. */
  greeting_ended_at: string | null;
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
  /** When it started playing (ISO 8601), null while queued. */
  started_at: string | null;
}

/** DTMF digits Switchboard sent on a call (`POST /carrier/v1/calls/{id}/dtmf`). */
export interface DtmfRecord {
  digits: string;
  at: string;
}

export interface SpeechItem {
  record: SpeechRecord;
  words: string[];
  /** Words per second, fixed when playback starts. */
  wordsPerSecond: number;
  startedAt: number;
}

export interface LiveCall {
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
  /** The customer deleted the recording (`DELETE /recordings/{carrier_call_id}.wav`): it is served no more. */
  recordingDeleted?: boolean;
  /** DTMF digits played on the call, in order. */
  dtmf: DtmfRecord[];
  /** The callee hangs up this long after answering (its destination's `hang_up_after_ms`); null: they stay on. */
  hangUpAfterMs: number | null;
}

/** A new ringing call with a fresh carrier call id: outbound with its call_id, inbound without one yet. */
export function newLiveCall(start: {
  direction: 'inbound' | 'outbound';
  callId: string | null;
  from: string;
  to: string;
  eventsUrl: string;
  ringMs: number;
  outcome: CallBehaviour | InboundOutcome;
  recording: boolean;
  machineDetection: boolean;
  greetingEndDetection?: boolean;
  hangUpAfterMs: number | null;
}): LiveCall {
  return {
    record: {
      call_id: start.callId,
      carrier_call_id: `CA${crypto.randomBytes(16).toString('hex')}`,
      direction: start.direction,
      from: start.from,
      to: start.to,
      state: 'ringing',
      outcome: start.outcome,
      requests: start.direction === 'outbound' ? 1 : 0,
      created_at: new Date().toISOString(),
      answered_at: null,
      ended_at: null,
      machine_detection: start.machineDetection,
      answered_by: null,
      machine_kind: null,
      greeting_end_detection: start.greetingEndDetection === true,
      greeting_ended_at: null,
      transfer: null,
    },
    eventsUrl: start.eventsUrl,
    ringMs: start.ringMs,
    timer: null,
    queue: Promise.resolve(),
    speech: [],
    speechTimer: null,
    recording: start.recording,
    dtmf: [],
    hangUpAfterMs: start.hangUpAfterMs,
  };
}

/** Switchboard hears and speaks on the call: answered, and not handed to a transfer's destination. */
export function inMediaPath(call: LiveCall): boolean {
  return call.record.state === 'answered' && call.record.transfer?.state !== 'connected';
}
