import type WebSocket from 'ws';
import { CarrierRejectedError } from '../port';
import { WebSocketMediaStream, type DecodedMediaMessage } from '../webSocketMedia';

/**
 * Telnyx media streaming for audio lines: Telnyx connects to us. The worker listens on
 * TELNYX_MEDIA_PORT (../mediaSocketServer.ts); `streaming_start` gives Telnyx `<TELNYX_MEDIA_URL>/<token>`,
 * a one-time token, and the socket that arrives with it becomes the call's `CarrierMediaStream` (bidirectional RTP
 * mode, PCMU 8 kHz: the µ-law the audio relay speaks).
 *
 * Telnyx → us: `connected`, `start`, `media {sequence_number, media: {track, chunk, timestamp, payload}}`
 * (caller audio on the inbound track), `mark {mark: {name}}` (played), `stop`. Us → Telnyx:
 * `media {media: {payload}}`, `mark {mark: {name}}`, `clear`.
 */
export class TelnyxMediaStream extends WebSocketMediaStream {
  static accept(ws: WebSocket): TelnyxMediaStream {
    return new TelnyxMediaStream(ws);
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
    const media = message.media as { track?: unknown; chunk?: unknown; timestamp?: unknown; payload?: unknown } | undefined;
    if (message.event === 'media' && media && typeof media.payload === 'string' && (media.track ?? 'inbound') === 'inbound')
      // `chunk` numbers the media frames 1, 2, 3…; `sequence_number` counts every message.
      return {
        kind: 'media',
        sequence: Number(media.chunk),
        timestamp: Number(media.timestamp),
        payload: Buffer.from(media.payload, 'base64'),
      };
    const mark = message.mark as { name?: unknown } | undefined;
    if (message.event === 'mark' && typeof mark?.name === 'string') return { kind: 'mark', name: mark.name };
    if (message.event === 'stop') return { kind: 'stop' };
    return null;
  }
}

/** What `openMediaStream` throws when the worker has no media listener configured. */
export function noMediaListener(): CarrierRejectedError {
  return new CarrierRejectedError('audio lines need TELNYX_MEDIA_URL and TELNYX_MEDIA_PORT on the worker');
}
