import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CarrierAuthError, CarrierRejectedError, MAX_RECORDING_BYTES, type CarrierRecording, type CarrierRefusal } from './port';

/** How long one recording request may take, its body included. */
export const RECORDING_TIMEOUT_MS = 60_000;

/**
 * `recordingUrl` parsed, if it is on the carrier's own origin (`baseUrl`'s scheme, host and port):
 * the URL comes from a row, and the adapter's credentials must never be sent elsewhere (SSRF).
 */
export function onCarrierOrigin(recordingUrl: string, baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(recordingUrl);
  } catch {
    throw new CarrierRejectedError('the recording URL is not a URL');
  }
  if (url.origin !== new URL(baseUrl).origin || url.username || url.password)
    throw new CarrierRejectedError(`the recording URL is not on the carrier's host (${new URL(baseUrl).host})`);
  return url;
}

/** GETs `url` with a timeout; a 4xx is a `CarrierRejectedError` (the carrier has no such recording for us), other failures plain errors. */
export async function getFromCarrier(
  url: URL,
  headers: Record<string, string>,
  what: string,
  timeoutMs = RECORDING_TIMEOUT_MS,
): Promise<Response> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  if (res.ok) return res;
  await res.body?.cancel();
  if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)
    throw new CarrierRejectedError(`the carrier refused ${what}: ${res.status}`);
  throw new Error(`carrier error on ${what}: ${res.status}`);
}

/**
 * DELETEs `url` with a timeout. 2xx, and 404 or 410 (the carrier no longer has it), are done; 401 and 403 a
 * `CarrierAuthError`; another 4xx (but 408, 429) a `CarrierRejectedError`; anything else a plain error (retried).
 */
export async function deleteAtCarrier(
  url: URL,
  headers: Record<string, string>,
  what: string,
  provider: CarrierRefusal['provider'],
  timeoutMs = RECORDING_TIMEOUT_MS,
): Promise<void> {
  const res = await fetch(url, { method: 'DELETE', headers, signal: AbortSignal.timeout(timeoutMs) });
  await res.body?.cancel();
  if (res.ok || res.status === 404 || res.status === 410) return;
  const refusal = { provider, code: String(res.status) };
  if (res.status === 401 || res.status === 403)
    throw new CarrierAuthError(`the carrier refused the credentials to delete ${what}: ${res.status}`, refusal);
  if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)
    throw new CarrierRejectedError(`the carrier refused to delete ${what}: ${res.status}`, refusal);
  throw new Error(`carrier error deleting ${what}: ${res.status}`);
}

/** A media answer as a `CarrierRecording`, refused when announced too large and cut with an error once it grows past the cap. */
export function recordingOf(res: Response, fallbackType: string, maxBytes = MAX_RECORDING_BYTES): CarrierRecording {
  const announced = Number(res.headers.get('content-length') ?? NaN);
  if (announced > maxBytes) {
    void res.body?.cancel();
    throw new CarrierRejectedError(`the recording is larger than ${maxBytes} bytes`);
  }
  if (!res.body) throw new Error('the carrier answered the recording without a body');
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new Error(`the recording grew past ${maxBytes} bytes`) : null, chunk);
    },
  });
  // pipeline: an error on either side, or the reader going away (the browser closed), ends the download too.
  const body = pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), capped, () => undefined);
  return {
    contentType: (res.headers.get('content-type') ?? fallbackType).split(';')[0].trim() || fallbackType,
    contentLength: Number.isFinite(announced) ? announced : undefined,
    body,
  };
}
