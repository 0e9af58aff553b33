import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
 */

export interface StubCall {
  sid: string;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound-api';
  status: string;
  url?: string;
  statusCallback?: string;
  statusCallbackEvents: string[];
  /** The TwiML the call is running. */
  twiml: string;
  answeredAt?: number;
  /** Created with `Record=true`. */
  record?: boolean;
  updates: Array<Record<string, string | string[]>>;
  /** The ConversationRelay session of the call's `<Connect><ConversationRelay>`, while it runs. */
  relay?: StubRelay;
  /** The bidirectional stream of the call's `<Connect><Stream>`, while it runs. */
  media?: StubMediaStream;
}

export interface StubMessage {
  sid: string;
  from: string;
  to: string;
  body: string;
  status: string;
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
  /** Every REST request received (method, path, form params). */
  requests: Array<{ method: string; path: string; params: Record<string, string | string[]> }>;
  /** Waits for the callbacks queued for a call so far. */
  settled(callSid?: string): Promise<void>;
  /** Outbound call: the callee's phone rings (`ringing` status callback). */
  ring(callSid: string): Promise<void>;
  /** Outbound call: the callee answers; Twilio fetches the call's Url and runs its TwiML. */
  answer(callSid: string): Promise<void>;
  /** The remote party hangs up. */
  remoteHangUp(callSid: string): Promise<void>;
  /** An outbound call ends unanswered, with Twilio's final status. */
  endUnanswered(callSid: string, status: 'busy' | 'no-answer' | 'failed'): Promise<void>;
  /** What ConversationRelay is saying ends (`agentSpeaking` off). */
  finishSpeech(callSid: string): Promise<void>;
  /** The caller speaks to ConversationRelay (an `interrupt` first when it is speaking, then the `prompt`). */
  callerSays(callSid: string, text: string): Promise<void>;
  /** The call's ConversationRelay socket is lost; Twilio goes on at the `<Connect action>`. */
  dropRelay(callSid: string): void;
  /** The caller's audio on the call's Media Stream (µ-law 8 kHz frames). */
  talk(callSid: string, frames: Buffer[]): Promise<void>;
  /** Someone calls one of our numbers: Twilio posts to its VoiceUrl. */
  incomingCall(from: string, to: string): Promise<StubCall>;
  /** Someone texts one of our numbers: Twilio posts to its SmsUrl. */
  incomingSms(from: string, to: string, body: string): Promise<SentCallback>;
  /** A receipt for an outbound message (`sent`, `delivered`, `undelivered`, `failed`). */
  messageStatus(messageSid: string, status: string, errorCode?: string): Promise<SentCallback | undefined>;
  /** Signs like Twilio (for forging tests). */
  sign(url: string, params: Record<string, string>, authToken?: string): string;
  /** Posts a callback as Twilio would (signed with the stub's auth token unless `signature` is given). */
  post(url: string, params: Record<string, string>, signature?: string): Promise<SentCallback>;
  close(): Promise<void>;
}

const API_VERSION = '2010-04-01';

export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return crypto.createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

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

export async function startTwilioStub(options: { accountSid?: string; authToken?: string } = {}): Promise<TwilioStub> {
  const accountSid = options.accountSid ?? sid('AC');
  const authToken = options.authToken ?? crypto.randomBytes(16).toString('hex');
  const calls = new Map<string, StubCall>();
  const messages = new Map<string, StubMessage>();
  const numbers = new Map<string, StubNumber>();
  const callbacks: SentCallback[] = [];
  const requests: TwilioStub['requests'] = [];
  const sockets = stubSockets({
    accountSid,
    authToken,
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
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilioSignature(authToken, url, params),
        'i-twilio-idempotency-token': crypto.randomUUID(),
      },
      body: new URLSearchParams(params).toString(),
    });
    const sent = { url, params, status: response.status, body: await response.text() };
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

  let sequence = 0;
  const statusCallback = async (call: StubCall, event: string) => {
    if (!call.statusCallback) return;
    if (call.direction === 'outbound-api' && !call.statusCallbackEvents.includes(event)) return;
    const extra: Record<string, string> = {
      CallbackSource: 'call-progress-events',
      SequenceNumber: String(sequence++),
      Timestamp: new Date().toUTCString(),
    };
    if (event === 'completed') extra.CallDuration = String(call.answeredAt ? Math.ceil((Date.now() - call.answeredAt) / 1000) : 0);
    // A recorded call's final callback names its recording.
    if (event === 'completed' && call.record && call.answeredAt) {
      const recordingSid = sid('RE');
      extra.RecordingSid = recordingSid;
      extra.RecordingUrl = `${stubUrlOf()}${base}/Recordings/${recordingSid}`;
      extra.RecordingDuration = extra.CallDuration;
    }
    await post(call.statusCallback, callParams(call, extra));
  };

  /** Runs the TwiML at `url` (fetched with the call's parameters). */
  const fetchTwiml = async (call: StubCall, url: string, extra: Record<string, string> = {}) => {
    const sent = await post(url, callParams(call, extra));
    if (sent.status !== 200) return;
    call.twiml = sent.body;
    await sockets.run(call);
  };

  const end = (call: StubCall, status: string) =>
    enqueue(call.sid, async () => {
      if (['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(call.status)) return;
      call.status = status;
      await sockets.closeSockets(call);
      await statusCallback(call, 'completed');
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
    from: call.from,
    to: call.to,
    status: call.status,
    date_created: new Date().toUTCString(),
    uri: `${base}/Calls/${call.sid}.json`,
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

  let nextNumber = 5550100;
  const stubUrlOf = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const query = Object.fromEntries(url.searchParams);
      const params = { ...query, ...parseForm(Buffer.concat(chunks).toString('utf8')) };
      requests.push({ method: req.method ?? '', path: url.pathname, params });
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return error(res, 401, 20003, 'Authenticate');
      const path = url.pathname;
      if (!path.startsWith(`${base}/`)) return error(res, 404, 20404, 'The requested resource was not found');
      const rest = path.slice(base.length);
      let match: RegExpExecArray | null;

      if ((match = /^\/AvailablePhoneNumbers\/([A-Z]{2})\/Local\.json$/.exec(rest)) && req.method === 'GET') {
        const numbersFound = [0, 1].map((i) => ({
          friendly_name: `(555) 555-${nextNumber + i}`,
          phone_number: `+1555${nextNumber + i}`,
          iso_country: match![1],
          capabilities: { voice: true, SMS: true, MMS: true },
          address_requirements: 'none',
          beta: false,
        }));
        return json(res, 200, page('available_phone_numbers', numbersFound, path));
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
        if ([...numbers.values()].some((n) => n.phoneNumber === phoneNumber))
          return error(res, 400, 21422, 'Phone number is not available');
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
      if ((match = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(rest)) && req.method === 'DELETE') {
        if (!numbers.delete(match[1])) return error(res, 404, 20404, 'The requested resource was not found');
        res.writeHead(204);
        return res.end();
      }
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
          url: callUrl,
          statusCallback: one(params.StatusCallback),
          statusCallbackEvents: events === undefined ? ['completed'] : Array.isArray(events) ? events : [events],
          twiml: one(params.Twiml) ?? '',
          record: one(params.Record) === 'true',
          updates: [],
        };
        calls.set(call.sid, call);
        return json(res, 201, callJson(call));
      }
      if ((match = /^\/Calls\/(CA[0-9a-f]{32})\.json$/.exec(rest)) && req.method === 'POST') {
        const call = calls.get(match[1]);
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
          call.twiml = one(params.Twiml)!;
          void enqueue(call.sid, () => sockets.run(call));
        } else if (one(params.Url)) void enqueue(call.sid, () => fetchTwiml(call, one(params.Url)!));
        return json(res, 200, callJson(call));
      }
      if ((match = /^\/Calls\/(CA[0-9a-f]{32})\/Recordings\.json$/.exec(rest)) && req.method === 'POST') {
        if (!calls.has(match[1])) return error(res, 404, 20404, 'The requested resource was not found');
        return json(res, 201, { sid: sid('RE'), call_sid: match[1], status: 'in-progress', channels: 1, source: 'StartCallRecordingAPI' });
      }
      if (rest === '/Messages.json' && req.method === 'POST') {
        const to = one(params.To);
        const from = one(params.From);
        const body = one(params.Body);
        if (!to || !/^\+[1-9][0-9]{6,14}$/.test(to))
          return error(res, 400, 21211, `The 'To' number ${to ?? ''} is not a valid phone number.`);
        if (!from || body === undefined) return error(res, 400, 21603, "A 'From' phone number is required.");
        const message: StubMessage = { sid: sid('SM'), from, to, body, status: 'queued', statusCallback: one(params.StatusCallback) };
        messages.set(message.sid, message);
        return json(res, 201, {
          sid: message.sid,
          account_sid: accountSid,
          api_version: API_VERSION,
          body,
          direction: 'outbound-api',
          from,
          to,
          status: 'queued',
          num_segments: '1',
          error_code: null,
          error_message: null,
          uri: `${base}/Messages/${message.sid}.json`,
        });
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
    url: stubUrl,
    accountSid,
    authToken,
    calls,
    messages,
    numbers,
    callbacks,
    requests,
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
    answer(callSid) {
      const call = findCall(callSid);
      return enqueue(callSid, async () => {
        call.status = 'in-progress';
        call.answeredAt = Date.now();
        await statusCallback(call, 'answered');
        if (call.url) await fetchTwiml(call, call.url);
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
    callerSays(callSid, text) {
      const call = findCall(callSid);
      return enqueue(callSid, () => sockets.callerSays(call, text));
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
    sign: (url, params, token = authToken) => twilioSignature(token, url, params),
    post,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
