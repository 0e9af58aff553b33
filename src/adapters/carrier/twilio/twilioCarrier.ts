import type twilio from 'twilio';
import type * as port from '../port';
import { CarrierRejectedError } from '../port';
import { TWILIO_CALLBACK_PATHS, twilioCallbackUrl } from './callbacks/paths';
import { createOnce, type CreateAttempts } from './createAttempts';
import { openExpectedStream, type MediaSocketServer } from '../mediaSocketServer';
import type { TwilioRelayCommands } from './callbacks/relayCommands';
import { streamTwiml } from './callbacks/twiml';
import { verifyTwilioUpgrade } from './callbacks/verify';
import { transferTwiml } from './callbacks/transfer';
import { transferCarrierId } from './callbacks/transferRecord';
import { twilioClient, type TwilioAccount } from './client';
import { TwilioMediaStream } from './media';
import { deleteTwilioRecording, openTwilioRecording, startCallRecording } from './recordings';
import { TWILIO_CALL_NOT_IN_PROGRESS, twilioCall } from './requests';
import { twilioVoice } from './voices';
import { TwilioNumbers } from './numbers';

export { TWILIO_TEST_NUMBER } from './numbers';

export interface TwilioCarrierOptions {
  account: TwilioAccount;
  /** Where Twilio reaches the API (every callback URL is built on it). */
  publicBaseUrl: string;
  /** `live` searches and buys real numbers; `test` (test credentials) only ever buys TWILIO_TEST_NUMBER. */
  mode: 'live' | 'test';
  /** Replaces https://api.twilio.com (tests: the contract stub). */
  apiBaseUrl?: string;
  timeoutMs?: number;
  /** The way to the call's ConversationRelay session, held by an API instance (Postgres in a deployment). */
  relay: TwilioRelayCommands;
  /** The worker's listener for Media Streams (TWILIO_MEDIA_URL/_PORT); without it audio lines are refused. */
  media?: MediaSocketServer;
  /** The record of Calls and Messages creates shared by every worker (Postgres in a deployment). */
  attempts: CreateAttempts;
  /**
   * The Messaging Service (`MG…`, registered for US A2P 10DLC) every bought number joins and every SMS is
   * sent through (./messagingService.ts). Live only: test credentials cannot use Messaging Services.
   */
  messagingServiceSid?: string;
  /**
   * Where Twilio requires them (most countries outside the US and Canada), the Address and the Regulatory
   * Bundle a number of each country is bought with (ISO 3166 alpha-2 → `AD…` / `BU…`). A country without
   * them is refused by Twilio (21631, 21649), which the refusal names with the setting to fill in.
   */
  regulation?: { addressSids?: Readonly<Record<string, string>>; bundleSids?: Readonly<Record<string, string>> };
}

/**
 * Twilio through the official `twilio` package (docs/carriers.md, "Carrier: Twilio"). Calls run
 * TwiML served by the API (src/adapters/carrier/twilio/callbacks/twiml.ts): webhook and hosted calls
 * ConversationRelay, whose WebSocket an API instance holds; speech and digits go to it as commands
 * (./callbacks/relayCommands.ts). Twilio has no idempotency key on Calls or Messages create: each create
 * is recorded first (./createAttempts.ts), and a retry after a lost answer looks for what the first
 * attempt created before it sends again.
 */
export class TwilioCarrier implements port.CarrierAdapter {
  private readonly client: twilio.Twilio;

  /** How long a create may still get its answer: the request's timeout and a margin. */
  private readonly runningMs: number;

  private readonly numbers: TwilioNumbers;

  constructor(private readonly options: TwilioCarrierOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.client = twilioClient(options.account, { apiBaseUrl: options.apiBaseUrl, timeoutMs });
    this.runningMs = timeoutMs + 5_000;
    this.numbers = new TwilioNumbers(this.client, {
      mode: options.mode,
      messagingServiceSid: options.messagingServiceSid,
      regulation: options.regulation,
      webhooks: {
        voiceUrl: this.url(TWILIO_CALLBACK_PATHS.voice),
        voiceMethod: 'POST',
        smsUrl: this.url(TWILIO_CALLBACK_PATHS.sms),
        smsMethod: 'POST',
        statusCallback: this.url(TWILIO_CALLBACK_PATHS.callStatus),
        statusCallbackMethod: 'POST',
      },
    });
  }

  provisionNumber(request: port.ProvisionNumberRequest): Promise<port.ProvisionedNumber> {
    return this.numbers.provision(request);
  }

  releaseNumber(request: port.ReleaseNumberRequest): Promise<void> {
    return this.numbers.release(request);
  }

  async placeCall(request: port.PlaceCallRequest): Promise<{ carrierCallId: string }> {
    const carrierCallId = await createOnce(this.options.attempts, 'call', request.callId, {
      runningMs: this.runningMs,
      // The line has one call at a time, so a call from its number to this one created while an earlier attempt ran is that attempt's.
      find: this.lookups((since, until) =>
        twilioCall('look for a placed call', async () =>
          createdWithin(await this.client.calls.list({ from: request.from, to: request.to, limit: 20 }), since, until),
        ),
      ),
      create: () =>
        twilioCall('place a call', async () => {
          const call = await this.client.calls.create({
            from: request.from,
            to: request.to,
            url: this.url(TWILIO_CALLBACK_PATHS.connect, { call_id: request.callId }),
            method: 'POST',
            statusCallback: this.url(TWILIO_CALLBACK_PATHS.callStatus, { call_id: request.callId }),
            statusCallbackMethod: 'POST',
            // `answered` is reported when the call fetches `connect`; the end comes as `completed` whatever the final status.
            statusCallbackEvent: ['ringing', 'completed'],
            ...(request.record ? { record: true } : {}),
            ...machineDetectionOf(request, this.url(TWILIO_CALLBACK_PATHS.amdStatus, { call_id: request.callId })),
          });
          return call.sid;
        }),
    });
    return { carrierCallId };
  }

  /** Twilio refuses to update a call that has ended (or is unknown): hanging it up has then succeeded. */
  async hangUp(request: { carrierCallId: string }): Promise<void> {
    await this.endCall('hang up', request.carrierCallId, {
      status: 'completed',
      // Twilio's final callback does not say who hung up: this URL does.
      statusCallback: this.url(TWILIO_CALLBACK_PATHS.callStatus, { ended_by: 'switchboard' }),
      statusCallbackMethod: 'POST',
    });
  }

  /**
   * Redirects the held call to `connect`, which reports `call.answered`. Until Twilio has run the
   * hold TwiML the call is not in progress and refuses the redirect (21220): a transient error then.
   */
  async answerCall(request: { carrierCallId: string; callId: string; record?: boolean }): Promise<void> {
    try {
      await this.client
        .calls(request.carrierCallId)
        .update({ url: this.url(TWILIO_CALLBACK_PATHS.connect, { call_id: request.callId }), method: 'POST' });
    } catch (err) {
      if ((err as { code?: number }).code === TWILIO_CALL_NOT_IN_PROGRESS)
        throw new Error('Twilio has not put the call in progress yet', { cause: err });
      await twilioCall('answer', () => Promise.reject(err));
    }
    if (request.record)
      await startCallRecording(
        this.client,
        request.carrierCallId,
        this.url(TWILIO_CALLBACK_PATHS.recordingStatus, { call_id: request.callId }),
      );
  }

  async rejectCall(request: { carrierCallId: string }): Promise<void> {
    await this.endCall('reject', request.carrierCallId, {
      status: 'completed',
      // A declined call ends without events: the API drops this final callback.
      statusCallback: this.url(TWILIO_CALLBACK_PATHS.callStatus, { rejected: '1' }),
      statusCallbackMethod: 'POST',
    });
  }

  /** Goes to the call's ConversationRelay session, which says it after what it is already saying (Twilio queues speech). */
  async speak(request: { carrierCallId: string; speakId: string; text: string; voice?: string }): Promise<void> {
    const voice = twilioVoice(request.voice);
    await this.options.relay.send(request.carrierCallId, { kind: 'speak', speakId: request.speakId, text: request.text, voice });
  }

  async sendDigits(request: { carrierCallId: string; digits: string }): Promise<void> {
    await this.options.relay.send(request.carrierCallId, { kind: 'digits', digits: request.digits });
  }

  /** Twilio cuts speech itself when the caller talks; what it has not played yet is reported stopped (./callbacks/relaySession.ts). */
  async stopSpeaking(request: { carrierCallId: string }): Promise<void> {
    await this.options.relay.send(request.carrierCallId, { kind: 'stop' });
  }

  /**
   * A `<Dial>` replaces the call's TwiML (./callbacks/transfer.ts). Recorded like a create, on every
   * worker: a retry of a transfer that went through dials nothing, one racing it waits. An update
   * sent again would replace the running `<Dial>` and hang up a destination already bridged, so a
   * retry after a lost answer first looks for signs the first update reached Twilio: the transfer's
   * own callbacks, which complete its record (./callbacks/transferRecord.ts), or the leg the `<Dial>`
   * dialled, a call of its own (`GET Calls.json?ParentCallSid=`, to the destination, since the first
   * attempt). Only with neither is the update sent again.
   */
  async transferCall(request: port.TransferCallRequest): Promise<void> {
    const carrierId = transferCarrierId(request.carrierCallId, request.transferId);
    await createOnce(this.options.attempts, 'transfer', request.transferId, {
      runningMs: this.runningMs,
      find: (since) =>
        twilioCall('look for a transfer', async () => {
          const legs = await this.client.calls.list({ parentCallSid: request.carrierCallId, limit: 20 });
          return legs.some((leg) => leg.to === request.to && leg.dateCreated >= since) ? [carrierId] : [];
        }),
      create: async () => {
        await this.update('transfer', request.carrierCallId, { twiml: transferTwiml(this.options.publicBaseUrl, request) });
        return carrierId;
      },
    });
  }

  async sendSms(request: port.SendSmsRequest): Promise<{ carrierMessageId: string }> {
    const carrierMessageId = await createOnce(this.options.attempts, 'message', request.messageId, {
      runningMs: this.runningMs,
      // Matched on who and when, never on the body: a Messaging Service's Smart Encoding may have rewritten it.
      find: this.lookups((since, until) =>
        twilioCall('look for a sent message', async () =>
          createdWithin(await this.client.messages.list({ from: request.from, to: request.to, limit: 20 }), since, until),
        ),
      ),
      create: () =>
        twilioCall('send a message', async () => {
          const message = await this.client.messages.create({
            from: request.from,
            // With the line's number as `from`, the service sends from that sender of its pool and applies its A2P registration.
            ...(this.options.messagingServiceSid ? { messagingServiceSid: this.options.messagingServiceSid } : {}),
            to: request.to,
            body: request.text,
            statusCallback: this.url(TWILIO_CALLBACK_PATHS.messageStatus, { message_id: request.messageId }),
          });
          return message.sid;
        }),
    });
    return { carrierMessageId };
  }

  /** The Recording's media, read with the account's Basic auth (./recordings.ts). */
  openRecording(request: { callId: string; recordingUrl: string }): Promise<port.CarrierRecording> {
    return openTwilioRecording(this.options.account, this.options.apiBaseUrl, request.recordingUrl);
  }

  /** Twilio's `DeleteRecording` through the official client (./recordings.ts). */
  deleteRecording(request: { callId: string; recordingUrl: string }): Promise<void> {
    return deleteTwilioRecording(this.client, this.options.account, this.options.apiBaseUrl, request.recordingUrl);
  }

  /**
   * Audio lines: the call (waiting in the API's audio hold) is moved to `<Connect><Stream>` towards the
   * worker's listener under a one-time token; the socket Twilio opens there, signed for that URL, is the
   * stream once Twilio's `start` names it.
   */
  async openMediaStream(request: { carrierCallId: string }): Promise<port.CarrierMediaStream> {
    if (!this.options.media)
      throw new CarrierRejectedError('audio lines on Twilio need TWILIO_MEDIA_URL and TWILIO_MEDIA_PORT on the worker');
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const account = this.options.account;
    const expectation = await this.options.media.expect({
      accept: TwilioMediaStream.accept,
      verify: (req, url) => {
        const signature = req.headers['x-twilio-signature'];
        return verifyTwilioUpgrade({ accounts: [account], signature: typeof signature === 'string' ? signature : undefined, url }).valid;
      },
    });
    const stream = await openExpectedStream(expectation, timeoutMs, () =>
      this.update('open a media stream', request.carrierCallId, { twiml: streamTwiml(expectation.url) }),
    );
    const started = await Promise.race([stream.started.then(() => true), delay(timeoutMs).then(() => false)]);
    if (started) return stream;
    await stream.close();
    throw new Error('Twilio opened the media stream but never started it');
  }

  /**
   * How a retry looks for what an earlier attempt created. Not with test credentials, which Twilio answers
   * 403 on any list (twilio.com/docs/iam/test-credentials: only the three POSTs): a retry after a lost answer
   * then creates again. Nothing is lost by it: a test create reaches no phone and charges nothing.
   */
  private lookups<F extends (since: Date, until: Date | undefined) => Promise<string[]>>(find: F): F | undefined {
    return this.options.mode === 'test' ? undefined : find;
  }

  private url(path: string, query: Record<string, string | undefined> = {}): string {
    return twilioCallbackUrl(this.options.publicBaseUrl, path, query);
  }

  /** An update that has nothing left to do when the call is over: Twilio's refusal then is success. */
  private async endCall(what: string, carrierCallId: string, params: Record<string, unknown>): Promise<void> {
    try {
      await this.update(what, carrierCallId, params);
    } catch (err) {
      if (!(err instanceof CarrierRejectedError)) throw err;
    }
  }

  /** Calls update on a live call; a call Twilio no longer has (or has ended) is a refusal. */
  private async update(what: string, carrierCallId: string, params: Record<string, unknown>): Promise<void> {
    await twilioCall(what, () => this.client.calls(carrierCallId).update(params));
  }
}

/** The sids of what was created from `since` to `until` (none: up to now), oldest first. */
function createdWithin(items: Array<{ sid: string; dateCreated: Date }>, since: Date, until: Date | undefined): string[] {
  return items
    .filter((item) => item.dateCreated >= since && (!until || item.dateCreated <= until))
    .sort((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime())
    .map((item) => item.sid);
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Calls create's machine detection (twilio/twilio-oai `spec/json/twilio_api_v2010.json`, Calls create:
 * `MachineDetection`, `AsyncAmd`, `AsyncAmdStatusCallback`; Twilio's "Answering Machine Detection" guide). Plain
 * detection is synchronous (`Enable`): Twilio fetches `connect` once it ended, with `AnsweredBy`. End-of-greeting
 * detection is `DetectMessageEnd`, asynchronous: the call is connected (`connect`, the answer) at once, and Twilio
 * posts who answered to `amdStatus`, for a machine once its greeting ended (`machine_end_beep`, `_silence`,
 * `_other`), within `MachineDetectionTimeout` (30 s) of the answer. Asynchronous, because a machine's greeting may
 * last longer than the ring timeout leaves, and the answer (where billing starts) must not wait for it.
 */
function machineDetectionOf(
  request: port.PlaceCallRequest,
  amdStatusUrl: string,
): { machineDetection?: string; asyncAmd?: string; asyncAmdStatusCallback?: string; asyncAmdStatusCallbackMethod?: 'POST' } {
  if (!request.machineDetection) return {};
  if (!request.detectGreetingEnd) return { machineDetection: 'Enable' };
  return {
    machineDetection: 'DetectMessageEnd',
    asyncAmd: 'true',
    asyncAmdStatusCallback: amdStatusUrl,
    asyncAmdStatusCallbackMethod: 'POST',
  };
}
