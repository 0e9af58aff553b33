import { TELNYX_RECORDINGS_URL } from '../callbacks/telnyx/webhook';
import { CarrierRejectedError, type CarrierRecording } from '../port';
import { getFromCarrier, onCarrierOrigin, recordingOf } from '../recordingFetch';

const TELNYX_API_BASE_URL = 'https://api.telnyx.com/v2';

/**
 * A call's recording from Telnyx. `recording_url` is the Recording resource, `https://api.telnyx.com/v2/recordings/{id}`
 * (docs/carriers.md): `GET` it with the API key (Bearer), then download its `download_urls.wav` (or `.mp3`), a presigned
 * link that expires in minutes and takes no credentials. Only a recording resource on Telnyx's API (or the base URL this
 * adapter is pointed at) is read, and the request goes to the configured base URL, never to a host taken from the row.
 */
export async function openTelnyxRecording(settings: { apiKey: string; baseUrl?: string }, recordingUrl: string): Promise<CarrierRecording> {
  const base = (settings.baseUrl ?? TELNYX_API_BASE_URL).replace(/\/$/, '');
  const canonical = recordingUrl.startsWith(`${TELNYX_RECORDINGS_URL}/`);
  const url = onCarrierOrigin(recordingUrl, canonical ? TELNYX_RECORDINGS_URL : base);
  const prefix = new URL(canonical ? TELNYX_RECORDINGS_URL : `${base}/recordings`).pathname;
  const id = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length + 1) : '';
  if (!/^[0-9A-Za-z-]{1,100}$/.test(id)) throw new CarrierRejectedError('not a Telnyx recording resource');
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
