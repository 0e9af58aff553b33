import type Telnyx from 'telnyx';
import type { RecordingResponseData } from 'telnyx/resources/recordings/recordings';
import { TELNYX_RECORDINGS_URL, type TelnyxRecordingRef } from '../callbacks/telnyx/webhook';
import { CarrierRejectedError, type CarrierRecording } from '../port';
import { getFromCarrier, onCarrierOrigin, recordingOf } from '../recordingFetch';
import { telnyxRequest } from './client';

const TELNYX_API_BASE_URL = 'https://api.telnyx.com/v2';

/**
 * A call's recording from Telnyx. `recording_url` is the Recording resource, `https://api.telnyx.com/v2/recordings/{id}`
 * (docs/carriers.md): `GET` it with the API key (Bearer), then download its `download_urls.wav` (or `.mp3`), a presigned
 * link that expires in minutes and takes no credentials. Only a recording resource on Telnyx's API (or the base URL this
 * adapter is pointed at) is read, and the request goes to the configured base URL, never to a host taken from the row.
 */
export async function openTelnyxRecording(settings: { apiKey: string; baseUrl?: string }, recordingUrl: string): Promise<CarrierRecording> {
  const base = apiBaseOf(settings);
  const id = telnyxRecordingId(settings, recordingUrl);
  const resource = await getFromCarrier(
    new URL(`${base}/recordings/${id}`),
    { authorization: `Bearer ${settings.apiKey}`, accept: 'application/json' },
    'the recording',
  );
  const body = (await resource.json()) as { data?: { download_urls?: { wav?: unknown; mp3?: unknown } } };
  const links = body.data?.download_urls ?? {};
  const [link, type] =
    typeof links.wav === 'string' ? [links.wav, 'audio/wav'] : typeof links.mp3 === 'string' ? [links.mp3, 'audio/mpeg'] : [];
  if (!link || !type) throw new CarrierRejectedError('the Telnyx recording has no download link yet');
  let download: URL;
  try {
    download = new URL(link);
  } catch {
    throw new Error('Telnyx answered a download link that is not a URL');
  }
  // Presigned storage links are on another host (Telnyx's, from its authenticated answer): HTTPS only, unless the API itself is plain HTTP (a local stub).
  const allowed = new URL(base).protocol === 'http:' ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(download.protocol) || download.username || download.password)
    throw new Error('Telnyx answered a download link that is not HTTPS');
  return recordingOf(await getFromCarrier(download, {}, 'the recording download'), type);
}

/**
 * Deletes a call's recording at Telnyx through the official client (`client` built with `settings`' key and base URL):
 * `recordings.delete(id)`, Telnyx's `DeleteRecording`, `DELETE /v2/recordings/{recording_id}` ("Permanently deletes a
 * call recording": 200 with the deleted resource; 401, 404 Telnyx's error envelope; Telnyx's OpenAPI
 * `real-time-communications/call-recordings.yml`, operation `DeleteRecording`, as
 * developers.telnyx.com/api-reference/call-recordings/delete-a-call-recording publishes it).
 * A recording Telnyx does not have (deleted before: 404) is done; a key it refuses (401, 403) a `CarrierAuthError`;
 * another 4xx a refusal; 408, 429, 5xx and network failures plain errors (retried).
 */
export async function deleteTelnyxRecording(client: Telnyx, settings: { baseUrl?: string }, recordingUrl: string): Promise<void> {
  const id = telnyxRecordingId(settings, recordingUrl);
  await telnyxRequest('DELETE /recordings', () => client.recordings.delete(id), [404]);
}

function apiBaseOf(settings: { baseUrl?: string }): string {
  return (settings.baseUrl ?? TELNYX_API_BASE_URL).replace(/\/$/, '');
}

/**
 * The recording id a `recording_url` names: Telnyx's own resource URL, or one on the base URL this adapter is pointed
 * at (tests: the contract stub); anything else is a refusal before any request.
 */
function telnyxRecordingId(settings: { baseUrl?: string }, recordingUrl: string): string {
  const base = apiBaseOf(settings);
  const canonical = recordingUrl.startsWith(`${TELNYX_RECORDINGS_URL}/`);
  const url = onCarrierOrigin(recordingUrl, canonical ? TELNYX_RECORDINGS_URL : base);
  const prefix = new URL(canonical ? TELNYX_RECORDINGS_URL : `${base}/recordings`).pathname;
  const id = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length + 1) : '';
  if (!/^[0-9A-Za-z-]{1,100}$/.test(id)) throw new CarrierRejectedError('not a Telnyx recording resource');
  return id;
}

/**
 * The recording of a call leg, for a `call.recording.saved` (which names no recording): `GET /v2/recordings
 * ?filter[call_leg_id]=<leg>` (telnyx 7.24.0 `RecordingListParams.Filter.call_leg_id`). A leg has one recording
 * (recorded from the answer); should it have several, the one that started when the webhook says (its
 * `recording_started_at`), else the newest. Undefined while Telnyx lists none.
 */
export async function findLegRecording(client: Telnyx, callLegId: string, startedAt?: string): Promise<TelnyxRecordingRef | undefined> {
  const page = await telnyxRequest('GET /recordings', () => client.recordings.list({ filter: { call_leg_id: callLegId } }));
  const listed = (page?.data ?? []).filter((r): r is RecordingResponseData & { id: string } => typeof r.id === 'string' && r.id !== '');
  const at = (r: RecordingResponseData) => Date.parse(r.recording_started_at ?? r.created_at ?? '') || 0;
  const wanted = startedAt ? Date.parse(startedAt) : NaN;
  const chosen = listed.find((r) => Number.isFinite(wanted) && at(r) === wanted) ?? listed.sort((a, b) => at(b) - at(a))[0];
  if (!chosen) return undefined;
  return { id: chosen.id, ...(chosen.call_control_id ? { callControlId: chosen.call_control_id } : {}) };
}
