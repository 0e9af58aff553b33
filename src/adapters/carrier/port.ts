import type { CarrierRefusal } from '../../domain/carriers/rules';
import type { NumberCriterion, NumberType } from '../../domain/lines/numberChoice';

/**
 * The carrier as Switchboard sees it. Workflows never talk to a carrier directly: they
 * call activities, and activities call this interface, so a Twilio- or Telnyx-style
 * adapter is a new implementation of it and nothing else changes.
 *
 * Credentials, one per direction: the adapter authenticates to its carrier with
 * CARRIER_API_KEY (the simulator's bearer; a real carrier's account credentials). The carrier's
 * callbacks (`CarrierCallEvent`, `CarrierMessageEvent`) reach the API's `/carrier/events` and
 * `/carrier/messages` signed with CARRIER_WEBHOOK_SECRET: headers `X-Carrier-Timestamp` (Unix
 * seconds) and `X-Carrier-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`,
 * refused when stale (5 minutes) or replayed (src/adapters/carrier/callbacks/signature.ts, docs/simulator.md
 * "Signed callbacks"). A carrier with its own webhook scheme (Twilio's X-Twilio-Signature,
 * Telnyx's Ed25519) gets a translator that verifies that scheme and re-signs with this one.
 */
/**
 * What `provisionNumber` is asked for: a number bought to criteria, or (`importNumber`) a number the
 * carrier account already owns, routed to Switchboard instead of bought.
 */
export interface ProvisionNumberRequest {
  /** A retried request with the same key returns what the first one acquired (Switchboard sends `line:<line id>`). */
  idempotencyKey: string;
  /** ISO 3166-1 alpha-2 (`US`). */
  country: string;
  /** `local` when absent. A type the carrier does not sell in `country` is a `NumberUnavailableError` (`number_type`). */
  numberType?: NumberType;
  /** The NANP area code (NPA), or the national destination code elsewhere; any when absent. */
  areaCode?: string;
  /**
   * E.164 of a number the account owns: its voice and SMS are pointed at Switchboard as a bought
   * number's are, and nothing is bought. A number the account does not own is a `NumberUnavailableError` (`phone_number`).
   */
  importNumber?: string;
}

export interface ProvisionedNumber {
  /** E.164. */
  phoneNumber: string;
  /** The carrier's own handle for the number (needed to release it). */
  carrierRef: string;
}

/** An outbound call as every carrier adapter takes it (`CarrierAdapter.placeCall`). */
export interface PlaceCallRequest {
  callId: string;
  from: string;
  to: string;
  eventsUrl: string;
  record?: boolean;
  /**
   * Detect who answers (human or machine) before reporting the answer: `call.answered` then
   * carries `answered_by` (the carrier's answering-machine detection).
   */
  machineDetection?: boolean;
  /**
   * With `machineDetection`, for a message left on a machine: use the carrier's end-of-greeting detection. The call
   * is reported `call.answered` when answered (no `answered_by`), then `call.machine_detection` with who answered,
   * and, for a machine, `call.greeting_ended` once its greeting ended (the beep): a message spoken from then on is
   * recorded whole.
   */
  detectGreetingEnd?: boolean;
  /**
   * The line's `language`: `multi` (detect) or the code it is pinned to (`en`, `es`, … as the spec lists).
   * The adapter sets its carrier's speech recognition (and default voice language) from it. Absent: `multi`.
   */
  language?: string;
}

/** A blind transfer of an answered call to another number (`CarrierAdapter.transferCall`). */
export interface TransferCallRequest {
  carrierCallId: string;
  /** Switchboard's call id (the carrier's events about the transfer name it). */
  callId: string;
  /** Unique per attempt: a retried request with the same id transfers once. */
  transferId: string;
  /** E.164: the destination. */
  to: string;
  /** E.164: the caller id the destination sees (the line's number). */
  from: string;
}

/** An outbound SMS as every carrier adapter takes it (`CarrierAdapter.sendSms`). */
export interface SendSmsRequest {
  messageId: string;
  from: string;
  to: string;
  text: string;
  statusUrl: string;
}

export interface CarrierAdapter {
  /**
   * Acquires a number. Must be idempotent on `idempotencyKey`: a retried call returns
   * the number the first call acquired instead of buying a second one.
   */
  provisionNumber(request: ProvisionNumberRequest): Promise<ProvisionedNumber>;
  /**
   * Gives a number back. Releasing a number that is already released succeeds. With `keepInAccount`
   * (an imported number) it is only detached: the account keeps it, no longer routed to Switchboard.
   */
  releaseNumber(request: ReleaseNumberRequest): Promise<void>;
  /**
   * Starts an outbound call from `from` to `to` (both E.164). Must be idempotent on
   * `callId`: a retried request returns the carrier call the first one started instead of
   * dialling again. What happens to the call afterwards arrives as carrier events
   * (`CarrierCallEvent`) POSTed to `eventsUrl`. With `record: true` the carrier records the call
   * once answered; its `call.completed` then carries `recording_url`.
   */
  placeCall(request: PlaceCallRequest): Promise<{ carrierCallId: string }>;
  /** Ends a call, ringing or answered. Hanging up a call that has already ended succeeds. */
  hangUp(request: { carrierCallId: string }): Promise<void>;
  /**
   * Answers an inbound call (announced by a `call.incoming` event) and binds Switchboard's
   * `callId` to it; `call.answered` follows at the `eventsUrl` the call was announced to.
   * Idempotent: answering again with the same `callId` succeeds; a different `callId`, or a
   * call that ended unanswered, is a `CarrierRejectedError`. With `record: true` the call is
   * recorded; its `call.completed` then carries `recording_url`.
   */
  answerCall(request: { carrierCallId: string; callId: string; record?: boolean; language?: string }): Promise<void>;
  /** Declines a ringing inbound call; it ends with no further events. Rejecting an ended call succeeds. */
  rejectCall(request: { carrierCallId: string }): Promise<void>;
  /**
   * Speaks `text` to the caller on an answered call (text-to-speech), in `voice` (a voice slug of
   * the catalog, src/domain/voices/catalog.ts, which the adapter maps to its own voices; the carrier's
   * default when absent). Commands queue per call in
   * order: this one starts when the previous one finishes. Progress arrives as `call.playback`
   * events carrying `speakId`. Idempotent on `speakId`: a retry with the same text speaks nothing
   * twice. A call that is not answered (ringing, ended) is a `CarrierRejectedError`.
   */
  speak(request: { carrierCallId: string; speakId: string; text: string; voice?: string }): Promise<void>;
  /**
   * Plays DTMF tones on an answered call (`0-9`, `*`, `#`; `w` is a half-second pause) and
   * resolves once they have been played. A call that is not answered is a `CarrierRejectedError`. `pressId`, when
   * given, is the same for every attempt of one press: a carrier that takes an idempotency key plays the tones once.
   */
  sendDigits(request: { carrierCallId: string; digits: string; pressId?: string }): Promise<void>;
  /**
   * Stops the playing speak command (its `call.playback` reports `stopped: true`, with what was
   * played) and drops the queued ones. Succeeds when nothing is playing, and on an ended call.
   */
  stopSpeaking(request: { carrierCallId: string }): Promise<void>;
  /**
   * Connects an answered call to `to` (a blind transfer): the carrier dials the destination and,
   * once it answers, bridges the two; Switchboard is then out of the media path (no speech, no
   * utterances) until the call ends, which is reported as usual (`call.completed`). How the
   * attempt went arrives as one `call.transfer` event (`answered`); a destination that never
   * answers leaves the call with Switchboard as before. Resolves once the carrier accepted the
   * command; idempotent on `transferId`. A call that is not answered is a `CarrierRejectedError`.
   */
  transferCall(request: TransferCallRequest): Promise<void>;
  /**
   * Sends one SMS from `from` (one of our numbers) to `to`, both E.164. Must be idempotent on
   * `messageId`: a retried request returns the message the first one accepted instead of sending
   * it twice. Delivery receipts (`CarrierMessageStatusEvent`) follow at `statusUrl`. A destination
   * or text the carrier will never take is a `CarrierRejectedError`.
   */
  sendSms(request: SendSmsRequest): Promise<{ carrierMessageId: string }>;
  /**
   * Opens the raw audio of an answered call, both ways (audio-mode lines). Resolves once the
   * carrier accepted the stream. A call that is not answered (ringing, ended, unknown) is a
   * `CarrierRejectedError`; network failures are plain errors (transient). See `CarrierMediaStream`.
   */
  openMediaStream(request: { carrierCallId: string }): Promise<CarrierMediaStream>;
  /**
   * Opens a call's recording, `recordingUrl` being the `recording_url` its `call.completed` carried,
   * with the adapter's own credentials. Only a URL on the carrier's own configured host is fetched
   * (anything else is a `CarrierRejectedError` before any request), with a timeout and a size cap
   * (`MAX_RECORDING_BYTES`); a recording the carrier does not have is a `CarrierRejectedError` too.
   */
  openRecording(request: { callId: string; recordingUrl: string }): Promise<CarrierRecording>;
  /**
   * Deletes the carrier's copy of a call's recording (`recordingUrl` as `openRecording` takes it), with the adapter's
   * own credentials; afterwards `openRecording` of it is refused. Callers delete only once their own copy is verified:
   * the carrier keeps nothing after this. Idempotent: a recording the carrier no longer has (deleted before, or
   * expired by its retention) is success. A URL off the carrier's own configured host, or not one of its recordings,
   * is a `CarrierRejectedError` before any request; credentials the carrier refuses are a `CarrierAuthError`; any
   * other refusal a `CarrierRejectedError`; network failures, timeouts, 408, 429 and 5xx plain errors (retry them).
   */
  deleteRecording(request: { callId: string; recordingUrl: string }): Promise<void>;
}

/** A recording's audio as the carrier serves it: read `body` once (it errors past the size cap). */
export interface CarrierRecording {
  /** `audio/wav`, `audio/mpeg`… as the carrier answered. */
  contentType: string;
  /** When the carrier announced it. */
  contentLength?: number;
  body: import('node:stream').Readable;
}

/** The largest recording an adapter reads: over an hour of 16-bit 8 kHz WAV. */
export const MAX_RECORDING_BYTES = 100 * 1024 * 1024;

/** One frame of the caller's audio, as the carrier delivered it. */
export interface CarrierMediaFrame {
  type: 'media';
  /** The carrier's sequence number for the frame: 1, 2, 3… in the order sent (a gap means the carrier or the adapter dropped frames). */
  sequence: number;
  /** Media time of the frame's first sample, in ms since the carrier's stream started (the carrier's clock, not the arrival time). */
  timestamp: number;
  /** Raw audio in the stream's `format` (8 kHz mono µ-law: 160 bytes per 20 ms). */
  payload: Buffer;
}

/** A mark sent with `mark()` has been reached: the audio sent before it has been played to the caller. */
export interface CarrierMediaMark {
  type: 'mark';
  name: string;
}

export type CarrierMediaEvent = CarrierMediaFrame | CarrierMediaMark;

/**
 * Why a media stream ended: `call_ended` (the carrier ended it because the call is over),
 * `closed` (we called `close()`), `error` (the transport failed while the call may still be up).
 */
export interface CarrierMediaEnd {
  reason: 'call_ended' | 'closed' | 'error';
  /** What went wrong, for `error`. */
  detail?: string;
}

/**
 * The live audio of one answered call, transport-neutral: a Twilio Media Streams or Telnyx media
 * WebSocket, an RTP leg or the simulator's socket can all sit behind it.
 *
 * Reading: async-iterate the stream (one consumer) for caller frames and reached marks, in order;
 * the iteration ends when the stream ends. Caller audio is real time and cannot be paused: while
 * the consumer is not pulling, the adapter keeps at most about one second of frames
 * (`MAX_QUEUED_CALLER_FRAMES`) and drops the oldest beyond that, counted in `stats().dropped`.
 *
 * Writing: `send`, `mark` and `clear` are delivered in call order; each resolves when the
 * transport accepted the data (written to the socket), so awaiting them, or bounding the number not yet
 * resolved, is the backpressure. They reject once the stream has ended.
 */
export interface CarrierMediaStream extends AsyncIterable<CarrierMediaEvent> {
  readonly format: { encoding: 'audio/x-mulaw'; sampleRate: 8000; channels: 1 };
  /** Queues raw audio (in `format`) to be played to the caller after what was sent before. */
  send(payload: Buffer): Promise<void>;
  /** Asks to be told (a `mark` event from the iteration) when everything sent so far has been played. */
  mark(name: string): Promise<void>;
  /** Drops audio sent but not yet played; pending marks are reported at once. */
  clear(): Promise<void>;
  /** Ends the stream (not the call). Idempotent; `ended` resolves with `closed` unless it had already ended. */
  close(): Promise<void>;
  /** Resolves (never rejects) when the stream has ended, with why. */
  readonly ended: Promise<CarrierMediaEnd>;
  /** Counters since the stream opened. */
  stats(): { framesReceived: number; framesSent: number; dropped: number };
}

/** How many caller frames an adapter holds for a consumer that is not pulling: 1 s of 20 ms frames. */
export const MAX_QUEUED_CALLER_FRAMES = 50;

/**
 * The callbacks (call and message events, their type lists) are the carrier's wire contract, shared
 * with the API's routes, the call workflow and the simulator: ./callbacks/wire.ts.
 */
export type {
  AnsweredBy,
  MachineKind,
  CarrierCallAnsweredEvent,
  CarrierCallCompletedEvent,
  CarrierCallEvent,
  CarrierCallProgressEvent,
  CarrierCallStateEvent,
  CarrierIncomingCallEvent,
  CarrierInboundMessageEvent,
  CarrierMessageEvent,
  CarrierMessageStatusEvent,
  CarrierPlaybackEvent,
  CarrierTransferEvent,
  CarrierUtteranceEvent,
} from './callbacks/wire';

export interface ReleaseNumberRequest {
  phoneNumber: string;
  /** The number was imported: detach it (clear what Switchboard set on it), never release it from the account. */
  keepInAccount?: boolean;
}

/**
 * Which provider refused, its own code for the refusal (Twilio's `21631`, Telnyx's `10015`…) when it gave
 * one, and whether it said the call is not in progress (src/domain/carriers/rules.ts): what the customer sees.
 */
export type { CarrierRefusal } from '../../domain/carriers/rules';

/** A refusal the carrier will repeat however often we ask (bad request, no inventory). */
export class CarrierRejectedError extends Error {
  constructor(
    message: string,
    readonly refusal?: CarrierRefusal,
  ) {
    super(message);
    this.name = 'CarrierRejectedError';
  }
}

/**
 * The carrier refused the adapter's credentials (401), or they may not do this (403): asking again changes nothing until
 * the operator fixes the carrier settings. A `CarrierRejectedError`, so every caller that stops on a refusal stops on it;
 * one that would rather wait for the operator (a copy that deletes the carrier's recording) can tell it apart.
 */
export class CarrierAuthError extends CarrierRejectedError {
  constructor(message: string, refusal?: CarrierRefusal) {
    super(message, refusal);
    this.name = 'CarrierAuthError';
  }
}

/**
 * The carrier has no number as asked: nothing in that area code, country or type, a type it does
 * not sell there, or (`phone_number`) an import of a number the account does not own. `criterion`
 * names the request field; the customer's message is Switchboard's own, never the carrier's text.
 */
export class NumberUnavailableError extends CarrierRejectedError {
  constructor(
    readonly criterion: NumberCriterion,
    message: string,
    refusal?: CarrierRefusal,
  ) {
    super(message, refusal);
    this.name = 'NumberUnavailableError';
  }
}
