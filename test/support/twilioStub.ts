import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { wavRecording } from '../../simulator/carrier/recording';
import { twilioContract, type TwilioContract } from './twilioContract';
import { TwilioCarrier, type TwilioCarrierOptions } from '../../src/adapters/carrier/twilio/twilioCarrier';
import { memoryCreateAttempts } from './memoryCreateAttempts';
import { stubSockets, type StubMediaStream, type StubRelay } from './twilioStubSockets';

/**
 * A local contract stub of Twilio's REST API (2010-04-01) and of the webhooks Twilio sends, written
 * from Twilio's public API reference (twilio/twilio-oai, the TwiML and webhook docs), not from the
 * carrier simulator: Basic auth with the account SID and auth token, form-encoded requests, JSON
 * answers with Twilio's snake_case field names, list pages with `next_page_uri`, errors as
 * `{code, message, more_info, status}`. Callbacks are form-encoded POSTs signed with
 * `X-Twilio-Signature` (base64 HMAC-SHA1 of the URL followed by every parameter's name and value,
 * sorted by name, keyed by the auth token), sent one at a time per call in Twilio's order. The
 * ConversationRelay and Media Streams sockets a call's TwiML asks for are opened as Twilio opens them
 * (./twilioStubSockets.ts).
 *
 * Answering-machine detection (`MachineDetection=Enable`): Twilio fetches the call's Url once
 * detection ended, with `AnsweredBy`. Asynchronous detection: the create parameters `AsyncAmd`,
 * `AsyncAmdStatusCallback` and `AsyncAmdStatusCallbackMethod` are the Calls create operation's in twilio/twilio-oai
 * `spec/json/twilio_api_v2010.json` (test/fixtures/twilio-oai/twilio_api_v2010.slice.json); the callback's body is
 * Twilio's published one (https://www.twilio.com/docs/voice/answering-machine-detection, "Webhook parameters":
 * CallSid, AccountSid, AnsweredBy, MachineDetectionDuration in milliseconds), which twilio-oai does not describe.
 * The Url is fetched at the answer, without `AnsweredBy`, and the verdict is POSTed later (`amdStatus`); under
 * `DetectMessageEnd` a machine's verdict is one of `machine_end_beep`, `machine_end_silence`, `machine_end_other`
 * (the same page, "MachineDetection"), sent once its greeting ended. Like every Twilio webhook it may come again
 * (https://www.twilio.com/docs/usage/webhooks/webhooks-connection-overrides: retries on a failed delivery). A `<Dial><Number>` (a transfer) dials a child leg: its
 * answer is reported to the Number's `statusCallback` (`statusCallbackEvent="answered"`, the
 * child's `CallSid` with `ParentCallSid`), and the Dial's `action` is requested when the dial ends
 * (`DialCallStatus`), its TwiML then run by the parent call.
 */

export interface StubCall {
  sid: string;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound-api' | 'outbound-dial';
  /** A `<Dial>`'s leg: the call that dialled it. */
  parentCallSid?: string;
  status: string;
  dateCreated: Date;
  url?: string;
  statusCallback?: string;
  statusCallbackEvents: string[];
  /** The TwiML the call is running. */
  twiml: string;
  answeredAt?: number;
  /** Created with `Record=true`. */
  record?: boolean;
  /** Created with `MachineDetection` (`Enable`, `DetectMessageEnd`). */
  machineDetection?: string;
  /** Created with `AsyncAmd=true`: the verdict goes to this URL (`AsyncAmdStatusCallback`), not to the Url's fetch. */
  asyncAmdStatusCallback?: string;
  /** The leg the call's running `<Dial><Number>` dialled (a call of its own, `ParentCallSid` this call). */
  dialLeg?: StubCall;
  updates: Array<Record<string, string | string[]>>;
  /** Recordings started through `POST Calls/{sid}/Recordings.json`. */
  apiRecordings?: StubApiRecording[];
  /** The ConversationRelay session of the call's `<Connect><ConversationRelay>`, while it runs. */
  relay?: StubRelay;
  /** The bidirectional stream of the call's `<Connect><Stream>`, while it runs. */
  media?: StubMediaStream;
}

/** A recording started through the Recordings API: reported only to its `recordingStatusCallback`. */
export interface StubApiRecording {
  sid: string;
  status: 'in-progress' | 'completed';
  startedAt: Date;
  channels: number;
  statusCallback?: string;
  statusCallbackEvents: string[];
}

export interface StubMessage {
  sid: string;
  from: string;
  to: string;
  body: string;
  /** The Messaging Service the message was sent through (`MessagingServiceSid`). */
  messagingServiceSid?: string;
  status: string;
  dateCreated: Date;
  statusCallback?: string;
}

export interface StubNumber {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  voiceUrl?: string;
  smsUrl?: string;
  statusCallback?: string;
}

export interface SentCallback {
  url: string;
  params: Record<string, string>;
  status: number;
  body: string;
}

export interface TwilioStub {
  url: string;
  accountSid: string;
  authToken: string;
  calls: Map<string, StubCall>;
  messages: Map<string, StubMessage>;
  numbers: Map<string, StubNumber>;
  /** Every callback sent, in order, with our API's answer. */
  callbacks: SentCallback[];
  /** Recordings by RecordingSid (a recorded call's, once completed; or `addRecording`'s), with their length. */
  recordings: Map<string, { callSid: string; durationMs: number; contentType?: string }>;
  /**
   * A recording of `callSid` exists; answers its `RecordingUrl` (the Recording resource, no extension).
   * `contentType`: what the media is labelled instead of Twilio's type (a hostile or broken storage, for attacker tests).
   */
  addRecording(callSid: string, durationMs?: number, contentType?: string): string;
  /**
   * Messaging Services (Messaging v1): each one's phone numbers by PhoneNumber SID. `addMessagingService`
   * creates one (as in the Console) and answers its `MG…` SID.
   */
  messagingServices: Map<string, Set<string>>;
  /** `smartEncoding`: the service replaces Unicode characters with their GSM-7 look-alikes (Twilio's Smart Encoding), e.g. ’ with '. */
  addMessagingService(options?: { smartEncoding?: boolean }): string;
  /** Every REST request received (method, path, form params). */
  requests: Array<{ method: string; path: string; params: Record<string, string | string[]> }>;
  /** Waits for the callbacks queued for a call so far. */
  settled(callSid?: string): Promise<void>;
  /** Outbound call: the callee's phone rings (`ringing` status callback). */
  ring(callSid: string): Promise<void>;
  /** Outbound call: the callee answers; Twilio fetches the call's Url and runs its TwiML (with `AnsweredBy` under machine detection, default `human`). */
  answer(callSid: string, answeredBy?: string): Promise<void>;
  /**
   * Asynchronous detection's verdict (a call created with `AsyncAmd=true`, answered), POSTed to its
   * `AsyncAmdStatusCallback`; `MachineDetectionDuration` is the time since the answer. Call it again for Twilio's
   * repeat of the same webhook.
   */
  amdStatus(callSid: string, answeredBy: string): Promise<SentCallback>;
  /** The `<Dial>` the call runs: the destination answers (the Number's status callback). */
  answerTransfer(callSid: string): Promise<void>;
  /** The `<Dial>` ends: after an answer the destination hung up (`completed`), else it never answered (`status`); Twilio requests the action. */
  endTransfer(callSid: string, status?: 'busy' | 'no-answer' | 'failed'): Promise<void>;
  /** The remote party hangs up. */
  remoteHangUp(callSid: string): Promise<void>;
  /** An outbound call ends unanswered, with Twilio's final status. */
  endUnanswered(callSid: string, status: 'busy' | 'no-answer' | 'failed'): Promise<void>;
  /** What ConversationRelay is saying ends (`agentSpeaking` off). */
  finishSpeech(callSid: string): Promise<void>;
  /**
   * The caller speaks to ConversationRelay (an `interrupt` first when it is speaking, then the `prompt`), in
   * `language` (a primary tag: what a `multi` session detects; a pinned one reports its own).
   */
  callerSays(callSid: string, text: string, language?: string): Promise<void>;
  /** The call's ConversationRelay socket is lost; Twilio goes on at the `<Connect action>`. */
  dropRelay(callSid: string): void;
  /** The caller's audio on the call's Media Stream (µ-law 8 kHz frames). */
  talk(callSid: string, frames: Buffer[]): Promise<void>;
  /** The account already owns `phoneNumber` (bought outside Switchboard, no webhooks): a line may import it. */
  own(phoneNumber: string): StubNumber;
  /** The next purchase finds its number bought by someone else since the search (Twilio's 21422); searches no longer offer it. */
  sellBeforeNextPurchase(): void;
  /** Someone calls one of our numbers: Twilio posts to its VoiceUrl. */
  incomingCall(from: string, to: string): Promise<StubCall>;
  /** Someone texts one of our numbers: Twilio posts to its SmsUrl. */
  incomingSms(from: string, to: string, body: string): Promise<SentCallback>;
  /** A receipt for an outbound message (`sent`, `delivered`, `undelivered`, `failed`). */
  messageStatus(messageSid: string, status: string, errorCode?: string): Promise<SentCallback | undefined>;
  /**
   * The next create of a call or message is done, but its answer is lost: the connection is reset
   * after the resource exists, as when a network fails between Twilio and the worker.
   */
  loseNextCreateAnswer(resource: 'Calls' | 'Messages'): void;
  /** The next Calls update (of `callSid`, else of any call) is applied, but its answer is lost (the connection is reset). */
  loseNextUpdateAnswer(callSid?: string): void;
  /**
   * The next Calls update of `callSid` waits, neither applied nor answered, until `release()` (Twilio slow
   * to take it); `stalled` resolves once it arrived, `abandoned` once the client closed the connection
   * before any answer (it gave up waiting). Released, it is applied all the same, as a request Twilio took.
   */
  stallNextUpdate(callSid: string): { stalled: Promise<void>; abandoned: Promise<void>; release(): void };
  /**
   * The `<Pause>` the call's TwiML runs has run out: Twilio goes on to the `<Redirect>` after it, fetching
   * that URL again with the same parameters (the audio hold's loop), and runs what it answers.
   */
  pauseEnds(callSid: string): Promise<SentCallback>;
  /** Signs like Twilio (for forging tests). */
  sign(url: string, params: Record<string, string>, authToken?: string): string;
  /** Posts a callback as Twilio would (signed with the stub's auth token unless `signature` is given). */
  post(url: string, params: Record<string, string>, signature?: string): Promise<SentCallback>;
  /** The checks against Twilio's published descriptions (./twilioContract.ts); a violation fails the test it happened in. */
  contract: TwilioContract;
  /** Stops the stub; rejects with any contract violation not yet reported. */
  close(): Promise<void>;
}

const API_VERSION = '2010-04-01';
const ANY_CALL = '*';

export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return crypto.createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

/** Twilio's REST dates: RFC 2822 with a numeric zone ("Tue, 31 Aug 2010 20:36:28 +0000", twilio-oai `date-time-rfc-2822`), not `toUTCString()`'s "GMT". */
const rfc2822 = (date: Date) => date.toUTCString().replace(/GMT$/, '+0000');
/**
 * Countries whose numbers Twilio sells only with regulatory documents: a number there is bought with an
 * `AddressSid` (else 21631 "Phone Number Requires an Address", twilio.com/docs/api/errors/21631) and an
 * approved `BundleSid` (else 21649, Twilio changelog 2020-02-12 "Regulated Number Bundle Provisioning
 * Requirement"; its message text here is ours, Twilio documents the code). Germany's local numbers need
 * both (twilio.com/guidelines/de/regulatory); their search results say `address_requirements: local`.
 */
const REGULATED_COUNTRIES: Readonly<Record<string, { prefix: string }>> = { DE: { prefix: '+4930' } };

/**
 * What the stub's Twilio sells, by country and by its AvailablePhoneNumbers subresource (twilio/twilio-oai
 * `twilio_api_v2010.json`: ListAvailablePhoneNumberLocal, …TollFree, …Mobile, and FetchAvailablePhoneNumberCountry
 * whose `subresource_uris` name the types a country has): the prefix its numbers start with when no area code is
 * asked. A type a country lacks, or a country Twilio does not serve, is 404 (20404): the US has no Mobile. Searches
 * honour `AreaCode` (US and Canada: "Applies to only phone numbers in the US and Canada") and a `Contains` pattern
 * starting with `+` ("To match the beginning of a pattern, start the pattern with `+`"); area code 564 has none.
 */
const FOR_SALE: Readonly<Record<string, Partial<Record<'Local' | 'TollFree' | 'Mobile', string>>>> = {
  US: { Local: '+1555', TollFree: '+1800' },
  CA: { Local: '+1416', TollFree: '+1800' },
  GB: { Local: '+4420', Mobile: '+447400', TollFree: '+44808' },
  DE: { Local: REGULATED_COUNTRIES.DE.prefix },
};
const SUBRESOURCE_KEYS = { Local: 'local', TollFree: 'toll_free', Mobile: 'mobile' } as const;
const SOLD_OUT_AREA_CODE = '564';

function sid(prefix: string): string {
  return prefix + crypto.randomBytes(16).toString('hex');
}

function parseForm(raw: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const existing = params[name];
    params[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return params;
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * `firstNumber`: the seven digits after +1555 of the first number offered (suites sharing a database offer
 * different ones). `testCredentials`: the account is Twilio's test credentials, which may only POST
 * IncomingPhoneNumbers, Messages and Calls; "Requests to any other resource with test credentials will receive
 * a 403 Forbidden response" (twilio.com/docs/iam/test-credentials), error 20008 "Cannot access this resource
 * with Test Credentials" (twilio.com/docs/api/errors/20008).
 */
export async function startTwilioStub(
  options: { accountSid?: string; authToken?: string; firstNumber?: number; testCredentials?: boolean } = {},
): Promise<TwilioStub> {
  const accountSid = options.accountSid ?? sid('AC');
  const authToken = options.authToken ?? crypto.randomBytes(16).toString('hex');
  const calls = new Map<string, StubCall>();
  const messages = new Map<string, StubMessage>();
  const losingAnswers = new Set<'Calls' | 'Messages'>();
  /** Calls whose next update is applied but its answer lost. */
  const losingUpdateAnswers = new Set<string>();
  /** Calls whose next update waits (neither applied nor answered) until released. */
  const stalledUpdates = new Map<string, { stalled: () => void; abandoned: () => void; release: Promise<void> }>();
  /** Answers a create, or resets the connection after it when its answer is to be lost. */
  const created = (res: http.ServerResponse, resource: 'Calls' | 'Messages', body: unknown) => {
    if (losingAnswers.delete(resource)) return res.socket?.destroy();
    return json(res, 201, body);
  };
  const numbers = new Map<string, StubNumber>();
  const messagingServices: TwilioStub['messagingServices'] = new Map();
  const smartEncoding = new Set<string>();
  const recordings: TwilioStub['recordings'] = new Map();
  const addRecording = (callSid: string, durationMs = 1_000, contentType?: string) => {
    const recordingSid = sid('RE');
    recordings.set(recordingSid, { callSid, durationMs, contentType });
    return `${stubUrlOf()}${base}/Recordings/${recordingSid}`;
  };
  const callbacks: SentCallback[] = [];
  const requests: TwilioStub['requests'] = [];
  const contract = twilioContract({ accountSid, authToken });
  const sockets = stubSockets({
    accountSid,
    authToken,
    onSign: (url, signature) => contract.upgrade(url, signature),
    onSessionEnded: (call, action, params) => {
      const stubCall = call as StubCall;
      if (stubCall.status === 'in-progress') void enqueue(call.sid, () => fetchTwiml(stubCall, action, params)).catch(() => undefined);
    },
  });
  /** One chain of callbacks per call or message: Twilio's callbacks for one resource arrive in order. */
  const queues = new Map<string, Promise<unknown>>();
  const enqueue = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(work, work);
    queues.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  };

  const post = async (url: string, params: Record<string, string>, signature?: string): Promise<SentCallback> => {
    const signed = signature ?? twilioSignature(authToken, url, params);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signed,
        'i-twilio-idempotency-token': crypto.randomUUID(),
      },
      body: new URLSearchParams(params).toString(),
    });
    const sent = { url, params, status: response.status, body: await response.text() };
    contract.callback({ url, params, signature: signed, ownSignature: signature === undefined, status: sent.status });
    callbacks.push(sent);
    return sent;
  };

  const callParams = (call: StubCall, extra: Record<string, string> = {}) => ({
    AccountSid: accountSid,
    ApiVersion: API_VERSION,
    CallSid: call.sid,
    CallStatus: call.status,
    Called: call.to,
    Caller: call.from,
    Direction: call.direction,
    From: call.from,
    To: call.to,
    ...extra,
  });

  /**
   * Each call's status callbacks are numbered from 0 in the order fired (`SequenceNumber`, Twilio's status
   * callback parameters); a retry of one callback repeats its number.
   */
  const sequences = new Map<string, number>();
  const nextSequence = (callSid: string) => {
    const next = sequences.get(callSid) ?? 0;
    sequences.set(callSid, next + 1);
    return String(next);
  };
  const statusCallback = async (call: StubCall, event: string) => {
    if (!call.statusCallback) return;
    if (call.direction === 'outbound-api' && !call.statusCallbackEvents.includes(event)) return;
    const extra: Record<string, string> = {
      CallbackSource: 'call-progress-events',
      SequenceNumber: nextSequence(call.sid),
      Timestamp: new Date().toUTCString(),
    };
    if (event === 'completed') extra.CallDuration = String(call.answeredAt ? Math.ceil((Date.now() - call.answeredAt) / 1000) : 0);
    // A recorded call's final callback names its recording.
    if (event === 'completed' && call.record && call.answeredAt) {
      extra.RecordingUrl = addRecording(call.sid, Number(extra.CallDuration) * 1000);
      extra.RecordingSid = extra.RecordingUrl.split('/').pop()!;
      extra.RecordingDuration = extra.CallDuration;
    }
    await post(call.statusCallback, callParams(call, extra));
  };

  /**
   * The call runs new TwiML. The leg of a `<Dial>` it was running is hung up (new TwiML ends the dial and
   * the bridge); a `<Dial><Number>` dials its leg at once, a call of its own (`ParentCallSid`, listed by
   * `GET Calls.json?ParentCallSid=`), ringing until `answerTransfer`.
   */
  const setTwiml = (call: StubCall, twiml: string) => {
    if (call.dialLeg && ['queued', 'ringing', 'in-progress'].includes(call.dialLeg.status)) call.dialLeg.status = 'completed';
    call.dialLeg = undefined;
    call.twiml = twiml;
    const number = /<Dial\b[^>]*>\s*<Number\b[^>]*>([^<]*)<\/Number>/.exec(twiml)?.[1];
    if (!number) return;
    const leg: StubCall = {
      sid: sid('CA'),
      from: attr(twiml, 'Dial', 'callerId') ?? call.from,
      to: number,
      direction: 'outbound-dial',
      parentCallSid: call.sid,
      status: 'ringing',
      dateCreated: new Date(),
      statusCallbackEvents: [],
      twiml: '',
      updates: [],
    };
    calls.set(leg.sid, leg);
    call.dialLeg = leg;
  };

  /** An attribute of the first `element` in `twiml`, unescaped. */
  const attr = (twiml: string, element: string, name: string): string | undefined => {
    const match = new RegExp(`<${element}\\b[^>]*\\b${name}="([^"]*)"`).exec(twiml);
    return match ? match[1].replace(/&amp;/g, '&') : undefined;
  };

  /**
   * Runs the TwiML at `url`, fetched with the call's parameters: the same URL fetched again for the same
   * call is the same request (Twilio's voice request parameters carry no timestamp or nonce). A fetch
   * that fails (not 200) is an application error: Twilio ends the call (error 11200, no fallback URL).
   */
  const fetchTwiml = async (call: StubCall, url: string, extra: Record<string, string> = {}): Promise<SentCallback> => {
    const sent = await post(url, callParams(call, extra));
    if (sent.status !== 200) {
      if (call.status === 'in-progress') void end(call, 'completed');
      return sent;
    }
    setTwiml(call, sent.body);
    await sockets.run(call);
    return sent;
  };

  const end = (call: StubCall, status: string) =>
    enqueue(call.sid, async () => {
      if (['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(call.status)) return;
      call.status = status;
      await sockets.closeSockets(call);
      await statusCallback(call, 'completed');
      await finishApiRecordings(call);
    });

  /**
   * A call's end ends its API recordings; each reports `completed` to its `recordingStatusCallback`
   * once processed (after the call's final status), with the recording status callback parameters
   * (twilio.com/docs/voice/api/recording#recordingstatuscallback).
   */
  const finishApiRecordings = async (call: StubCall) => {
    for (const recording of call.apiRecordings ?? []) {
      if (recording.status !== 'in-progress') continue;
      recording.status = 'completed';
      const durationMs = Date.now() - recording.startedAt.getTime();
      recordings.set(recording.sid, { callSid: call.sid, durationMs });
      if (!recording.statusCallback || !recording.statusCallbackEvents.includes('completed')) continue;
      await post(recording.statusCallback, {
        AccountSid: accountSid,
        CallSid: call.sid,
        RecordingSid: recording.sid,
        RecordingUrl: `${stubUrlOf()}${base}/Recordings/${recording.sid}`,
        RecordingStatus: 'completed',
        RecordingDuration: String(Math.ceil(durationMs / 1000)),
        RecordingChannels: String(recording.channels),
        RecordingStartTime: recording.startedAt.toUTCString(),
        RecordingSource: 'StartCallRecordingAPI',
        RecordingTrack: 'both',
      });
    }
  };
  const recordingJson = (callSid: string, recording: StubApiRecording) => ({
    account_sid: accountSid,
    api_version: API_VERSION,
    call_sid: callSid,
    conference_sid: null,
    date_created: rfc2822(recording.startedAt),
    date_updated: rfc2822(recording.startedAt),
    start_time: rfc2822(recording.startedAt),
    duration: recording.status === 'completed' ? String(Math.ceil((recordings.get(recording.sid)?.durationMs ?? 0) / 1000)) : '-1',
    sid: recording.sid,
    price: null,
    price_unit: 'USD',
    status: recording.status,
    channels: recording.channels,
    source: 'StartCallRecordingAPI',
    error_code: null,
    track: 'both',
    encryption_details: null,
    uri: `${base}/Calls/${callSid}/Recordings/${recording.sid}.json`,
  });

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, status: number, code: number, message: string) =>
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  const base = `/${API_VERSION}/Accounts/${accountSid}`;
  const callJson = (call: StubCall) => ({
    sid: call.sid,
    account_sid: accountSid,
    api_version: API_VERSION,
    direction: call.direction,
    parent_call_sid: call.parentCallSid ?? null,
    from: call.from,
    to: call.to,
    status: call.status,
    date_created: rfc2822(call.dateCreated),
    uri: `${base}/Calls/${call.sid}.json`,
  });
  const messageJson = (message: StubMessage) => ({
    sid: message.sid,
    account_sid: accountSid,
    api_version: API_VERSION,
    body: message.body,
    direction: 'outbound-api',
    from: message.from,
    to: message.to,
    status: message.status,
    num_segments: '1',
    error_code: null,
    error_message: null,
    date_created: rfc2822(message.dateCreated),
    uri: `${base}/Messages/${message.sid}.json`,
  });
  const numberJson = (number: StubNumber) => ({
    sid: number.sid,
    account_sid: accountSid,
    phone_number: number.phoneNumber,
    friendly_name: number.friendlyName,
    voice_url: number.voiceUrl ?? null,
    voice_method: 'POST',
    sms_url: number.smsUrl ?? null,
    sms_method: 'POST',
    status_callback: number.statusCallback ?? '',
    status_callback_method: 'POST',
    capabilities: { voice: true, sms: true, mms: true, fax: false },
    uri: `${base}/IncomingPhoneNumbers/${number.sid}.json`,
  });
  const page = (key: string, items: unknown[], path: string) => ({
    [key]: items,
    first_page_uri: path,
    next_page_uri: null,
    previous_page_uri: null,
    page: 0,
    page_size: 50,
    start: 0,
    end: Math.max(items.length - 1, 0),
    uri: path,
  });

  /** Calls update (`POST Calls/{Sid}.json`): new TwiML or Url for a call in progress, or its end. */
  const updateCall = (res: http.ServerResponse, callSid: string, params: Record<string, string | string[]>) => {
    const call = calls.get(callSid);
    if (!call) return error(res, 404, 20404, 'The requested resource was not found');
    if (['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(call.status))
      return error(res, 400, 21220, 'Call is not in-progress. Cannot redirect.');
    const status = one(params.Status);
    // Only a call in progress runs new TwiML; a queued or ringing one can only be ended.
    if (status !== 'completed' && status !== 'canceled' && (call.status === 'queued' || call.status === 'ringing'))
      return error(res, 400, 21220, 'Call is not in-progress. Cannot redirect.');
    call.updates.push(params);
    const newCallback = one(params.StatusCallback);
    if (newCallback) call.statusCallback = newCallback;
    if (status === 'completed' || status === 'canceled') void end(call, status === 'completed' ? 'completed' : 'canceled');
    else if (one(params.Twiml)) {
      setTwiml(call, one(params.Twiml)!);
      void enqueue(call.sid, () => sockets.run(call));
    } else if (one(params.Url)) void enqueue(call.sid, () => fetchTwiml(call, one(params.Url)!));
    // Applied, but the answer never reaches the client (a reset connection).
    if (losingUpdateAnswers.delete(call.sid) || losingUpdateAnswers.delete(ANY_CALL)) return res.socket?.destroy();
    return json(res, 200, callJson(call));
  };

  let nextNumber = options.firstNumber ?? 5550100;
  const soldElsewhere = new Set<string>();
  let sellingBeforePurchase = false;
  const stubUrlOf = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const query = Object.fromEntries(url.searchParams);
      const raw = Buffer.concat(chunks).toString('utf8');
      const params = { ...query, ...parseForm(raw) };
      requests.push({ method: req.method ?? '', path: url.pathname, params });
      // Twilio's description is the judge of every request (and of the answer given below).
      const refused = contract.request(req, res, raw);
      if (refused.length > 0) return error(res, 400, 70002, `Bad request: ${refused.join('; ')}`);
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return error(res, 401, 20003, 'Authenticate');
      const path = url.pathname;
      const testable = ['IncomingPhoneNumbers', 'Messages', 'Calls'].map((resource) => `${base}/${resource}.json`);
      if (options.testCredentials && !(req.method === 'POST' && testable.includes(path)))
        return error(res, 403, 20008, 'Cannot access this resource with Test Credentials');
      // Messaging v1 (https://messaging.twilio.com, rebased here like every host): a Service's PhoneNumbers,
      // shaped as twilio/twilio-oai spec/json/twilio_messaging_v1.json `messaging.v1.service.phone_number`.
      const servicePath = /^\/v1\/Services\/(MG[0-9a-f]{32})\/PhoneNumbers(?:\/(PN[0-9a-f]{32}))?$/.exec(path);
      if (servicePath) {
        const pool = messagingServices.get(servicePath[1]);
        if (!pool) return error(res, 404, 20404, 'The requested resource was not found');
        const phoneNumberJson = (number: StubNumber) => ({
          sid: number.sid,
          account_sid: accountSid,
          service_sid: servicePath[1],
          date_created: new Date().toISOString(),
          date_updated: new Date().toISOString(),
          phone_number: number.phoneNumber,
          country_code: 'US',
          capabilities: ['SMS', 'MMS', 'Voice'],
          url: `https://messaging.twilio.com/v1/Services/${servicePath[1]}/PhoneNumbers/${number.sid}`,
        });
        if (req.method === 'GET' && servicePath[2]) {
          const number = numbers.get(servicePath[2]);
          if (!number || !pool.has(number.sid)) return error(res, 404, 20404, 'The requested resource was not found');
          return json(res, 200, phoneNumberJson(number));
        }
        if (req.method === 'POST' && !servicePath[2]) {
          const number = numbers.get(one(params.PhoneNumberSid) ?? '');
          // twilio.com/docs/api/errors/21421: adding an invalid Phone Number SID to a Messaging Service.
          if (!number) return error(res, 400, 21421, 'Phone Number is invalid');
          // twilio.com/docs/api/errors/80104 (example message); the status is not documented.
          if (pool.has(number.sid)) return error(res, 409, 80104, 'PhoneNumber has already been added to Service');
          // twilio.com/docs/api/errors/21712: a number belongs to one Messaging Service at a time.
          if ([...messagingServices.values()].some((other) => other.has(number.sid)))
            return error(res, 409, 21712, 'Phone Number or Short Code is associated with another Messaging Service.');
          pool.add(number.sid);
          return json(res, 201, phoneNumberJson(number));
        }
      }
      if (!path.startsWith(`${base}/`)) return error(res, 404, 20404, 'The requested resource was not found');
      const rest = path.slice(base.length);
      let match: RegExpExecArray | null;

      if ((match = /^\/AvailablePhoneNumbers\/([A-Z]{2})\.json$/.exec(rest)) && req.method === 'GET') {
        const country = FOR_SALE[match[1]];
        if (!country) return error(res, 404, 20404, 'The requested resource was not found');
        const uris = Object.keys(country).map((type) => [
          SUBRESOURCE_KEYS[type as keyof typeof SUBRESOURCE_KEYS],
          `${base}/AvailablePhoneNumbers/${match![1]}/${type}.json`,
        ]);
        return json(res, 200, {
          country_code: match[1],
          country: match[1],
          uri: `${base}/AvailablePhoneNumbers/${match[1]}.json`,
          beta: false,
          subresource_uris: Object.fromEntries(uris),
        });
      }
      if ((match = /^\/AvailablePhoneNumbers\/([A-Z]{2})\/(Local|TollFree|Mobile)\.json$/.exec(rest)) && req.method === 'GET') {
        const [, countryCode, type] = match;
        const prefix = FOR_SALE[countryCode]?.[type as 'Local' | 'TollFree' | 'Mobile'];
        if (!prefix) return error(res, 404, 20404, 'The requested resource was not found');
        const areaCode = one(query.AreaCode);
        const contains = one(query.Contains);
        const start = areaCode ? `+1${areaCode}` : contains?.startsWith('+') ? contains : prefix;
        const soldOut = areaCode === SOLD_OUT_AREA_CODE || start.endsWith(SOLD_OUT_AREA_CODE);
        const regulated = REGULATED_COUNTRIES[countryCode];
        const taken = (n: string) => soldElsewhere.has(n) || [...numbers.values()].some((owned) => owned.phoneNumber === n);
        const offered: string[] = [];
        for (let n = nextNumber; !soldOut && offered.length < 2; n += 1) if (!taken(`${start}${n}`)) offered.push(`${start}${n}`);
        const numbersFound = offered.map((phoneNumber) => ({
          friendly_name: phoneNumber,
          phone_number: phoneNumber,
          iso_country: countryCode,
          capabilities: { voice: true, sms: true, mms: true, fax: false },
          address_requirements: regulated ? 'local' : 'none',
          beta: false,
        }));
        return json(res, 200, page('available_phone_numbers', numbersFound.slice(0, Number(query.PageSize ?? 50)), path));
      }
      if (rest === '/IncomingPhoneNumbers.json' && req.method === 'GET') {
        const found = [...numbers.values()].filter(
          (n) =>
            (query.FriendlyName === undefined || n.friendlyName === query.FriendlyName) &&
            (query.PhoneNumber === undefined || n.phoneNumber === query.PhoneNumber),
        );
        return json(res, 200, page('incoming_phone_numbers', found.map(numberJson), path));
      }
      if (rest === '/IncomingPhoneNumbers.json' && req.method === 'POST') {
        const phoneNumber = one(params.PhoneNumber);
        if (!phoneNumber) return error(res, 400, 21421, 'PhoneNumber is required');
        if (sellingBeforePurchase) {
          sellingBeforePurchase = false;
          soldElsewhere.add(phoneNumber);
        }
        // Test credentials change no account state (twilio.com/docs/iam/test-credentials): the magic number is bought every time.
        const owned = !options.testCredentials && [...numbers.values()].some((n) => n.phoneNumber === phoneNumber);
        if (soldElsewhere.has(phoneNumber) || owned) return error(res, 400, 21422, 'Phone number is not available');
        const regulated = Object.values(REGULATED_COUNTRIES).find((country) => phoneNumber.startsWith(country.prefix));
        if (regulated && !/^AD[0-9a-f]{32}$/.test(one(params.AddressSid) ?? ''))
          return error(res, 400, 21631, 'Phone Number Requires an Address');
        if (regulated && !/^BU[0-9a-f]{32}$/.test(one(params.BundleSid) ?? ''))
          return error(res, 400, 21649, 'Phone Number Requires a Bundle');
        nextNumber += 2;
        const number: StubNumber = {
          sid: sid('PN'),
          phoneNumber,
          friendlyName: one(params.FriendlyName) ?? phoneNumber,
          voiceUrl: one(params.VoiceUrl),
          smsUrl: one(params.SmsUrl),
          statusCallback: one(params.StatusCallback),
        };
        numbers.set(number.sid, number);
        return json(res, 201, numberJson(number));
      }
      if ((match = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(rest)) && req.method === 'POST') {
        // UpdateIncomingPhoneNumber: only the parameters sent change; an empty URL clears it.
        const number = numbers.get(match[1]);
        if (!number) return error(res, 404, 20404, 'The requested resource was not found');
        const set = (name: string, field: 'voiceUrl' | 'smsUrl' | 'statusCallback') => {
          const value = one(params[name]);
          if (value !== undefined) number[field] = value === '' ? undefined : value;
        };
        set('VoiceUrl', 'voiceUrl');
        set('SmsUrl', 'smsUrl');
        set('StatusCallback', 'statusCallback');
        number.friendlyName = one(params.FriendlyName) ?? number.friendlyName;
        return json(res, 200, numberJson(number));
      }
      if ((match = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(rest)) && req.method === 'DELETE') {
        if (!numbers.delete(match[1])) return error(res, 404, 20404, 'The requested resource was not found');
        for (const pool of messagingServices.values()) pool.delete(match[1]);
        res.writeHead(204);
        return res.end();
      }
      // Lists are newest first, filtered by To and From as Twilio's list parameters do.
      const matching = <T extends { to: string; from: string; dateCreated: Date }>(items: Iterable<T>) =>
        [...items]
          .filter(
            (item) =>
              (query.To === undefined || item.to === query.To) &&
              (query.From === undefined || item.from === query.From) &&
              (query.ParentCallSid === undefined || (item as { parentCallSid?: string }).parentCallSid === query.ParentCallSid),
          )
          .sort((a, b) => b.dateCreated.getTime() - a.dateCreated.getTime())
          .slice(0, Number(query.PageSize ?? 50));
      if (rest === '/Calls.json' && req.method === 'GET')
        return json(res, 200, page('calls', matching(calls.values()).map(callJson), path));
      if (rest === '/Messages.json' && req.method === 'GET')
        return json(res, 200, page('messages', matching(messages.values()).map(messageJson), path));
      if (rest === '/Calls.json' && req.method === 'POST') {
        const from = one(params.From);
        const to = one(params.To);
        const callUrl = one(params.Url);
        if (!from || !to || (!callUrl && !one(params.Twiml))) return error(res, 400, 21205, 'Url, Twiml or ApplicationSid is required');
        const events = params.StatusCallbackEvent;
        const call: StubCall = {
          sid: sid('CA'),
          from,
          to,
          direction: 'outbound-api',
          status: 'queued',
          dateCreated: new Date(),
          url: callUrl,
          statusCallback: one(params.StatusCallback),
          statusCallbackEvents: events === undefined ? ['completed'] : Array.isArray(events) ? events : [events],
          twiml: one(params.Twiml) ?? '',
          record: one(params.Record) === 'true',
          machineDetection: one(params.MachineDetection),
          ...(one(params.AsyncAmd) === 'true' ? { asyncAmdStatusCallback: one(params.AsyncAmdStatusCallback) } : {}),
          updates: [],
        };
        calls.set(call.sid, call);
        return created(res, 'Calls', callJson(call));
      }
      if ((match = /^\/Calls\/(CA[0-9a-f]{32})\.json$/.exec(rest)) && req.method === 'POST') {
        const stall = stalledUpdates.get(match[1]);
        if (stall) {
          stalledUpdates.delete(match[1]);
          stall.stalled();
          res.once('close', () => {
            if (!res.writableFinished) stall.abandoned();
          });
          void stall.release.then(() => updateCall(res, match![1], params));
          return;
        }
        return updateCall(res, match[1], params);
      }
      if ((match = /^\/Calls\/(CA[0-9a-f]{32})\/Recordings\.json$/.exec(rest))) {
        const call = calls.get(match[1]);
        if (!call) return error(res, 404, 20404, 'The requested resource was not found');
        if (req.method === 'GET')
          return json(
            res,
            200,
            page(
              'recordings',
              (call.apiRecordings ?? []).map((r) => recordingJson(call.sid, r)),
              path,
            ),
          );
        if (req.method !== 'POST') return error(res, 405, 20004, 'Method not allowed');
        if (call.status !== 'in-progress') return error(res, 400, 21220, 'Call is not in-progress.');
        const events = params.RecordingStatusCallbackEvent;
        const recording: StubApiRecording = {
          sid: sid('RE'),
          status: 'in-progress',
          startedAt: new Date(),
          channels: one(params.RecordingChannels) === 'dual' ? 2 : 1,
          statusCallback: one(params.RecordingStatusCallback),
          // Twilio's default is `completed`; the SDK joins several events with spaces.
          statusCallbackEvents: (Array.isArray(events) ? events : (events ?? 'completed').split(' ')).filter(Boolean),
        };
        (call.apiRecordings ??= []).push(recording);
        return json(res, 201, recordingJson(call.sid, recording));
      }
      // A Recording's media: the resource's URL with `.wav` (audio/x-wav) or `.mp3` (audio/mpeg) appended.
      if ((match = /^\/Recordings\/(RE[0-9a-f]{32})\.(wav|mp3)$/.exec(rest)) && req.method === 'GET') {
        const recording = recordings.get(match[1]);
        if (!recording) return error(res, 404, 20404, 'The requested resource was not found');
        const wav = wavRecording(recording.durationMs);
        // The stub has no MP3 encoder: `.mp3` answers the same samples, labelled as Twilio labels MP3.
        const type = recording.contentType ?? (match[2] === 'wav' ? 'audio/x-wav' : 'audio/mpeg');
        res.writeHead(200, { 'content-type': type, 'content-length': String(wav.length) });
        wav.body.pipe(res);
        return;
      }
      // Recording delete (twilio-oai `DeleteRecording`, test/support/twilioContractSchemas.ts): 204 without a body, then the
      // Recording and its media are gone; one Twilio does not have (deleted before included) is its 404 (20404).
      if ((match = /^\/Recordings\/(RE[0-9a-f]{32})\.json$/.exec(rest)) && req.method === 'DELETE') {
        if (!recordings.delete(match[1])) return error(res, 404, 20404, 'The requested resource was not found');
        res.writeHead(204);
        res.end();
        return;
      }
      if (rest === '/Messages.json' && req.method === 'POST') {
        const to = one(params.To);
        const from = one(params.From);
        const body = one(params.Body);
        if (!to || !/^\+[1-9][0-9]{6,14}$/.test(to))
          return error(res, 400, 21211, `The 'To' number ${to ?? ''} is not a valid phone number.`);
        if (!from || body === undefined) return error(res, 400, 21603, "A 'From' phone number is required.");
        const service = one(params.MessagingServiceSid);
        const message: StubMessage = {
          sid: sid('SM'),
          from,
          to,
          // Smart Encoding replaces characters with GSM-7 look-alikes (twilio.com/docs/sms/services/smart-encoding-char-list). That the
          // Message resource then lists the replaced body is an assumption (undocumented): the adapter never matches on the body.
          body: service && smartEncoding.has(service) ? body.replace(/[‘’]/g, "'").replace(/[“”]/g, '"') : body,
          status: 'queued',
          dateCreated: new Date(),
          statusCallback: one(params.StatusCallback),
          messagingServiceSid: one(params.MessagingServiceSid),
        };
        messages.set(message.sid, message);
        return created(res, 'Messages', messageJson(message));
      }
      return error(res, 404, 20404, 'The requested resource was not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stubUrl = stubUrlOf();

  const findCall = (callSid: string) => {
    const call = calls.get(callSid);
    if (!call) throw new Error(`the stub has no call ${callSid}`);
    return call;
  };

  return {
    recordings,
    addRecording,
    url: stubUrl,
    accountSid,
    authToken,
    calls,
    messages,
    numbers,
    messagingServices,
    addMessagingService(serviceOptions = {}) {
      const serviceSid = sid('MG');
      messagingServices.set(serviceSid, new Set());
      if (serviceOptions.smartEncoding) smartEncoding.add(serviceSid);
      return serviceSid;
    },
    callbacks,
    requests,
    sellBeforeNextPurchase() {
      sellingBeforePurchase = true;
    },
    own(phoneNumber) {
      const number: StubNumber = { sid: sid('PN'), phoneNumber, friendlyName: `the operator's ${phoneNumber}` };
      numbers.set(number.sid, number);
      return number;
    },
    loseNextCreateAnswer(resource) {
      losingAnswers.add(resource);
    },
    async settled(callSid) {
      await (callSid ? queues.get(callSid) : Promise.all(queues.values()));
    },
    ring(callSid) {
      const call = findCall(callSid);
      return enqueue(callSid, async () => {
        call.status = 'ringing';
        await statusCallback(call, 'ringing');
      });
    },
    answer(callSid, answeredBy = 'human') {
      const call = findCall(callSid);
      return enqueue(callSid, async () => {
        call.status = 'in-progress';
        call.answeredAt = Date.now();
        await statusCallback(call, 'answered');
        const syncVerdict = call.machineDetection && !call.asyncAmdStatusCallback;
        if (call.url) await fetchTwiml(call, call.url, syncVerdict ? { AnsweredBy: answeredBy } : {});
      });
    },
    amdStatus(callSid, answeredBy) {
      const call = findCall(callSid);
      if (!call.asyncAmdStatusCallback || call.answeredAt === undefined)
        throw new Error(`${callSid} has no asynchronous detection under way`);
      // DetectMessageEnd reports a machine only at its greeting's end; Enable only at its start.
      const endOnly = call.machineDetection === 'DetectMessageEnd';
      if (answeredBy.startsWith('machine_') && endOnly !== answeredBy.startsWith('machine_end_'))
        throw new Error(`MachineDetection=${call.machineDetection} never reports ${answeredBy}`);
      const callback = call.asyncAmdStatusCallback;
      const duration = String(Date.now() - call.answeredAt);
      return enqueue(callSid, () =>
        post(callback, { AccountSid: accountSid, CallSid: call.sid, AnsweredBy: answeredBy, MachineDetectionDuration: duration }),
      );
    },
    answerTransfer(callSid) {
      const call = findCall(callSid);
      return enqueue(callSid, async () => {
        const callback = attr(call.twiml, 'Number', 'statusCallback');
        const leg = call.dialLeg;
        if (!callback || !leg) throw new Error(`call ${callSid} is not dialling with a Number status callback: ${call.twiml}`);
        leg.status = 'in-progress';
        leg.answeredAt = Date.now();
        await post(callback, {
          AccountSid: accountSid,
          ApiVersion: API_VERSION,
          CallSid: leg.sid,
          ParentCallSid: call.sid,
          CallStatus: 'in-progress',
          Direction: 'outbound-dial',
          From: leg.from,
          To: leg.to,
          CallbackSource: 'call-progress-events',
          SequenceNumber: nextSequence(leg.sid),
          Timestamp: new Date().toUTCString(),
        });
      });
    },
    endTransfer(callSid, status) {
      const call = findCall(callSid);
      return enqueue(callSid, async () => {
        const action = attr(call.twiml, 'Dial', 'action');
        const leg = call.dialLeg;
        if (!action || !leg) throw new Error(`call ${callSid} is not dialling: ${call.twiml}`);
        const dialStatus = leg.status === 'in-progress' ? 'completed' : (status ?? 'no-answer');
        leg.status = dialStatus;
        call.dialLeg = undefined;
        await fetchTwiml(call, action, {
          DialCallStatus: dialStatus,
          DialCallSid: leg.sid,
          DialCallDuration: dialStatus === 'completed' ? '1' : '0',
        });
        // A `<Redirect>` is followed (a failed transfer goes back to the call's own TwiML).
        const redirect = /<Response><Redirect\b[^>]*>([^<]*)<\/Redirect>/.exec(call.twiml)?.[1];
        if (redirect) await fetchTwiml(call, redirect.replace(/&amp;/g, '&'));
        // TwiML that ends the call (`<Hangup/>`, or nothing left to run): the parent call completes.
        if (call.twiml.includes('<Hangup')) {
          call.status = 'completed';
          await statusCallback(call, 'completed');
        }
      });
    },
    remoteHangUp(callSid) {
      return end(findCall(callSid), 'completed');
    },
    endUnanswered(callSid, status) {
      return end(findCall(callSid), status);
    },
    finishSpeech(callSid) {
      const call = findCall(callSid);
      return enqueue(callSid, () => sockets.finishSpeech(call));
    },
    callerSays(callSid, text, language) {
      const call = findCall(callSid);
      return enqueue(callSid, () => sockets.callerSays(call, text, language));
    },
    dropRelay(callSid) {
      sockets.dropRelay(findCall(callSid));
    },
    talk(callSid, frames) {
      const call = findCall(callSid);
      return enqueue(callSid, () => sockets.talk(call, frames));
    },
    async incomingCall(from, to) {
      const number = [...numbers.values()].find((n) => n.phoneNumber === to);
      if (!number?.voiceUrl) throw new Error(`the stub has no number ${to} with a VoiceUrl`);
      const call: StubCall = {
        sid: sid('CA'),
        from,
        to,
        direction: 'inbound',
        status: 'ringing',
        dateCreated: new Date(),
        statusCallback: number.statusCallback,
        statusCallbackEvents: ['completed'],
        twiml: '',
        updates: [],
      };
      calls.set(call.sid, call);
      await enqueue(call.sid, async () => {
        await fetchTwiml(call, number.voiceUrl!);
        if (call.twiml && !call.twiml.includes('<Reject')) {
          call.status = 'in-progress';
          call.answeredAt = Date.now();
        } else call.status = call.twiml.includes('<Reject') ? 'busy' : 'failed';
      });
      return call;
    },
    async incomingSms(from, to, body) {
      const number = [...numbers.values()].find((n) => n.phoneNumber === to);
      if (!number?.smsUrl) throw new Error(`the stub has no number ${to} with an SmsUrl`);
      const messageSid = sid('SM');
      return post(number.smsUrl, {
        AccountSid: accountSid,
        ApiVersion: API_VERSION,
        Body: body,
        From: from,
        To: to,
        MessageSid: messageSid,
        SmsMessageSid: messageSid,
        SmsSid: messageSid,
        SmsStatus: 'received',
        NumMedia: '0',
        NumSegments: '1',
      });
    },
    messageStatus(messageSid, status, errorCode) {
      const message = messages.get(messageSid);
      if (!message) throw new Error(`the stub has no message ${messageSid}`);
      return enqueue(messageSid, async () => {
        message.status = status;
        if (!message.statusCallback) return undefined;
        return post(message.statusCallback, {
          AccountSid: accountSid,
          ApiVersion: API_VERSION,
          From: message.from,
          To: message.to,
          MessageSid: messageSid,
          SmsSid: messageSid,
          MessageStatus: status,
          SmsStatus: status,
          ...(errorCode ? { ErrorCode: errorCode } : {}),
        });
      });
    },
    loseNextUpdateAnswer(callSid = ANY_CALL) {
      losingUpdateAnswers.add(callSid);
    },
    stallNextUpdate(callSid) {
      let stalled!: () => void;
      let abandoned!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => (stalled = resolve));
      const gaveUp = new Promise<void>((resolve) => (abandoned = resolve));
      stalledUpdates.set(callSid, { stalled, abandoned, release: new Promise<void>((resolve) => (release = resolve)) });
      return { stalled: arrived, abandoned: gaveUp, release };
    },
    pauseEnds(callSid) {
      const call = findCall(callSid);
      return enqueue(callSid, async () => {
        const redirect = /^(?:<\?xml[^>]*>)?<Response><Pause\b[^>]*\/><Redirect\b[^>]*>([^<]*)<\/Redirect><\/Response>$/.exec(call.twiml);
        if (!redirect) throw new Error(`call ${callSid} is not pausing before a redirect: ${call.twiml}`);
        return fetchTwiml(call, redirect[1].replace(/&amp;/g, '&'));
      });
    },
    sign: (url, params, token = authToken) => twilioSignature(token, url, params),
    post,
    contract,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      contract.close();
    },
  };
}

/** The Twilio adapter on the stub's account, live, with its own in-memory create record and no relay unless given; `options` overrides. */
export function twilioCarrierOn(stub: TwilioStub, options: Partial<TwilioCarrierOptions> & { publicBaseUrl: string }): TwilioCarrier {
  return new TwilioCarrier({
    account: { accountSid: stub.accountSid, authToken: stub.authToken },
    mode: 'live',
    apiBaseUrl: stub.url,
    relay: { send: async () => undefined },
    attempts: memoryCreateAttempts(),
    ...options,
  });
}
