import type twilio from 'twilio';
import { CarrierRejectedError, type CarrierRecording } from '../port';
import { getFromCarrier, onCarrierOrigin, recordingOf } from '../recordingFetch';
import type { TwilioAccount } from './client';
import { ignoreNotFound, twilioCall } from './requests';

export const TWILIO_API_BASE_URL = 'https://api.twilio.com';

/**
 * A call's recording from Twilio. `RecordingUrl` names the Recording resource,
 * `https://api.twilio.com/2010-04-01/Accounts/{AccountSid}/Recordings/{RecordingSid}`; its media is that URL
 * with `.wav` (or `.mp3`) appended, read with HTTP Basic auth (account SID, auth token), per Twilio's
 * "Fetch a Recording's media file". Only a recording of this adapter's own account on its API host is read.
 */
export async function openTwilioRecording(
  account: TwilioAccount,
  apiBaseUrl: string | undefined,
  recordingUrl: string,
): Promise<CarrierRecording> {
  const base = apiBaseUrl ?? TWILIO_API_BASE_URL;
  const recordingSid = twilioRecordingSid(account, apiBaseUrl, recordingUrl);
  const media = new URL(`/2010-04-01/Accounts/${account.accountSid}/Recordings/${recordingSid}.wav`, base);
  const basic = Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64');
  const res = await getFromCarrier(media, { authorization: `Basic ${basic}`, accept: 'audio/wav' }, 'the recording');
  return recordingOf(res, 'audio/wav');
}

/**
 * Deletes a call's recording at Twilio through the official client (`client` must be `account`'s, built with the same
 * `apiBaseUrl`): `recordings(sid).remove()`, the `DeleteRecording` operation of twilio/twilio-oai
 * `spec/json/twilio_api_v2010.json` (`DELETE /2010-04-01/Accounts/{AccountSid}/Recordings/{Sid}.json`, answered 204).
 * A recording Twilio does not have (deleted before: its 404, code 20404) is done; credentials it refuses (401, 20003;
 * 403) a `CarrierAuthError`; another 4xx a refusal; 429, 5xx and network failures plain errors (retried).
 */
export async function deleteTwilioRecording(
  client: twilio.Twilio,
  account: TwilioAccount,
  apiBaseUrl: string | undefined,
  recordingUrl: string,
): Promise<void> {
  const recordingSid = twilioRecordingSid(account, apiBaseUrl, recordingUrl);
  await twilioCall('delete the recording', () => ignoreNotFound(() => client.recordings(recordingSid).remove()));
}

/**
 * The RecordingSid a `RecordingUrl` names: Twilio's own host, or the one this adapter is pointed at (tests: the
 * contract stub), and a Recording of `account` only; anything else is a refusal before any request.
 */
function twilioRecordingSid(account: TwilioAccount, apiBaseUrl: string | undefined, recordingUrl: string): string {
  const base = apiBaseUrl ?? TWILIO_API_BASE_URL;
  const url = onCarrierOrigin(
    recordingUrl,
    new URL(recordingUrl, base).origin === new URL(TWILIO_API_BASE_URL).origin ? TWILIO_API_BASE_URL : base,
  );
  const match = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Recordings\/(RE[0-9a-f]{32})(\.(json|wav|mp3))?$/.exec(url.pathname);
  if (!match || match[1] !== account.accountSid) throw new CarrierRejectedError('not a Recording of this Twilio account');
  return match[2];
}

/**
 * An answered inbound call is recorded through `Calls/{sid}/Recordings`, which reports only to its
 * `recordingStatusCallback` (twilio-node `call/recording.ts`; a call's own status callback names only
 * recordings made with `Record=true` on create): `completed` there becomes the call's `recording_url`
 * (api/routes/carrier/twilioCalls.ts). A retried answer finds the recording its first attempt started
 * rather than starting a second.
 */
export async function startCallRecording(client: twilio.Twilio, carrierCallId: string, statusCallbackUrl: string): Promise<void> {
  await twilioCall('record', async () => {
    const recordings = client.calls(carrierCallId).recordings;
    if ((await recordings.list({ limit: 20 })).some((recording) => recording.source === 'StartCallRecordingAPI')) return;
    await recordings.create({
      recordingChannels: 'mono',
      recordingStatusCallback: statusCallbackUrl,
      recordingStatusCallbackEvent: ['completed'],
      recordingStatusCallbackMethod: 'POST',
    });
  });
}
