import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { wavRecording } from '../../simulator/carrier/recording';
import type { NumberOrderWithPhoneNumbers } from 'telnyx/resources/number-orders';
import type { MessageSendParams, MessageSendResponse, OutboundMessagePayload } from 'telnyx/resources/messages/messages';
import type { RecordingResponse, RecordingResponseData } from 'telnyx/resources/recordings/recordings';
import type { CallHangup } from 'telnyx/resources/webhooks';
import type { CallDialParams, CallDialResponse } from 'telnyx/resources/calls/calls';
import type {
  ActionAnswerParams,
  ActionSendDtmfParams,
  ActionSpeakParams,
  ActionTransferParams,
  CallControlCommandResult,
} from 'telnyx/resources/calls/actions';
import type { CallControlApplication } from 'telnyx/resources/call-control-applications';
import type { MessagingMessagingProfile } from 'telnyx/resources/messaging-profiles/messaging-profiles';
import {
  telnyxWebhookSender,
  type Exactly,
  type TelnyxEventType,
  type TelnyxPayloadOf,
  type TelnyxWebhookSender,
  type WebhookTarget,
} from './telnyxStubWebhooks';
import type { AvailablePhoneNumberListResponse } from 'telnyx/resources/available-phone-numbers';
import type { PhoneNumberCampaign } from 'telnyx/resources/messaging-10dlc/phone-number-campaigns';
import { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
import type { TelnyxSettings } from '../../src/adapters/carrier/telnyx/client';
import type { Config } from '../../src/platform/config';
import { createDb, type Db } from '../../src/platform/db/knex';

/**
 * A local contract stub of Telnyx's v2 API, written from Telnyx's public API reference (paths,
 * JSON bodies, `{data: ...}` envelopes, Bearer auth) — not from the project's simulator. It
 * answers the commands the Telnyx adapter sends and posts the webhooks Telnyx documents for them,
 * in their order, signed as Telnyx signs: `telnyx-signature-ed25519` = base64 Ed25519 signature of
 * `"<telnyx-timestamp>|<body>"` with the stub's private key (its public key is TELNYX_PUBLIC_KEY).
 * Webhooks are delivered as Telnyx documents (./telnyxStubWebhooks.ts): a voice webhook once, then once to the
 * failover URL (`setConnectionFailoverUrl`) if the primary did not take it, never again to the primary; a
 * messaging webhook up to 3 times per URL; duplicates on demand (`webhooks.duplicate`). Their payloads, and the
 * REST answers below, are typed with the `telnyx` package's own types, so a field Telnyx does not send fails to
 * type-check; every signed webhook is also verified by the package's `webhooks.unwrap` (`webhooks.oracleFailures`).
 * Recordings: `GET|DELETE /v2/recordings/{id}` and `GET /v2/recordings?filter[call_leg_id|call_session_id|call_control_id]=`;
 * `call.recording.saved` carries what Telnyx documents (no `call_control_id`, no recording id).
 * Messages: `POST /v2/messages` (with `webhook_failover_url`), receipts `message.sent` then `message.finalized`
 * with the status `scriptMessages` says (default `delivered`), before the send is answered if it says so.
 * `GET /v2/call_control_applications/{id}`: the application's webhook and failover URLs.
 *
 * Numbers: `GET /v2/available_phone_numbers`, `POST /v2/number_orders` (answered `pending`, as the
 * documented example; `GET /v2/number_orders/{id}` then reads `success`, or what `scriptOrders` says),
 * `GET /v2/number_orders?filter[customer_reference]=`, `POST|GET /v2/10dlc/phone_number_campaigns`
 * (a number already assigned is refused, 400), `GET|DELETE /v2/phone_numbers`.
 * Calls: `POST /v2/calls` (→ `call.initiated`), `answer` (→ `call.answered`), `speak`
 * (→ `call.speak.started`, then `call.speak.ended` once `finishSpeech` or after `speakMs`),
 * `playback_stop` (ends the playing speech), `send_dtmf`, `hangup` / `reject` (→ `call.hangup`),
 * `transfer` (a new leg B: `call.initiated`, then `call.answered` and `call.bridged` on both legs, or
 * `call.hangup` of B with the failure's cause; the bridge's end hangs the other leg up). Dial with
 * `answering_machine_detection` sends `call.machine.detection.ended` (`result`) after `call.answered`; with `greeting_end`
 * (or `detect_words`) a machine's `call.machine.greeting.ended` follows when the test says its greeting ended
 * (`greetingEnds`; `CallDialParams.answering_machine_detection` in telnyx 7.24.0: "when the answering machine greeting
 * ends with a beep or silence").
 * Tests drive the far end: `answer`, `say` (→ `call.transcription`), `hangUpRemote`, `answerTransfer`, `failTransfer`,
 * `incomingCall` (→ `call.initiated`, direction incoming), `inboundSms` (→ `message.received`).
 *
 * Call commands as telnyx 7.24.0 documents them (node_modules/telnyx/resources/calls/*.d.ts):
 * - `client_state` of any command is state added "to every subsequent webhook" of the call (`ActionSpeakParams`,
 *   and `client_state_update`: "Updates client state for every subsequent webhook"): the call's webhooks carry the
 *   latest command's, including `call.speak.*` of an earlier speak.
 * - `speak.payload`: "There is a 3,000 character limit": a longer one is refused, 422 with Telnyx's error envelope
 *   (`{errors: [{code, title, detail, source: {pointer}}]}`).
 * - `playback_stop`: "Expected Webhooks: call.playback.ended or call.speak.ended"
 *   (developers.telnyx.com/api-reference/call-commands/stop-audio-playback): the playing speak ends with
 *   `call.speak.ended`, `status: 'completed'` (its documented values are completed, call_hangup, cancelled_amd; none
 *   says "stopped"). `stop: all` drops the queue; a dropped speak never started and sends nothing (an assumption).
 * - `streaming_start`: the stream's `start.media_format.encoding` is `stream_codec` unless the stub is told it cannot
 *   transcode (`transcodes: false`), when it is the call's codec (`callCodec`): "When set to 'default' or when
 *   transcoding is not possible, the codec from the call will be used".
 * - A repeated `command_id` is ignored ("Telnyx will ignore any command with the same `command_id`"). What Telnyx
 *   ANSWERS to an ignored dial is not documented: this stub refuses it (422), the answer that would fail a call
 *   Telnyx is dialling if the adapter relied on it (an assumption chosen so the adapter must not; see
 *   src/adapters/carrier/telnyx/dial.ts). `GET /connections/{id}/active_calls` lists the calls not ended, with
 *   their `client_state` (`ConnectionListActiveCallsResponse`).
 * - `loseNextAnswer(path)`: the next request to `path` is carried out but its answer is lost (the socket is cut).
 * - `refuseNext(path, status, error)`: the next request to `path` is refused with Telnyx's error envelope
 *   (`{errors: [{code, title, detail}]}`, developers.telnyx.com/development/api-fundamentals/api-errors) and not carried out.
 */

export interface StubCall {
  id: string;
  direction: 'outgoing' | 'incoming';
  from: string;
  to: string;
  webhookUrl: string;
  clientState?: string;
  state: 'ringing' | 'answered' | 'ended';
  /** Speak commands in order, with how each ended. */
  speeches: Array<{ text: string; voice: string; clientState?: string; state: 'queued' | 'speaking' | 'done' | 'stopped' }>;
  commands: Array<{ action: string; body: Record<string, unknown> }>;
  /** DTMF tones played (`send_dtmf` accepted; a repeated `command_id` plays nothing). */
  tones?: string[];
  /** A machine answered under `greeting_end` detection and its greeting has not ended yet. */
  greetingPlaying?: boolean;
  /** A transfer's new leg: the call (leg A) it was transferred from. */
  transferOf?: string;
  /** Bridged to this leg (a transfer that was answered). */
  bridgedTo?: string;
  /** The media socket Telnyx opened to our `stream_url` (streaming_start), and what it got from us. */
  media?: { socket: WebSocket; received: Buffer[]; marks: string[]; cleared: number };
}

export interface StubMessage {
  id: string;
  from: string;
  to: string;
  text: string;
  webhookUrl: string;
  /** `webhook_failover_url` of the send. */
  failoverUrl?: string;
  messagingProfileId: string;
}

type MessageStatus = NonNullable<OutboundMessagePayload.To['status']>;
type HangupCause = NonNullable<CallHangup.Payload['hangup_cause']>;

/** How a sent message goes: its final status (`message.finalized`), and whether its receipts come before the send is answered. */
export interface StubMessageOutcome {
  status?: MessageStatus;
  errors?: OutboundMessagePayload['errors'];
  receiptsFirst?: boolean;
}

export interface TelnyxStub {
  url: string;
  /** The `baseURL` for the SDK: `<url>/v2`. */
  baseUrl: string;
  apiKey: string;
  /** Base64 raw Ed25519 public key, as Telnyx's portal shows it. */
  publicKey: string;
  calls: Map<string, StubCall>;
  messages: StubMessage[];
  /** Saved recordings by id (a recorded call's, after its hang-up; or `addRecording`'s). */
  recordings: Map<string, { callControlId: string; callLegId: string; callSessionId: string; durationMs: number; savedAt: string }>;
  /** A saved recording of `callControlId`; answers its id (`GET /v2/recordings/{id}`). */
  addRecording(callControlId: string, durationMs?: number): string;
  numbers: Array<{ id: string; phone_number: string; connection_id: string; messaging_profile_id: string; customer_reference: string }>;
  /** Number orders as Telnyx holds them (`POST /v2/number_orders`). */
  orders: NumberOrderWithPhoneNumbers[];
  /**
   * How the next number orders end, one entry per order: each is answered `pending` and reads
   * `pending` for `pendingReads` retrievals (default 1), then its outcome. `requirements` stays pending
   * with `requirements_met: false`, as an order waiting for documents does. Unscripted orders succeed
   * on their first retrieval.
   */
  scriptOrders(...outcomes: Array<'success' | 'failure' | 'requirements' | { outcome: 'success' | 'failure'; pendingReads: number }>): void;
  /** The next number searches find these (then numbers of the stub's own drawing). */
  offerNumbers(...phoneNumbers: string[]): void;
  /** The account already owns `phoneNumber` (on no connection or messaging profile): a line may import it. */
  own(phoneNumber: string): TelnyxStub['numbers'][number];
  /** 10DLC campaign assignments by phone number (`POST /v2/10dlc/phone_number_campaigns`). */
  campaigns: Map<string, PhoneNumberCampaign>;
  /** Every REST request received; `query` is the URL's search part (`?filter[…]=…`). */
  requests: Array<{ method: string; path: string; query: string; body: Record<string, unknown> }>;
  /** Where Telnyx posts events of calls and messages it starts (the connection's and profile's webhook URL). */
  setConnectionWebhookUrl(url: string): void;
  /** The Call Control application's (and messaging profile's) failover URL: where a webhook the primary did not take goes. */
  setConnectionFailoverUrl(url: string | undefined): void;
  /** Webhook delivery as Telnyx does it (./telnyxStubWebhooks.ts): every attempt, duplicates on demand, the SDK oracle. */
  webhooks: Pick<TelnyxWebhookSender, 'deliveries' | 'duplicate' | 'oracleFailures'>;
  /** How the next sent messages go, one entry per message (then: delivered, receipts after the answer). */
  scriptMessages(...outcomes: StubMessageOutcome[]): void;
  /** The callee answers; with machine detection asked, detection then ends with `result` (default `human`). */
  answer(callId: string, result?: 'human' | 'machine' | 'not_sure'): Promise<void>;
  /** The machine that answered a call dialled with `greeting_end` ends its greeting (`result`: default `beep_detected`). */
  greetingEnds(callId: string, result?: 'beep_detected' | 'ended' | 'not_sure'): Promise<void>;
  /** The new leg of a transfer from `callId`, once Telnyx has dialled it. */
  transferLeg(callId: string): StubCall | undefined;
  /** A transfer's destination answers: the legs are bridged. */
  answerTransfer(legId: string): Promise<void>;
  /** A transfer's destination never answers: its leg hangs up with `cause` (`user_busy`, `timeout`, …); leg A stays up. */
  failTransfer(legId: string, cause: HangupCause): Promise<void>;
  /** The caller says `text` (`call.transcription`, final), after `interim` results (`is_final: false`) if given. */
  say(callId: string, text: string, interim?: string[]): Promise<void>;
  finishSpeech(callId: string): Promise<void>;
  hangUpRemote(callId: string): Promise<void>;
  incomingCall(from: string, to: string): Promise<string>;
  /** The caller speaks: `frames` µ-law frames on the media socket's inbound track. */
  talk(callId: string, frames: Buffer[]): Promise<void>;
  inboundSms(from: string, to: string, text: string): Promise<void>;
  /** The next request whose path ends with `suffix` is carried out, but its answer never arrives (connection cut). */
  loseNextAnswer(suffix: string): void;
  /** The next request whose path ends with `suffix` is refused (`status`, Telnyx's error envelope with `error`), and nothing is done. */
  refuseNext(suffix: string, status: number, error: { code: string; title: string; detail: string }): void;
  /** Signs a body as Telnyx does (for forged and stale tests: sign with another key or an old timestamp). */
  sign(body: string, timestamp?: number): Record<string, string>;
  /** Stops the stub; refuses (fails the suite) if the package's own verification refused a webhook it signed. */
  close(): Promise<void>;
}

/** A call command's answer (`ActionAnswerResponse`, `ActionSpeakResponse`, …: `{data: CallControlCommandResult}`). */
const COMMAND_OK = { result: 'ok' } satisfies CallControlCommandResult;

/** US area codes the stub's numbers are drawn from (each stub draws at random: suites share one database). */
const STUB_AREA_CODES =
  '205 206 212 213 214 215 216 217 218 219 224 225 303 305 312 313 314 315 316 317 404 405 406 407 408 409 410 412 415 501 502 503 504 505 512 513 515 516 602 603 605 606 607 608 609 610 612 614 615 617 702 703 704 706 707 708 712 713 714 715 716 717 718 719 720 801 802 803 804 805 806 808 810 812 813 814 901 903 904 907 908 909 910 912 913 914 915 916 917 918 919 920'.split(
    ' ',
  );

/**
 * What the stub's Telnyx sells (`GET /v2/available_phone_numbers`, by `filter[country_code]`,
 * `filter[phone_number_type]` and `filter[national_destination_code]`): the digits a number starts with,
 * then 1000…1999. US local numbers in STUB_AREA_CODES or the area code asked, but 564 (none left); US
 * toll-free; GB local (20), mobile (7400) and toll-free (808). Anything else, US mobile included, finds
 * nothing (an empty `data`, as Telnyx answers a search that matches nothing).
 */
const FOR_SALE: Readonly<Record<string, Readonly<Record<string, (ndc: string | null) => string | undefined>>>> = {
  US: {
    local: (ndc) => (ndc === '564' ? undefined : `+1${ndc ?? STUB_AREA_CODES[crypto.randomInt(STUB_AREA_CODES.length)]}555`),
    toll_free: (ndc) => `+1${ndc ?? '800'}555`,
  },
  GB: {
    local: (ndc) => (ndc === null || ndc === '20' ? '+44207946' : undefined),
    mobile: (ndc) => (ndc === null || ndc === '7400' ? '+44740090' : undefined),
    toll_free: (ndc) => (ndc === null || ndc === '808' ? '+44808157' : undefined),
  },
};

/**
 * The numbers every Telnyx stub on this database has offered, in a file per database: the test files a jest worker
 * runs share its database, and a number one file's line still holds, offered again by another file's stub, would
 * fail that line's provisioning (`lines_phone_number_in_use`, a non-retryable failure) as a number handed out twice.
 */
function offeredOnThisDatabase(): { has(phoneNumber: string): boolean; add(phoneNumber: string): void } {
  const database = process.env.DATABASE_URL;
  if (!database) return { has: () => false, add: () => undefined };
  const file = path.join(
    os.tmpdir(),
    `switchboard-telnyx-stub-numbers-${crypto.createHash('sha256').update(database).digest('hex').slice(0, 16)}`,
  );
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : []);
  return { has: (phoneNumber) => read().includes(phoneNumber), add: (phoneNumber) => fs.appendFileSync(file, `${phoneNumber}\n`) };
}

function rawPublicKey(key: crypto.KeyObject): string {
  // SPKI DER of an Ed25519 key ends with the 32 raw bytes.
  return key.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

export async function startTelnyxStub(options: { speakMs?: number; callCodec?: string; transcodes?: boolean } = {}): Promise<TelnyxStub> {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const apiKey = `KEY${crypto.randomBytes(24).toString('hex')}`;
  const calls = new Map<string, StubCall>();
  const messages: StubMessage[] = [];
  const numbers: TelnyxStub['numbers'] = [];
  const orders: NumberOrderWithPhoneNumbers[] = [];
  /** Per order id: what it becomes and after how many reads. */
  const orderFates = new Map<string, { outcome: 'success' | 'failure' | 'requirements'; pendingReads: number }>();
  const scripted: Array<{ outcome: 'success' | 'failure' | 'requirements'; pendingReads: number }> = [];
  const campaigns: TelnyxStub['campaigns'] = new Map();
  /** Numbers offered: a random US area code per stub, 555-1000…1999 (the simulator's are 555-2000…9999), so suites sharing a database never offer the same. */
  const offered = new Set<string>();
  const offeredElsewhere = offeredOnThisDatabase();
  const toOffer: string[] = [];
  /** A number for sale as searched (`offerNumbers`' first), or none: see FOR_SALE. */
  const offerNumber = (search: { country: string; type: string; ndc: string | null }): string | undefined => {
    const next = toOffer.shift();
    if (next) return next;
    const prefix = FOR_SALE[search.country]?.[search.type]?.(search.ndc);
    if (!prefix) return undefined;
    for (;;) {
      const candidate = `${prefix}${1000 + crypto.randomInt(1000)}`;
      if (offered.has(candidate) || numbers.some((n) => n.phone_number === candidate) || offeredElsewhere.has(candidate)) continue;
      offered.add(candidate);
      offeredElsewhere.add(candidate);
      return candidate;
    }
  };
  const requests: TelnyxStub['requests'] = [];
  const commandIds = new Map<string, unknown>();
  /** The Call Control application's (and messaging profile's) `webhook_event_url` and `webhook_event_failover_url`. */
  let connectionWebhookUrl = '';
  let connectionFailoverUrl: string | undefined;
  const webhooks = telnyxWebhookSender({ privateKey, publicKey: rawPublicKey(publicKey), apiKey });
  const messageOutcomes: StubMessageOutcome[] = [];
  /** A call's webhooks go to its URL (the command's `webhook_url`, else the application's), failing over to the application's. */
  const send = <E extends TelnyxEventType, P extends TelnyxPayloadOf<E>>(
    to: StubCall | WebhookTarget,
    eventType: E,
    payload: P & Exactly<TelnyxPayloadOf<E>, P>,
  ) => webhooks.send<E, P>('id' in to ? { url: to.webhookUrl, failoverUrl: connectionFailoverUrl } : to, eventType, payload);
  const losing = new Set<string>();
  const refusing: Array<{ suffix: string; status: number; error: { code: string; title: string; detail: string } }> = [];

  /** The ids of a call leg its events carry; a transfer's new leg is in the session of the call it was transferred from. */
  const idsOf = (call: StubCall) => ({
    call_leg_id: `leg-${call.id}`,
    call_session_id: `session-${call.transferOf ?? call.id}`,
    connection_id: 'stub-connection',
    client_state: call.clientState,
  });
  const legOf = (call: StubCall) => ({ call_control_id: call.id, ...idsOf(call) });
  const partiesOf = (call: StubCall) => ({ from: call.from, to: call.to });

  function startNextSpeech(call: StubCall): void {
    const next = call.speeches.find((s) => s.state === 'queued');
    if (!next || call.speeches.some((s) => s.state === 'speaking')) return;
    next.state = 'speaking';
    void send(call, 'call.speak.started', legOf(call));
    if (options.speakMs !== undefined) {
      const speakMs = options.speakMs;
      setTimeout(() => {
        if (next.state === 'speaking') void endSpeech(call, next, 'completed');
      }, speakMs);
    }
  }
  async function endSpeech(call: StubCall, speech: StubCall['speeches'][number], status: 'completed' | 'call_hangup'): Promise<void> {
    speech.state = status === 'completed' ? 'done' : 'stopped';
    const ended = send(call, 'call.speak.ended', { ...legOf(call), status });
    startNextSpeech(call);
    await ended;
  }
  async function hangUp(call: StubCall, source: 'caller' | 'callee' | 'unknown', cause: HangupCause): Promise<void> {
    if (call.state === 'ended') return;
    const wasAnswered = call.state === 'answered';
    call.state = 'ended';
    // The bridge ends: the other leg is hung up too (`park_after_unbridge` not set).
    const other = call.bridgedTo ? calls.get(call.bridgedTo) : undefined;
    if (other && other.state !== 'ended') void hangUp(other, 'unknown', 'normal_clearing');
    if (call.media) {
      call.media.socket.send(JSON.stringify({ event: 'stop' }), () => call.media!.socket.close(1000));
    }
    for (const speech of call.speeches) if (speech.state === 'queued' || speech.state === 'speaking') speech.state = 'stopped';
    await send(call, 'call.hangup', { ...legOf(call), ...partiesOf(call), hangup_cause: cause, hangup_source: source, state: 'hangup' });
    // Recorded from the answer (dial or answer with `record`): the recording is saved after the hang-up.
    if (
      wasAnswered &&
      call.commands.some((command) => (command.body as CallDialParams | ActionAnswerParams).record === 'record-from-answer')
    ) {
      const recordingId = addRecording(call.id);
      const { savedAt } = recordings.get(recordingId)!;
      // As documented: neither call_control_id nor a recording id; download links that expire in ten minutes.
      await send(call, 'call.recording.saved', {
        ...idsOf(call),
        channels: 'single',
        recording_urls: downloadUrls(recordingId),
        public_recording_urls: {},
        recording_started_at: savedAt,
        recording_ended_at: savedAt,
      });
    }
  }

  const recordings: TelnyxStub['recordings'] = new Map();
  function addRecording(callControlId: string, durationMs = 1_000): string {
    const id = crypto.randomUUID();
    const call = calls.get(callControlId);
    const ids = call ? idsOf(call) : { call_leg_id: `leg-${callControlId}`, call_session_id: `session-${callControlId}` };
    recordings.set(id, {
      callControlId,
      callLegId: ids.call_leg_id,
      callSessionId: ids.call_session_id,
      durationMs,
      savedAt: new Date().toISOString(),
    });
    return id;
  }
  const recordingData = (id: string) => {
    const recording = recordings.get(id)!;
    return {
      record_type: 'recording',
      id,
      call_control_id: recording.callControlId,
      call_leg_id: recording.callLegId,
      call_session_id: recording.callSessionId,
      channels: 'single',
      source: 'call',
      status: 'completed',
      duration_millis: recording.durationMs,
      download_urls: downloadUrls(id),
      recording_started_at: recording.savedAt,
      recording_ended_at: recording.savedAt,
      created_at: recording.savedAt,
      updated_at: recording.savedAt,
    } satisfies RecordingResponseData;
  };
  // Presigned storage links (S3-style, expiring in ten minutes); served here under /storage, taking no Authorization.
  const downloadUrls = (id: string) => ({
    wav: `${url}/storage/recordings/${id}.wav?X-Amz-Expires=600&X-Amz-Signature=stub`,
    mp3: `${url}/storage/recordings/${id}.mp3?X-Amz-Expires=600&X-Amz-Signature=stub`,
  });

  /** What Telnyx streams: the asked `stream_codec` if it can transcode, else the call's codec. */
  const streamEncoding = (body: Record<string, unknown>) => {
    const asked = typeof body.stream_codec === 'string' && body.stream_codec !== 'default' ? body.stream_codec : undefined;
    return asked && options.transcodes !== false ? asked : (options.callCodec ?? 'PCMU');
  };
  const error = (res: http.ServerResponse, status: number, detail: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ errors: [{ code: String(status === 422 ? 90018 : status), title: detail, detail }] }));
  };
  const ok = (res: http.ServerResponse, data: unknown, extra: Record<string, unknown> = {}) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data, ...extra }));
  };
  const page = (res: http.ServerResponse, data: unknown[]) =>
    ok(res, data, { meta: { page_number: 1, page_size: 250, total_pages: 1, total_results: data.length } });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://stub');
    const body = (chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {}) as Record<string, unknown>;
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.search, body });
    const refusal = refusing.findIndex((r) => url.pathname.endsWith(r.suffix));
    if (refusal >= 0) {
      const [{ status, error: refused }] = refusing.splice(refusal, 1);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [refused] }));
      return;
    }
    const lost = [...losing].find((suffix) => url.pathname.endsWith(suffix));
    if (lost) {
      losing.delete(lost);
      // Carried out, then the connection is cut instead of answering.
      res.writeHead = (() => res) as unknown as typeof res.writeHead;
      res.end = (() => {
        req.socket.destroy();
        return res;
      }) as unknown as typeof res.end;
    }
    // A webhook sink for tests of the adapter alone (not part of Telnyx's API).
    if (url.pathname === '/sink') return ok(res, {});
    const stored = /^\/storage\/recordings\/([0-9a-f-]{36})\.(wav|mp3)$/.exec(url.pathname);
    if (stored && req.method === 'GET') {
      const recording = recordings.get(stored[1]);
      // A presigned link refuses a second credential, as S3 does.
      if (!recording || !url.searchParams.get('X-Amz-Signature') || req.headers.authorization) return error(res, 403, 'AccessDenied');
      const wav = wavRecording(recording.durationMs);
      res.writeHead(200, { 'content-type': stored[2] === 'wav' ? 'audio/wav' : 'audio/mpeg', 'content-length': String(wav.length) });
      wav.body.pipe(res);
      return;
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return error(res, 401, 'Authentication failed');
    const path = url.pathname;

    const recordingPath = /^\/v2\/recordings\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && recordingPath) {
      if (!recordings.has(recordingPath[1])) return error(res, 404, 'Resource not found');
      return ok(res, recordingData(recordingPath[1]));
    }
    // `DeleteRecording` of Telnyx's OpenAPI `real-time-communications/call-recordings.yml`, as published at
    // developers.telnyx.com/api-reference/call-recordings/delete-a-call-recording: "Permanently deletes a call
    // recording", answered 200 with the deleted resource (`RecordingResponseBody`, `{data}`); one Telnyx does not have
    // (deleted before included) is 404 `call-recordings_NotFoundResponse`, Telnyx's error envelope, and 401 a key it
    // refuses (`call-recordings_UnauthorizedResponse`, as every request here); its download links then refuse.
    if (req.method === 'DELETE' && recordingPath) {
      if (!recordings.has(recordingPath[1])) return error(res, 404, 'Resource not found');
      const deleted = { data: recordingData(recordingPath[1]) } satisfies RecordingResponse;
      recordings.delete(recordingPath[1]);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(deleted));
      return;
    }
    // The Call Control application (TELNYX_CONNECTION_ID) and where it sends webhooks.
    const application = /^\/v2\/call_control_applications\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && application) {
      return ok(res, {
        record_type: 'call_control_application',
        id: decodeURIComponent(application[1]),
        application_name: 'switchboard',
        active: true,
        webhook_api_version: '2',
        webhook_event_url: connectionWebhookUrl,
        webhook_event_failover_url: connectionFailoverUrl ?? '',
        webhook_timeout_secs: null,
      } satisfies CallControlApplication);
    }
    // The messaging profile (TELNYX_MESSAGING_PROFILE_ID): inbound messages' webhooks, with the application's URLs here.
    const profile = /^\/v2\/messaging_profiles\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && profile) {
      return ok(res, {
        record_type: 'messaging_profile',
        id: decodeURIComponent(profile[1]),
        name: 'switchboard',
        enabled: true,
        webhook_api_version: '2',
        webhook_url: connectionWebhookUrl,
        webhook_failover_url: connectionFailoverUrl ?? '',
      } satisfies MessagingMessagingProfile);
    }
    // `RecordingListParams.filter`: call_leg_id, call_session_id, call_control_id.
    if (req.method === 'GET' && path === '/v2/recordings') {
      const filters = (['call_leg_id', 'call_session_id', 'call_control_id'] as const).flatMap((name) => {
        const value = url.searchParams.get(`filter[${name}]`);
        return value ? [[name, value] as const] : [];
      });
      const listed = [...recordings.keys()].map(recordingData).filter((r) => filters.every(([name, value]) => r[name] === value));
      return page(res, listed);
    }
    if (req.method === 'GET' && path === '/v2/available_phone_numbers') {
      const phoneNumber = offerNumber({
        country: url.searchParams.get('filter[country_code]') ?? 'US',
        type: url.searchParams.get('filter[phone_number_type]') ?? 'local',
        ndc: url.searchParams.get('filter[national_destination_code]'),
      });
      const found: AvailablePhoneNumberListResponse.Data[] = phoneNumber
        ? [{ record_type: 'available_phone_number', phone_number: phoneNumber, features: [{ name: 'sms' }, { name: 'voice' }] }]
        : [];
      return ok(res, found, { metadata: { total_results: found.length } });
    }
    if (req.method === 'GET' && path === '/v2/number_orders') {
      const reference = url.searchParams.get('filter[customer_reference]');
      return page(
        res,
        orders.filter((o) => o.customer_reference === reference),
      );
    }
    if (req.method === 'POST' && path === '/v2/number_orders') {
      // Shaped as the documented example (developers.telnyx.com/api-reference/phone-number-orders/create-a-number-order):
      // the order answers `pending` and completes later (`GET /v2/number_orders/{id}`).
      const wanted = (body.phone_numbers as Array<{ phone_number: string; requirement_group_id?: string }>) ?? [];
      const fate = scripted.shift() ?? { outcome: 'success', pendingReads: 0 };
      const order: NumberOrderWithPhoneNumbers = {
        id: crypto.randomUUID(),
        record_type: 'number_order',
        phone_numbers_count: wanted.length,
        connection_id: String(body.connection_id),
        messaging_profile_id: String(body.messaging_profile_id),
        phone_numbers: wanted.map((w) => ({
          id: crypto.randomUUID(),
          record_type: 'number_order_phone_number',
          phone_number: w.phone_number,
          regulatory_requirements: [],
          requirements_met: fate.outcome !== 'requirements',
          status: 'pending',
        })),
        sub_number_orders_ids: [crypto.randomUUID()],
        status: 'pending',
        customer_reference: typeof body.customer_reference === 'string' ? body.customer_reference : undefined,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
        requirements_met: fate.outcome !== 'requirements',
      };
      orders.push(order);
      orderFates.set(order.id!, fate);
      return ok(res, order);
    }
    const orderPath = /^\/v2\/number_orders\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && orderPath) {
      const order = orders.find((o) => o.id === orderPath[1]);
      if (!order) return error(res, 404, 'Resource not found');
      const fate = orderFates.get(order.id!)!;
      if (order.status === 'pending' && fate.outcome !== 'requirements' && --fate.pendingReads < 0) {
        order.status = fate.outcome;
        order.updated_at = new Date().toISOString();
        for (const ordered of order.phone_numbers ?? []) {
          ordered.status = fate.outcome;
          if (fate.outcome === 'success')
            numbers.push({
              id: crypto.randomUUID(),
              phone_number: ordered.phone_number!,
              connection_id: String(order.connection_id),
              messaging_profile_id: String(order.messaging_profile_id),
              customer_reference: order.customer_reference ?? '',
            });
        }
      }
      return ok(res, order);
    }
    if (req.method === 'POST' && path === '/v2/10dlc/phone_number_campaigns') {
      // Answered unwrapped, as PhoneNumberCampaign (telnyx 7.24.0 `phone-number-campaigns.d.ts`).
      const phoneNumber = String(body.phoneNumber);
      if (!numbers.some((n) => n.phone_number === phoneNumber)) return error(res, 404, 'Phone number not found');
      if (campaigns.has(phoneNumber)) return error(res, 400, 'Phone number is already assigned to a campaign');
      const at = new Date().toISOString();
      const assignment: PhoneNumberCampaign = {
        phoneNumber,
        campaignId: String(body.campaignId),
        telnyxCampaignId: String(body.campaignId),
        assignmentStatus: 'PENDING_ASSIGNMENT',
        createdAt: at,
        updatedAt: at,
      };
      campaigns.set(phoneNumber, assignment);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(assignment));
      return;
    }
    const campaignPath = /^\/v2\/10dlc\/phone_number_campaigns\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && campaignPath) {
      const assignment = campaigns.get(decodeURIComponent(campaignPath[1]));
      if (!assignment) return error(res, 404, 'Resource not found');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(assignment));
      return;
    }
    if (req.method === 'GET' && path === '/v2/phone_numbers') {
      const phone = url.searchParams.get('filter[phone_number]');
      return page(
        res,
        numbers.filter((n) => !phone || n.phone_number === phone).map((n) => ({ record_type: 'phone_number', ...n, status: 'active' })),
      );
    }
    const numberPath = /^\/v2\/phone_numbers\/([^/]+)(\/messaging)?$/.exec(path);
    if (req.method === 'PATCH' && numberPath) {
      // PATCH /v2/phone_numbers/{id} (`connection_id`) and …/messaging (`messaging_profile_id`, `""` unassigns).
      const number = numbers.find((n) => n.id === numberPath[1]);
      if (!number) return error(res, 404, 'Resource not found');
      if (numberPath[2] && typeof body.messaging_profile_id === 'string') number.messaging_profile_id = body.messaging_profile_id;
      if (!numberPath[2] && typeof body.connection_id === 'string') number.connection_id = body.connection_id;
      return ok(res, { record_type: numberPath[2] ? 'messaging_settings' : 'phone_number', ...number, status: 'active' });
    }
    const deleted = /^\/v2\/phone_numbers\/([^/]+)$/.exec(path);
    if (req.method === 'DELETE' && deleted) {
      const index = numbers.findIndex((n) => n.id === deleted[1]);
      if (index < 0) return error(res, 404, 'Resource not found');
      const [number] = numbers.splice(index, 1);
      return ok(res, { record_type: 'phone_number', ...number, status: 'deleted' });
    }
    if (req.method === 'POST' && path === '/v2/messages') {
      const params = body as unknown as MessageSendParams;
      const message: StubMessage = {
        id: crypto.randomUUID(),
        from: String(params.from),
        to: String(params.to),
        text: String(params.text),
        webhookUrl: params.webhook_url ?? connectionWebhookUrl,
        ...(params.webhook_failover_url ? { failoverUrl: params.webhook_failover_url } : {}),
        messagingProfileId: String(params.messaging_profile_id),
      };
      messages.push(message);
      const outcome = messageOutcomes.shift() ?? {};
      const payload = (status: MessageStatus, errors: OutboundMessagePayload['errors'] = []) =>
        ({
          record_type: 'message',
          id: message.id,
          direction: 'outbound',
          type: 'SMS',
          from: { phone_number: message.from },
          to: [{ phone_number: message.to, status }],
          text: message.text,
          messaging_profile_id: message.messagingProfileId,
          errors,
        }) satisfies OutboundMessagePayload;
      const target = { url: message.webhookUrl, failoverUrl: message.failoverUrl };
      const receipts = async () => {
        await send(target, 'message.sent', payload('sent'));
        await send(target, 'message.finalized', payload(outcome.status ?? 'delivered', outcome.errors));
      };
      // Receipts racing the answer: delivered (and retried, and given up) before the sender learns the message's id.
      if (outcome.receiptsFirst) await receipts();
      ok(res, payload('queued') satisfies MessageSendResponse['data']);
      if (!outcome.receiptsFirst) void receipts();
      return;
    }
    if (req.method === 'POST' && path === '/v2/calls') {
      const dial = body as unknown as CallDialParams;
      const commandId = typeof dial.command_id === 'string' ? `dial:${dial.command_id}` : undefined;
      // Ignored, as documented; the answer is this stub's assumption (see the header).
      if (commandId && commandIds.has(commandId)) return error(res, 422, 'Duplicate command_id');
      const call: StubCall = {
        id: `v3:${crypto.randomBytes(12).toString('base64url')}`,
        direction: 'outgoing',
        from: dial.from,
        to: String(dial.to),
        webhookUrl: dial.webhook_url ?? connectionWebhookUrl,
        clientState: dial.client_state,
        state: 'ringing',
        speeches: [],
        commands: [{ action: 'dial', body }],
      };
      calls.set(call.id, call);
      const data = {
        record_type: 'call',
        call_control_id: call.id,
        call_leg_id: `leg-${call.id}`,
        call_session_id: `session-${call.id}`,
        is_alive: false,
      } satisfies CallDialResponse.Data;
      if (commandId) commandIds.set(commandId, data);
      ok(res, data);
      void send(call, 'call.initiated', { ...legOf(call), ...partiesOf(call), direction: call.direction, state: 'bridging' });
      return;
    }
    const activeCalls = /^\/v2\/connections\/([^/]+)\/active_calls$/.exec(path);
    if (req.method === 'GET' && activeCalls) {
      return page(
        res,
        [...calls.values()]
          .filter((c) => c.state !== 'ended' && c.commands[0]?.body.connection_id === decodeURIComponent(activeCalls[1]))
          .map((c) => ({
            record_type: 'call',
            call_control_id: c.id,
            call_leg_id: `leg-${c.id}`,
            call_session_id: `session-${c.id}`,
            client_state: c.clientState ?? '',
            call_duration: 0,
          })),
      );
    }
    const action = /^\/v2\/calls\/([^/]+)\/actions\/([a-z_]+)$/.exec(path);
    if (req.method === 'POST' && action) {
      const call = calls.get(decodeURIComponent(action[1]));
      if (!call) return error(res, 404, 'Call not found');
      const name = action[2];
      call.commands.push({ action: name, body });
      // A repeated command_id of an accepted command is ignored (answered ok, nothing done twice).
      const commandKey = typeof body.command_id === 'string' ? `${call.id}:${body.command_id}` : undefined;
      if (commandKey && commandIds.has(commandKey)) return ok(res, COMMAND_OK);
      if (call.state === 'ended') return error(res, 422, 'Call has already ended');
      if (name === 'speak' && call.state !== 'answered') return error(res, 422, 'Call is not answered');
      if (name === 'speak' && String(body.payload ?? '').length > 3_000) {
        res.writeHead(422, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            errors: [
              {
                code: '90015',
                title: 'Invalid parameter',
                detail: 'payload is limited to 3000 characters',
                source: { pointer: '/payload' },
              },
            ],
          }),
        );
        return;
      }
      if (commandKey) commandIds.set(commandKey, true);
      // State added "to every subsequent webhook" of the call.
      if (typeof body.client_state === 'string' && name !== 'transfer') call.clientState = body.client_state;
      switch (name) {
        case 'answer':
          if (call.direction !== 'incoming') return error(res, 422, 'Only incoming calls can be answered');
          if (typeof body.client_state === 'string') call.clientState = body.client_state;
          if (typeof body.webhook_url === 'string') call.webhookUrl = body.webhook_url;
          call.state = 'answered';
          ok(res, COMMAND_OK);
          void send(call, 'call.answered', { ...legOf(call), ...partiesOf(call), state: 'answered' });
          return;
        case 'reject':
          if (call.state !== 'ringing') return error(res, 422, 'Call is not ringing');
          call.state = 'ended';
          return ok(res, COMMAND_OK);
        case 'hangup':
          ok(res, COMMAND_OK);
          void hangUp(
            call,
            call.direction === 'outgoing' ? 'caller' : 'callee',
            call.state === 'answered' ? 'normal_clearing' : 'originator_cancel',
          );
          return;
        case 'speak': {
          const speak = body as unknown as ActionSpeakParams;
          call.speeches.push({ text: speak.payload, voice: String(speak.voice), clientState: speak.client_state, state: 'queued' });
          ok(res, COMMAND_OK);
          startNextSpeech(call);
          return;
        }
        case 'playback_stop': {
          ok(res, COMMAND_OK);
          // `stop: all` also drops the queue; those never started and send nothing.
          for (const speech of call.speeches) if (speech.state === 'queued') speech.state = 'stopped';
          const playing = call.speeches.find((s) => s.state === 'speaking');
          if (playing) {
            playing.state = 'stopped';
            // call.speak.ended's documented statuses are completed, call_hangup and cancelled_amd.
            void send(call, 'call.speak.ended', { ...legOf(call), status: 'completed' });
          }
          return;
        }
        case 'streaming_start': {
          if (call.state !== 'answered') return error(res, 422, 'Call is not answered');
          ok(res, COMMAND_OK);
          const socket = new WebSocket(String(body.stream_url));
          const media = { socket, received: [] as Buffer[], marks: [] as string[], cleared: 0 };
          call.media = media;
          const streamId = crypto.randomUUID();
          socket.on('open', () => {
            socket.send(JSON.stringify({ event: 'connected', version: '1.0.0' }));
            socket.send(
              JSON.stringify({
                event: 'start',
                sequence_number: '1',
                stream_id: streamId,
                start: { call_control_id: call.id, media_format: { encoding: streamEncoding(body), sample_rate: 8000, channels: 1 } },
              }),
            );
          });
          socket.on('message', (data) => {
            const message = JSON.parse(String(data)) as { event?: string; media?: { payload?: string }; mark?: { name?: string } };
            if (message.event === 'media' && message.media?.payload) media.received.push(Buffer.from(message.media.payload, 'base64'));
            // Everything sent is "played" at once: a mark comes back as soon as it arrives.
            if (message.event === 'mark' && message.mark?.name) {
              media.marks.push(message.mark.name);
              socket.send(JSON.stringify({ event: 'mark', stream_id: streamId, mark: { name: message.mark.name } }));
            }
            if (message.event === 'clear') media.cleared += 1;
          });
          socket.on('error', () => undefined);
          return;
        }
        case 'transfer': {
          if (call.state !== 'answered') return error(res, 422, 'Call is not answered');
          const transfer = body as unknown as ActionTransferParams;
          const leg: StubCall = {
            id: `v3:${crypto.randomBytes(12).toString('base64url')}`,
            direction: 'outgoing',
            from: transfer.from ?? call.to,
            to: transfer.to,
            webhookUrl: transfer.webhook_url ?? connectionWebhookUrl,
            clientState: transfer.target_leg_client_state,
            state: 'ringing',
            speeches: [],
            commands: [{ action: 'dial', body }],
            transferOf: call.id,
          };
          calls.set(leg.id, leg);
          ok(res, COMMAND_OK);
          void send(leg, 'call.initiated', { ...legOf(leg), ...partiesOf(leg), direction: leg.direction, state: 'bridging' });
          return;
        }
        case 'send_dtmf':
          if (call.state !== 'answered') return error(res, 422, 'Call is not answered');
          (call.tones ??= []).push((body as unknown as ActionSendDtmfParams).digits);
          return ok(res, COMMAND_OK);
        case 'transcription_start':
        case 'record_start':
          if (call.state !== 'answered') return error(res, 422, 'Call is not answered');
          return ok(res, COMMAND_OK);
        default:
          return error(res, 404, `Unknown action ${name}`);
      }
    }
    return error(res, 404, `No route ${req.method} ${path}`);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: Error) => error(res, 500, err.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const callOf = (id: string) => {
    const call = calls.get(id);
    if (!call) throw new Error(`stub has no call ${id}`);
    return call;
  };
  return {
    url,
    recordings,
    addRecording,
    baseUrl: `${url}/v2`,
    apiKey,
    publicKey: rawPublicKey(publicKey),
    calls,
    messages,
    numbers,
    orders,
    campaigns,
    offerNumbers: (...phoneNumbers) => void toOffer.push(...phoneNumbers),
    own(phoneNumber) {
      const number = {
        id: crypto.randomUUID(),
        phone_number: phoneNumber,
        connection_id: '',
        messaging_profile_id: '',
        customer_reference: '',
      };
      numbers.push(number);
      return number;
    },
    scriptOrders(...outcomes) {
      for (const fate of outcomes)
        scripted.push(typeof fate === 'string' ? { outcome: fate, pendingReads: fate === 'requirements' ? 0 : 1 } : { ...fate });
    },
    requests,
    setConnectionWebhookUrl: (webhookUrl) => void (connectionWebhookUrl = webhookUrl),
    setConnectionFailoverUrl: (failoverUrl) => void (connectionFailoverUrl = failoverUrl),
    webhooks,
    scriptMessages: (...outcomes) => void messageOutcomes.push(...outcomes),
    async answer(id, result = 'human') {
      const call = callOf(id);
      call.state = 'answered';
      await send(call, 'call.answered', { ...legOf(call), ...partiesOf(call), state: 'answered' });
      const detection = call.commands[0]?.body.answering_machine_detection;
      if (detection === 'detect' || detection === 'greeting_end')
        await send(call, 'call.machine.detection.ended', { ...legOf(call), ...partiesOf(call), result });
      if (detection === 'greeting_end' && result === 'machine') call.greetingPlaying = true;
    },
    async greetingEnds(id, result = 'beep_detected') {
      const call = callOf(id);
      if (!call.greetingPlaying) throw new Error(`call ${id} has no machine greeting under greeting_end detection`);
      call.greetingPlaying = false;
      await send(call, 'call.machine.greeting.ended', { ...legOf(call), ...partiesOf(call), result });
    },
    transferLeg: (id) => [...calls.values()].find((c) => c.transferOf === id),
    async answerTransfer(legId) {
      const leg = callOf(legId);
      const origin = callOf(leg.transferOf!);
      leg.state = 'answered';
      leg.bridgedTo = origin.id;
      origin.bridgedTo = leg.id;
      await send(leg, 'call.answered', { ...legOf(leg), ...partiesOf(leg), state: 'answered' });
      await send(leg, 'call.bridged', { ...legOf(leg), ...partiesOf(leg) });
      await send(origin, 'call.bridged', { ...legOf(origin), ...partiesOf(origin) });
    },
    async failTransfer(legId, cause) {
      await hangUp(callOf(legId), 'callee', cause);
    },
    async say(id, text, interim = []) {
      const call = callOf(id);
      for (const partial of interim)
        await send(call, 'call.transcription', {
          ...legOf(call),
          transcription_data: { transcript: partial, is_final: false, confidence: 0.5 },
        });
      await send(call, 'call.transcription', {
        ...legOf(call),
        transcription_data: { transcript: text, is_final: true, confidence: 0.97 },
      });
    },
    async finishSpeech(id) {
      const call = callOf(id);
      const playing = call.speeches.find((s) => s.state === 'speaking');
      if (playing) await endSpeech(call, playing, 'completed');
    },
    async hangUpRemote(id) {
      const call = callOf(id);
      await hangUp(call, call.direction === 'outgoing' ? 'callee' : 'caller', 'normal_clearing');
    },
    async talk(id, frames) {
      const media = callOf(id).media;
      if (!media || media.socket.readyState !== WebSocket.OPEN) throw new Error(`call ${id} has no open media socket`);
      frames.forEach((frame, i) =>
        media.socket.send(
          JSON.stringify({
            event: 'media',
            sequence_number: String(i + 2),
            media: { track: 'inbound', chunk: String(i + 1), timestamp: String(i * 20), payload: frame.toString('base64') },
          }),
        ),
      );
    },
    async incomingCall(from, to) {
      const call: StubCall = {
        id: `v3:${crypto.randomBytes(12).toString('base64url')}`,
        direction: 'incoming',
        from,
        to,
        webhookUrl: connectionWebhookUrl,
        state: 'ringing',
        speeches: [],
        commands: [],
      };
      calls.set(call.id, call);
      await send(call, 'call.initiated', { ...legOf(call), ...partiesOf(call), direction: call.direction, state: 'parked' });
      return call.id;
    },
    async inboundSms(from, to, text) {
      await send({ url: connectionWebhookUrl, failoverUrl: connectionFailoverUrl }, 'message.received', {
        record_type: 'message',
        id: crypto.randomUUID(),
        direction: 'inbound',
        type: 'SMS',
        from: { phone_number: from },
        to: [{ phone_number: to, status: 'webhook_delivered' }],
        text,
        errors: [],
      });
    },
    loseNextAnswer: (suffix) => void losing.add(suffix),
    refuseNext: (suffix, status, refused) => void refusing.push({ suffix, status, error: refused }),
    sign: webhooks.sign,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The oracle: every webhook the stub signed passed the package's own verification.
      if (webhooks.oracleFailures.length > 0)
        throw new Error(`telnyx webhooks.unwrap refused what the stub signed: ${webhooks.oracleFailures.join('; ')}`);
    },
  };
}

/**
 * The Telnyx adapter against `stub` with its shared state in `db`, its webhooks to the stub's own sink (the adapter's
 * answers are what is tested); `settings` overrides.
 */
export function telnyxCarrierOn(stub: TelnyxStub, db: Db, settings: Partial<TelnyxSettings> = {}): TelnyxCarrier {
  return new TelnyxCarrier(
    {
      apiKey: stub.apiKey,
      baseUrl: stub.baseUrl,
      connectionId: 'conn-1',
      messagingProfileId: 'profile-1',
      webhookUrl: `${stub.url}/sink`,
      ...settings,
    },
    { db },
  );
}

/**
 * A suite's contract stub and the adapter alone on it (its webhooks to the stub's sink: the adapter's answers are
 * what is tested; a db for its shared state), set up before the suite's tests and closed after them.
 */
export function useTelnyxAdapter(settings: Partial<TelnyxSettings> = {}): { stub: TelnyxStub; carrier: TelnyxCarrier; db: Db } {
  const suite = {} as { stub: TelnyxStub; carrier: TelnyxCarrier; db: Db };
  beforeAll(async () => {
    suite.db = createDb(process.env.DATABASE_URL!, { max: 4 });
    suite.stub = await startTelnyxStub();
    suite.stub.setConnectionWebhookUrl(`${suite.stub.url}/sink`);
    suite.carrier = telnyxCarrierOn(suite.stub, suite.db, settings);
  });
  afterAll(async () => {
    await suite.stub?.close();
    await suite.db?.destroy();
  });
  return suite;
}

/** A deployment's Telnyx settings (TELNYX_*) for an account played by `stub`: the harness's `overrides.telnyx`. */
export function telnyxConfigOn(stub: TelnyxStub, settings: Partial<Config['telnyx']> = {}): Config['telnyx'] {
  return {
    apiKey: stub.apiKey,
    publicKey: stub.publicKey,
    connectionId: 'stub-connection',
    messagingProfileId: 'stub-profile',
    baseUrl: stub.baseUrl,
    mediaUrl: undefined,
    mediaPort: undefined,
    ...settings,
  };
}
