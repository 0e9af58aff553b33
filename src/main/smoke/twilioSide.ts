import twilio from 'twilio';
import type { CallInstance } from 'twilio/lib/rest/api/v2010/account/call';
import { CarrierRejectedError } from '../../adapters/carrier/port';
import { deleteTwilioRecording, openTwilioRecording } from '../../adapters/carrier/twilio/recordings';
import type { ActiveLine, Loop } from './loop';
import type { Receiver } from './receiver';
import { eventually, type Log } from './runner';

/**
 * What the Twilio run reads on Twilio's side, with the official `twilio` package and the live
 * account's credentials: the calls' own records (AnsweredBy, the requests Twilio made to our URLs
 * and what we answered, error notifications), recordings, messages and the Messaging Service.
 */

export type TwilioClient = ReturnType<typeof twilio>;

export interface TwilioSession extends Loop {
  twilio: TwilioClient;
  refusing: RefusingNumber;
  /** The shared call of the `transfers` and `refetch` checks (twilioTransfers.ts). */
  transferRun?: Promise<unknown>;
  /** The Twilio recordings (their URLs, as Switchboard keeps them in the call's row) of the calls the `inbound-recording` check made; the `delete-recording` check deletes them at Twilio. */
  recordings?: string[];
}

export function twilioClient(env: NodeJS.ProcessEnv): TwilioClient {
  return twilio(env.TWILIO_LIVE_ACCOUNT_SID!.trim(), env.TWILIO_LIVE_AUTH_TOKEN!.trim(), { autoRetry: true });
}

/** The credentials work (the account is readable and active); the reason when not. */
export async function twilioRefusal(client: TwilioClient, accountSid: string): Promise<string | undefined> {
  try {
    const account = await client.api.v2010.accounts(accountSid).fetch();
    return account.status === 'active' ? undefined : `the Twilio account ${accountSid} is ${account.status}`;
  } catch (err) {
    return `Twilio refused TWILIO_LIVE_ACCOUNT_SID / TWILIO_LIVE_AUTH_TOKEN: ${(err as Error).message}`;
  }
}

/** The two legs Twilio made of an A→B call placed since `since` (A's `outbound-api` leg and B's `inbound` one). */
export async function legsOf(
  client: TwilioClient,
  a: ActiveLine,
  b: ActiveLine,
  since: number,
): Promise<{ a: CallInstance; b: CallInstance }> {
  return eventually(
    'both Twilio legs of the call',
    async () => {
      // Newest first; a few seconds of margin for the two clocks (an earlier call of the run is older than that).
      const calls = (await client.calls.list({ from: a.phone_number, to: b.phone_number, limit: 20 })).filter(
        (call) => call.dateCreated.getTime() >= since - 5_000,
      );
      const outbound = calls.find((call) => call.direction.startsWith('outbound'));
      const inbound = calls.find((call) => call.direction === 'inbound');
      return outbound && inbound ? { a: outbound, b: inbound } : undefined;
    },
    { timeoutMs: 60_000, everyMs: 3_000 },
  );
}

/**
 * Twilio's AnsweredBy as Switchboard reports it (docs/carriers.md, machine detection): a `fax` is a `machine` on the
 * API (its kind, `fax`, only steers a campaign's call, which hangs up on it: docs/decisions/campaigns.md).
 */
export function answeredByOf(twilioAnsweredBy: string | null | undefined): string {
  if (twilioAnsweredBy === 'human') return 'human';
  if (twilioAnsweredBy === 'fax' || twilioAnsweredBy?.startsWith('machine')) return 'machine';
  return 'unknown';
}

/**
 * The notifications Twilio recorded on a call, errors and warnings alike (a voice ConversationRelay
 * does not take may be a warning and a fallback rather than an error), as `code: text`.
 */
export async function callErrors(client: TwilioClient, callSid: string): Promise<string[]> {
  const notifications = await client.calls(callSid).notifications.list({ limit: 50 });
  return notifications.map((n) => `${n.log === '0' ? 'error' : 'warning'} ${n.errorCode}: ${n.messageText ?? ''}`.slice(0, 200));
}

export interface TwimlFetch {
  url: string;
  status: number;
}

/** Every request Twilio made to `baseUrl` during the call (Call Events), with the status we answered. */
export async function requestsTo(client: TwilioClient, callSid: string, baseUrl: string): Promise<TwimlFetch[]> {
  const events = await client.calls(callSid).events.list({ limit: 200 });
  return events
    .map((event) => {
      const request = (event.request ?? {}) as { url?: unknown };
      const response = (event.response ?? {}) as { response_code?: unknown };
      return { url: String(request.url ?? ''), status: Number(response.response_code ?? 0) };
    })
    .filter((fetched) => fetched.url.startsWith(baseUrl));
}

/**
 * The Twilio recording of a call leg, read on Twilio (the leg's completed one, else its newest). Switchboard's
 * `recording_url` is its own URL since issue 32 (`Switchboard.servedRecording` reads it), so the leg names it here.
 */
export async function recordingOfLeg(
  client: TwilioClient,
  callSid: string,
): Promise<{ sid: string; status: string; seconds: number; callSid: string; url: string }> {
  const recordings = await client.recordings.list({ callSid, limit: 20 });
  const recording = recordings.find((r) => r.status === 'completed') ?? recordings[0];
  if (!recording) throw new Error(`Twilio lists no recording of call ${callSid}`);
  return {
    sid: recording.sid,
    status: recording.status,
    seconds: Number(recording.duration),
    callSid: recording.callSid,
    url: `https://api.twilio.com/2010-04-01/Accounts/${recording.accountSid}/Recordings/${recording.sid}`,
  };
}

/**
 * Deletes a Twilio recording (its URL as Switchboard keeps it in the call's row) at Twilio as the worker does, through the adapter's own
 * `deleteTwilioRecording` (src/adapters/carrier/twilio/recordings.ts) with the live account; then waits until reading its
 * media is refused as the portal would read it (`openTwilioRecording`), and deletes it again, which must succeed as
 * well (a retried delete). Twilio keeps a deleted Recording's metadata 40 days (status `deleted`, twilio-oai
 * `recording_enum_status`): what a fetch of it then answers is reported, not judged.
 */
export async function deleteRecordingAtTwilio(client: TwilioClient, env: NodeJS.ProcessEnv, recordingUrl: string): Promise<string> {
  const account = { accountSid: env.TWILIO_LIVE_ACCOUNT_SID!.trim(), authToken: env.TWILIO_LIVE_AUTH_TOKEN!.trim() };
  const sid = /RE[0-9a-f]{32}/.exec(recordingUrl)?.[0];
  if (!sid) throw new Error(`${recordingUrl} names no Twilio recording (RE…)`);
  await deleteTwilioRecording(client, account, undefined, recordingUrl);
  await eventually(
    `Twilio refusing the media of deleted recording ${sid}`,
    async () => {
      try {
        (await openTwilioRecording(account, undefined, recordingUrl)).body.destroy();
        return undefined;
      } catch (err) {
        if (err instanceof CarrierRejectedError) return true;
        throw err;
      }
    },
    { timeoutMs: 60_000, everyMs: 3_000 },
  );
  const metadata = await client
    .recordings(sid)
    .fetch()
    .then(
      (recording) => `status ${recording.status}`,
      (err: { status?: number }) => `${err.status ?? 'error'}`,
    );
  await deleteTwilioRecording(client, account, undefined, recordingUrl);
  return `${sid} (media refused, a fetch answers ${metadata})`;
}

/**
 * A number that refuses every call (its VoiceUrl is the receiver's `<Reject reason="busy"/>`),
 * for failed transfers without a person: SMOKE_TWILIO_REFUSING_NUMBER when given, else one
 * bought for the run (released by `release`).
 */
export class RefusingNumber {
  private bought: { sid: string; number: string } | undefined;

  constructor(
    private readonly client: TwilioClient,
    private readonly receiver: Receiver,
    private readonly given: string | undefined,
  ) {
    receiver.route('POST', '/twilio/busy', async () => ({
      status: 200,
      type: 'text/xml',
      body: '<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>',
    }));
  }

  async number(log: Log): Promise<string> {
    if (this.given) return this.given;
    if (this.bought) return this.bought.number;
    const [available] = await this.client.availablePhoneNumbers('US').local.list({ voiceEnabled: true, limit: 1 });
    if (!available) throw new Error('Twilio has no US local number to buy for the refusing destination');
    const bought = await this.client.incomingPhoneNumbers.create({
      phoneNumber: available.phoneNumber,
      voiceUrl: `${this.receiver.publicUrl}/twilio/busy`,
      voiceMethod: 'POST',
      friendlyName: 'switchboard smoke: refuses every call',
    });
    this.bought = { sid: bought.sid, number: bought.phoneNumber };
    log(`bought ${bought.phoneNumber} as a destination that refuses calls (released at the end)`);
    return bought.phoneNumber;
  }

  /** Releases a number bought for the run; the problem when it could not. */
  async release(): Promise<string | undefined> {
    if (!this.bought) return undefined;
    try {
      await this.client.incomingPhoneNumbers(this.bought.sid).remove();
      return undefined;
    } catch (err) {
      return `Twilio number ${this.bought.number} (${this.bought.sid}) not released: ${(err as Error).message}`;
    }
  }
}
