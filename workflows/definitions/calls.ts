import { defineQuery, defineSignal } from '@temporalio/workflow';
import type {
  CarrierCallAnsweredEvent,
  CarrierCallCompletedEvent,
  CarrierCallProgressEvent,
  CarrierPlaybackEvent,
  CarrierUtteranceEvent,
  MachineKind,
} from '../../src/adapters/carrier/callbacks/wire';
import type { Zone } from '../../src/domain/billing/pricing';
import type { CallStatus, EndCause } from '../../src/domain/calls/rules';
import type { LineMode } from '../../src/domain/lines/rules';
import type { CampaignAttemptInput } from './campaigns';

/**
 * The call workflow's contract with the API and the carrier route: its input, result, signals
 * and query (shared by the current workflow code and the code older histories replay).
 */

/**
 * A carrier event about the call, as the API signals it to the call's workflow: the wire event
 * (src/adapters/carrier/callbacks/wire.ts) without its call ids, its type's fields flattened into
 * optional ones. Field names are in recorded histories: they stay the wire's.
 */
export interface SignalledCallEvent {
  type: CarrierCallProgressEvent['type'];
  /** Epoch milliseconds, from the carrier: billing and turn order are measured on these. */
  at: number;
  ended_by?: CarrierCallCompletedEvent['ended_by'];
  /** call.completed: whether the call was ever answered; call.transfer: whether the destination answered. */
  answered?: CarrierCallCompletedEvent['answered'];
  /** call.answered of a call placed with machine detection, or call.machine_detection: who answered. */
  answered_by?: CarrierCallAnsweredEvent['answered_by'];
  /** With `answered_by: machine`: what kind of machine (a `fax`), when the carrier's detection says. */
  machine_kind?: CarrierCallAnsweredEvent['machine_kind'];
  /** call.completed of a recorded call: where the carrier keeps the recording. */
  recording_url?: CarrierCallCompletedEvent['recording_url'];
  /** call.utterance: what the caller said, and the language heard. */
  text?: CarrierUtteranceEvent['text'];
  language?: CarrierUtteranceEvent['language'];
  /** call.playback: progress of one speak command. */
  speak_id?: CarrierPlaybackEvent['speak_id'];
  played_text?: CarrierPlaybackEvent['played_text'];
  done?: CarrierPlaybackEvent['done'];
  /** Forwarded as the API received it (its schema takes a boolean). */
  stopped?: boolean;
  /**
   * Playback reports the API recorded instead of signalling (speeches the workflow was not
   * waiting on), oldest first: applied before this event. Never on the wire.
   */
  deferred?: SignalledCallEvent[];
}

export const carrierEventSignal = defineSignal<[SignalledCallEvent]>('carrierEvent');
export const hangupSignal = defineSignal('hangup');
export const callStatusQuery = defineQuery<CallStatus>('status');

/** Who and what the call is: fixed for its life, and carried by every activity that acts on it. */
export interface CallFacts {
  callId: string;
  workspaceId: string;
  environment: 'test' | 'live';
  lineId: string;
  keyId: string | null;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  /** The line records its calls (`recording_enabled`). */
  record?: boolean;
  /** Outbound: detect who answers (`machine_detection`); `call.answered` then says. */
  machineDetection?: boolean;
  /**
   * Outbound, with `machineDetection`: placed with the carrier's end-of-greeting detection (a campaign's call that
   * leaves a voicemail message), so who answered comes after the answer (`call.machine_detection`) and a machine's
   * greeting end is reported (`call.greeting_ended`). Absent on calls placed before it existed.
   */
  detectGreetingEnd?: boolean;
  /**
   * The line's `language` (`multi`, or the code the line is pinned to): the carrier's speech recognition
   * and default voice language. Absent on calls started before it was carried (read as `multi`).
   */
  language?: string;
  /** The `metadata` the call was placed with: echoed in every event of the call. Absent when none. */
  metadata?: Record<string, string>;
}

export interface CallInput extends CallFacts {
  mode: LineMode;
  zone: Zone;
  /**
   * The one-minute reserve. For outbound calls the API already held it (reference
   * `call:<id>`); for inbound calls the workflow holds it before answering.
   */
  reservePerMinuteCents: number;
  /** Inbound calls: the carrier's id of the ringing call to answer. */
  carrierCallId?: string;
  /** Spoken first on compliance-enabled lines (the default disclosure of the line's language). */
  disclosure?: { id: string; message: string } | null;
  /** Spoken when the call connects, after any disclosure. */
  beginMessage?: string | null;
  /** Turns of context sent with each `message` (the line's context_limit). */
  contextLimit?: number | null;
  /** Pinned-language lines omit `detected_language`. */
  languagePinned?: boolean;
  /** Hosted calls: the model's instructions (the line's `system_prompt`, or a conversation call's). */
  systemPrompt?: string | null;
  /** The voice slug the service speaks in (hosted replies, begin message, control speech). */
  voice?: string | null;
  /** Audio lines: the customer's WebSocket the call's audio is relayed to. */
  audioHandlerUrl?: string | null;
  /** A cap below the platform's (a conversation call's `max_duration_seconds`). */
  maxDurationMs?: number;
  /**
   * A campaign's call (placed with machine detection): when a machine answers, speak `voicemailMessage` (if any) to
   * its end, then hang up (`end_cause: answering_machine`), instead of going on as the line decides.
   */
  onMachine?: { voicemailMessage: string | null };
  /**
   * A campaign's call started by its dispatcher (workflows/patches.ts `campaignDialsCalls`): the attempt it is. Once the
   * call has ended, its workflow settles the attempt and wakes the campaign (no attempt workflow around it).
   */
  campaignAttempt?: CampaignAttemptInput;
}

export interface CallResult {
  status: CallStatus;
  endCause: EndCause;
  durationSec: number;
  chargeCents: number;
  /** A campaign's call that a fax answered, hung up on at once (`answering_machine`, no message left). */
  machineKind?: MachineKind;
}
