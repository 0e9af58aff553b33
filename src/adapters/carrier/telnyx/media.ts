import type WebSocket from 'ws';
import { CarrierRejectedError } from '../port';
import { decodeStreamedMedia, WebSocketMediaStream, type DecodedMediaMessage } from '../webSocketMedia';
import { createLogger } from '../../../platform/logger';

const log = createLogger('telnyx-media');

/**
 * Telnyx media streaming for audio lines: Telnyx connects to us. The worker listens on
 * TELNYX_MEDIA_PORT (../mediaSocketServer.ts); `streaming_start` gives Telnyx `<TELNYX_MEDIA_URL>/<token>`,
 * a one-time token, and the socket that arrives with it becomes the call's `CarrierMediaStream` (bidirectional RTP
 * mode, PCMU 8 kHz: the µ-law the audio relay speaks).
 *
 * Telnyx → us: `connected`, `start`, `media {sequence_number, media: {track, chunk, timestamp, payload}}`
 * (caller audio on the inbound track), `mark {mark: {name}}` (played), `stop`. Us → Telnyx:
 * `media {media: {payload}}`, `mark {mark: {name}}`, `clear`.
 *
 * The stream is the call's only once Telnyx's `start` says PCMU (`start.media_format.encoding`): `streaming_start`
 * asks for `stream_codec: 'PCMU'`, but "when transcoding is not possible, the codec from the call will be used"
 * (telnyx 7.24.0 `ActionStartStreamingParams.stream_codec`), and G.722 or OPUS bytes relayed as µ-law would be
 * noise. Another encoding closes the socket and the stream is refused as one that could not open.
 */
export class TelnyxMediaStream extends WebSocketMediaStream {
  private encoding: Promise<string>;
  private resolveEncoding!: (encoding: string) => void;

  private constructor(ws: WebSocket) {
    super(ws);
    this.encoding = new Promise((resolve) => (this.resolveEncoding = resolve));
    void this.ended.then(() => this.resolveEncoding(''));
  }

  static accept(ws: WebSocket): TelnyxMediaStream {
    return new TelnyxMediaStream(ws);
  }

  /** Resolves once Telnyx's `start` said PCMU; a `CarrierRejectedError` (socket closed) for another encoding or none in `timeoutMs`. */
  async started(carrierCallId: string, timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const encoding = await Promise.race([
      this.encoding,
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('none'), timeoutMs))),
    ]).finally(() => clearTimeout(timer));
    if (encoding === 'PCMU') return;
    await this.close();
    const reason =
      encoding === 'none'
        ? `no start message within ${timeoutMs} ms`
        : encoding === ''
          ? 'the socket closed before its start message'
          : `Telnyx streams ${encoding}, not PCMU (it could not transcode the call's codec)`;
    log.warn({ carrierCallId, encoding }, `telnyx media stream refused: ${reason}`);
    throw new CarrierRejectedError(`Telnyx media stream refused: ${reason}`);
  }

  protected encodeMedia(payload: Buffer): object {
    return { event: 'media', media: { payload: payload.toString('base64') } };
  }

  protected encodeMark(name: string): object {
    return { event: 'mark', mark: { name } };
  }

  protected encodeClear(): object {
    return { event: 'clear' };
  }

  protected decode(message: Record<string, unknown>): DecodedMediaMessage | null {
    if (message.event === 'start') {
      const format = (message.start as { media_format?: { encoding?: unknown } } | undefined)?.media_format;
      this.resolveEncoding(typeof format?.encoding === 'string' ? format.encoding : 'unknown');
      return null;
    }
    return decodeStreamedMedia(message);
  }
}

/** What `openMediaStream` throws when the worker has no media listener configured. */
export function noMediaListener(): CarrierRejectedError {
  return new CarrierRejectedError('audio lines need TELNYX_MEDIA_URL and TELNYX_MEDIA_PORT on the worker');
}
