/**
 * The carrier's callbacks on the wire: the JSON bodies it POSTs, signed (./signature.ts), to
 * `/carrier/events` (calls) and `/carrier/messages` (SMS). One declaration for the port, the API's
 * route schemas, the call workflow's signal and the simulator. Pure: no imports, so workflow code
 * may import it.
 *
 * `at` is when it happened, in epoch milliseconds, within an hour before and five minutes after the
 * API's clock (422 otherwise, ./eventTime.ts).
 */

/** Every call event type, in the order a call meets them. */
export const CARRIER_CALL_EVENT_TYPES = [
  'call.incoming',
  'call.ringing',
  'call.answered',
  'call.completed',
  'call.busy',
  'call.no_answer',
  'call.failed',
  'call.utterance',
  'call.playback',
  'call.transfer',
  'call.machine_detection',
  'call.greeting_ended',
] as const;
export type CarrierCallEventType = (typeof CARRIER_CALL_EVENT_TYPES)[number];

/** An answered or outbound call ends with exactly one of these. */
export const CALL_END_EVENT_TYPES = [
  'call.completed',
  'call.busy',
  'call.no_answer',
  'call.failed',
] as const satisfies readonly CarrierCallEventType[];

/** Who hung up a completed call: the remote party, or Switchboard through `hangUp`. */
export const CALL_ENDED_BY = ['caller', 'switchboard'] as const;

/**
 * An inbound call is ringing one of our numbers (`to`). It has no `call_id` yet: Switchboard
 * answers it with `answerCall` (which binds one) or declines it with `rejectCall`. Answering the
 * POST with a non-2xx status (e.g. 404: no line has that number) also declines it.
 */
export interface CarrierIncomingCallEvent {
  type: 'call.incoming';
  carrier_call_id: string;
  /** E.164: the caller. Anything else (a withheld caller id) is recorded as `anonymous`. */
  from: string;
  /** E.164: our number being called. */
  to: string;
  at: number;
}

/** A call's progress without more to say than its type. */
export interface CarrierCallStateEvent {
  type: 'call.ringing' | 'call.busy' | 'call.no_answer' | 'call.failed';
  call_id: string;
  carrier_call_id: string;
  at: number;
}

/** Who answered an outbound call placed with `machineDetection` (machine: voicemail, fax, IVR). */
export const ANSWERED_BY = ['human', 'machine', 'unknown'] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

/**
 * What kind of machine answered, when the carrier's detection says more than `machine` (issue 31): a `fax` cannot
 * take a message, so a campaign's call hangs up on it at once. Absent: a machine of no known kind (a voicemail box,
 * an IVR), or not a machine. Only with `answered_by: machine`.
 */
export const MACHINE_KINDS = ['fax'] as const;
export type MachineKind = (typeof MACHINE_KINDS)[number];

/**
 * The call was answered. A call placed with `machineDetection` is reported answered once the
 * detection ended, with its result in `answered_by`; other calls carry none.
 */
export interface CarrierCallAnsweredEvent {
  type: 'call.answered';
  call_id: string;
  carrier_call_id: string;
  at: number;
  answered_by?: AnsweredBy;
  /** With `answered_by: machine`: the detection heard a fax. */
  machine_kind?: MachineKind;
}

/**
 * Who answered a call placed with `detectGreetingEnd`, once the carrier's detection says: such a call is reported
 * `call.answered` (without `answered_by`) when it is answered, and this follows. At most one per call.
 */
export interface CarrierMachineDetectionEvent {
  type: 'call.machine_detection';
  call_id: string;
  carrier_call_id: string;
  at: number;
  answered_by: AnsweredBy;
  /** With `answered_by: machine`: the detection heard a fax (no greeting end follows). */
  machine_kind?: MachineKind;
}

/**
 * A call placed with `detectGreetingEnd` reached a machine whose greeting has ended (its beep, or the silence after
 * it): what is said from `at` on is what the machine records. Follows `call.machine_detection` (`machine`); a carrier
 * that reports both at once sends this right after it.
 */
export interface CarrierGreetingEndedEvent {
  type: 'call.greeting_ended';
  call_id: string;
  carrier_call_id: string;
  at: number;
}

/**
 * How a `transferCall` went: the destination answered and is connected to the caller
 * (`answered: true`: Switchboard is out of the media path until the call ends), or it never
 * answered (busy, no answer, failed, refused: `answered: false`) and the call is back with
 * Switchboard as before.
 */
export interface CarrierTransferEvent {
  type: 'call.transfer';
  call_id: string;
  carrier_call_id: string;
  at: number;
  answered: boolean;
}

export interface CarrierCallCompletedEvent {
  type: 'call.completed';
  call_id: string;
  carrier_call_id: string;
  at: number;
  ended_by: (typeof CALL_ENDED_BY)[number];
  /** Whether the call was ever answered (false: Switchboard gave up while it rang). */
  answered: boolean;
  /**
   * Where the call's recording can be fetched (a WAV file). Present only when the call was
   * placed or answered with `record: true` and was answered.
   */
  recording_url?: string;
}

/** The caller finished a sentence (speech-to-text). */
export interface CarrierUtteranceEvent {
  type: 'call.utterance';
  call_id: string;
  carrier_call_id: string;
  /** What the caller said. */
  text: string;
  /**
   * The language heard, a tag such as `en` or `pt-BR`; absent when the carrier does not say (Telnyx on a `multi`
   * line: its engine detects the language without reporting it). Never guessed.
   */
  language?: string;
  at: number;
}

/**
 * Progress of a `speak` command: every 250 ms while it plays (`done: false`), then once at the end
 * (`done: true`; with `stopped: true` if `stopSpeaking` or the caller's barge-in cut it short).
 * A hang-up stops speech without this event.
 */
export interface CarrierPlaybackEvent {
  type: 'call.playback';
  call_id: string;
  carrier_call_id: string;
  speak_id: string;
  /** The words played so far (a prefix of the text's words, joined with single spaces); all of them when done and not stopped. */
  played_text: string;
  done: boolean;
  /** Present (true) only on the final event of a playback that was stopped. */
  stopped?: true;
  at: number;
}

/** An event about a call Switchboard knows (it carries the `call_id`). */
export type CarrierCallProgressEvent =
  | CarrierCallStateEvent
  | CarrierCallAnsweredEvent
  | CarrierCallCompletedEvent
  | CarrierUtteranceEvent
  | CarrierPlaybackEvent
  | CarrierTransferEvent
  | CarrierMachineDetectionEvent
  | CarrierGreetingEndedEvent;

/**
 * A carrier event about one call, as POSTed to the `eventsUrl` given to `placeCall` (or, for
 * inbound calls, the one the carrier has for the number). Events for one call arrive in order;
 * an answered or outbound call ends with exactly one of CALL_END_EVENT_TYPES. An inbound call
 * starts with `call.incoming`; if it is never answered it ends without another event.
 */
export type CarrierCallEvent = CarrierIncomingCallEvent | CarrierCallProgressEvent;

/** What the carrier reports about an outbound message, in delivery receipts. */
export const CARRIER_MESSAGE_STATUSES = ['sent', 'delivered', 'failed', 'undelivered'] as const;
export type CarrierMessageStatus = (typeof CARRIER_MESSAGE_STATUSES)[number];

/**
 * Someone texted one of our numbers (`to`). Repeats carry the same `carrier_message_id`. A `from`
 * that is not a phone number is refused (422).
 */
export interface CarrierInboundMessageEvent {
  type: 'sms.received';
  carrier_message_id: string;
  /** E.164: the sender. */
  from: string;
  /** E.164: our number. */
  to: string;
  text: string;
  at: number;
}

/**
 * A delivery receipt of an outbound message: `sent` (left the carrier), then one of `delivered`,
 * `undelivered` (the handset never got it) or `failed` (never left the carrier). Receipts may
 * repeat or arrive out of order.
 */
export interface CarrierMessageStatusEvent {
  type: 'sms.status';
  /** Switchboard's id, as given to `sendSms`. */
  message_id: string;
  carrier_message_id: string;
  status: CarrierMessageStatus;
  /** The carrier's reason for `undelivered` or `failed`. */
  error_code?: string;
  at: number;
}

export type CarrierMessageEvent = CarrierInboundMessageEvent | CarrierMessageStatusEvent;
