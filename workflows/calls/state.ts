import { ActivityFailure, condition, workflowInfo, type CancellationScope } from '@temporalio/workflow';
import type { RelayCallAudioResult } from '../../activities/audio/activities';
import { MAX_CALL_DURATION_MS, type CallStatus, type EndCause } from '../../src/domain/calls/rules';
import type { SequencedEntry } from '../../src/domain/calls/store';
import type { CallInput, SignalledCallEvent } from '../definitions/calls';
import { carrier } from './activities';
import { AgentSentences, isAgentDriven } from './agent';
import { CallEvents, type CarriedEvents } from './events';
import { Transcript } from './transcript';

/** After we hang up, how long we wait for the carrier's own end time before using ours. */
const HANGUP_CONFIRMATION = '10 seconds';

/** A talking call's state when its run continues as new (its history grew long). */
export interface CallContinuation extends CarriedEvents {
  carrierCallId: string;
  /** The carrier's answer time, as bounded by the first run. */
  answeredAt: number;
  /** The workflow's own clock at the answer: minutes and the maximum duration count from it. */
  answeredLocally: number;
  minutesHeld: number;
  /** Caller sentences taken so far (turn numbers continue from it). */
  sentencesTaken: number;
  speakCount: number;
  controlSpeeches: number;
  /** The next transcript entry's `seq`. */
  nextSeq: number;
  /** The transcript's last entries (the model's and the `message` event's context). */
  transcriptTail: SequencedEntry[];
  /** The agent's reply still in play (a caller sentence cuts it off). */
  currentSpeeches: string[];
  /** 2 for the first continuation, and so on. */
  run: number;
  /** The number the call was transferred to (the destination answered); Switchboard is out of its media. */
  transferredTo?: string;
  /** Agent lines: caller sentences kept for the agent's next waits, oldest first (already in the transcript). */
  forAgent?: SignalledCallEvent[];
}

/** How an audio line's relay to the customer's socket ended. */
export type RelayEnd = RelayCallAudioResult | { endedBy: 'relay_failed' };

/** Funding (settle.ts, `keepFunded`): each minute is held before it starts. */
export interface Funding {
  minutesHeld: number;
  /** A hold for the next minute is being asked for (the run does not continue as new meanwhile). */
  extending: boolean;
}

/** What the agent says (turns.ts, control.ts): speak ids are numbered per call. */
export interface Speech {
  /** Speak commands of replies so far (`<call>:speak-<n>`). */
  speakCount: number;
  /** Speak commands of live-control requests so far (`<call>:control-<n>`). */
  controlSpeeches: number;
  /** Speak commands of the agent's current reply, in order (one, or one per streamed chunk). */
  currentSpeeches: string[];
}

/** Audio lines (turns.ts, `startRelay`): the relay to the customer's socket, and how it ended (once it has). */
export interface Relay {
  scope: CancellationScope | undefined;
  ended: RelayEnd | undefined;
  /** The conversation loop has acted on the relay's end. */
  handled: boolean;
}

/** A blind transfer (control.ts, `acceptTransfer`). */
export interface Transfer {
  /** Being attempted: live control and speech wait for its outcome. */
  attempting: boolean;
  /** The number the call was transferred to (the destination answered): it goes on without Switchboard in its media. */
  to: string | undefined;
}

/**
 * What one run of a call knows, shared by its phases (connect, turns, control, settle) and by
 * the coroutines that run beside the conversation, grouped by the part that writes it (funding,
 * speech, relay, transfer). Carried over from the previous run when the call continued as new.
 */
export class CallState {
  readonly reference: string;
  readonly tenant: { workspaceId: string; environment: CallInput['environment'] };
  readonly events: CallEvents;
  readonly transcript: Transcript;
  /** The line's cap, or a conversation call's lower one. */
  readonly maxDurationMs: number;
  status: CallStatus;
  /** Why we end the call, once we decided to (set only while the carrier has not ended it). */
  endRequested: EndCause | undefined;
  /** A carrier command was refused, or the carrier stayed unreachable: the call is over on its side. */
  carrierLost = false;
  /** A campaign's call hung up on a fax (workflows/calls/machine.ts `answerMachine`): its result says so. */
  faxHungUp = false;
  /** The carrier's id of this call, once dialled (or, inbound, from the start). */
  carrierCallId: string | undefined;
  /** When we dialled or answered (our clock): the carrier's answer time cannot be earlier. */
  requestedAt: number;
  /** The carrier's answer time, bounded by our clock; null until answered. */
  answeredAt: number | null;
  /** Our clock at the answer: the minutes held and the maximum duration count from it. */
  answeredLocally: number;
  readonly funding: Funding;
  sentencesTaken: number;
  readonly speech: Speech;
  /** Live-control requests waiting for the caller's next sentence: sentences go to them, not to the conversation. */
  claimedByControl = 0;
  readonly relay: Relay = { scope: undefined, ended: undefined, handled: false };
  readonly transfer: Transfer;
  /** 1 for a call's first run. */
  readonly run: number;
  /** An agent line's call: its agent takes every caller sentence through live control (./agent.ts). */
  readonly agentDriven: boolean;
  /** Agent lines: the sentences no wait has taken yet. */
  readonly forAgent: AgentSentences;
  private hangUpSent = false;

  constructor(
    readonly input: CallInput,
    carried: CallContinuation | undefined,
  ) {
    this.reference = `call:${input.callId}`;
    this.tenant = { workspaceId: input.workspaceId, environment: input.environment };
    this.events = new CallEvents(carried);
    this.status = carried ? 'in_progress' : 'initiated';
    this.maxDurationMs = Math.min(input.maxDurationMs ?? MAX_CALL_DURATION_MS, MAX_CALL_DURATION_MS);
    this.transcript = new Transcript(input.callId, input.contextLimit, carried);
    this.carrierCallId = carried?.carrierCallId;
    this.requestedAt = Date.now();
    this.answeredAt = carried?.answeredAt ?? null;
    this.answeredLocally = carried?.answeredLocally ?? 0;
    this.funding = { minutesHeld: carried?.minutesHeld ?? 1, extending: false };
    this.sentencesTaken = carried?.sentencesTaken ?? 0;
    this.speech = {
      speakCount: carried?.speakCount ?? 0,
      controlSpeeches: carried?.controlSpeeches ?? 0,
      currentSpeeches: carried?.currentSpeeches ?? [],
    };
    this.run = carried?.run ?? 1;
    this.transfer = { attempting: false, to: carried?.transferredTo };
    this.agentDriven = isAgentDriven(input);
    this.forAgent = new AgentSentences(carried?.forAgent);
  }

  requestEnd(cause: EndCause): void {
    if (!this.events.terminal) this.endRequested ??= cause;
  }

  /** The carrier ended the call, we decided to, or the carrier is lost. */
  ended(): boolean {
    return this.events.terminal !== undefined || this.endRequested !== undefined || this.carrierLost;
  }

  /** Answered and not ended: live control is accepted (not while a transfer is attempted, nor after one). */
  live(): boolean {
    return this.status === 'in_progress' && !this.ended() && this.carrierCallId !== undefined && !this.handedOver();
  }

  /** A transfer is under way or done: Switchboard does not speak on the call. */
  handedOver(): boolean {
    return this.transfer.attempting || this.transfer.to !== undefined;
  }

  /** A carrier command on a call that may be gone: false (and the call counts as ended) when refused or unreachable. */
  async onCarrier(command: () => Promise<unknown>): Promise<boolean> {
    try {
      await command();
      return true;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      this.carrierLost = true;
      return false;
    }
  }

  /** Hangs up our side, once, unless the carrier already ended the call. */
  async hangUp(): Promise<void> {
    if (this.hangUpSent || this.events.terminal || this.carrierCallId === undefined) return;
    this.hangUpSent = true;
    await this.onCarrier(() => carrier.hangUpCall(this.carrierCallId!));
  }

  /** Hangs up (unless the carrier already ended the call) and returns the carrier's end time, or ours after 10 s. */
  async hangUpAndWait(): Promise<number> {
    await this.hangUp();
    await condition(() => this.events.terminal !== undefined, HANGUP_CONFIRMATION);
    return this.events.terminal?.at ?? Date.now();
  }

  /** Speaks `text` as the agent (part of the current reply); false when the call has ended or the carrier refused. */
  async say(text: string, at: number): Promise<boolean> {
    if (this.ended() || this.handedOver()) return false;
    this.speech.speakCount += 1;
    const speakId = `${this.input.callId}:speak-${this.speech.speakCount}`;
    if (!(await this.onCarrier(() => carrier.speak(this.carrierCallId!, speakId, text, this.input.voice ?? null)))) return false;
    this.speech.currentSpeeches.push(speakId);
    this.transcript.unwritten.push(this.transcript.add({ role: 'assistant', text, timestamp: at }));
    return true;
  }

  /** The relay ended and the conversation loop has not acted on it yet. */
  relayWaiting(): boolean {
    return this.relay.ended !== undefined && !this.relay.handled;
  }

  /**
   * A sentence for the conversation loop (not claimed by a control request). On an agent line every sentence goes
   * through the loop (into the transcript and `forAgent`), whether a wait is pending or not.
   */
  turnWaiting(): boolean {
    return (this.agentDriven || this.claimedByControl === 0) && this.events.sentences.length > 0;
  }

  /** A caller sentence a control request can take: the next one heard, or on an agent line the oldest kept. */
  sentenceForControl(): boolean {
    return this.agentDriven ? this.forAgent.queue.length > 0 : this.events.sentences.length > 0;
  }

  /**
   * A long history goes on in a fresh run before the next turn (waiting sentences are carried
   * over, so a caller who never stops talking cannot postpone it), except while a control request
   * holds the caller's next sentence. Audio lines keep their relay for the whole call, and their
   * history stays small.
   */
  continueDue(): boolean {
    return this.input.mode !== 'audio' && this.claimedByControl === 0 && workflowInfo().continueAsNewSuggested;
  }

  /** What the next run needs to go on. */
  continuation(): CallContinuation {
    return {
      carrierCallId: this.carrierCallId!,
      answeredAt: this.answeredAt!,
      answeredLocally: this.answeredLocally,
      minutesHeld: this.funding.minutesHeld,
      sentencesTaken: this.sentencesTaken,
      speakCount: this.speech.speakCount,
      controlSpeeches: this.speech.controlSpeeches,
      nextSeq: this.transcript.nextSeq,
      transcriptTail: this.transcript.tail(),
      currentSpeeches: this.speech.currentSpeeches,
      ...this.events.carry(this.speech.currentSpeeches),
      run: this.run + 1,
      ...(this.transfer.to !== undefined ? { transferredTo: this.transfer.to } : {}),
      ...(this.agentDriven ? { forAgent: [...this.forAgent.queue] } : {}),
    };
  }
}
