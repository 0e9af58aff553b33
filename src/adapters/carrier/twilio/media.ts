import type WebSocket from 'ws';
import { WebSocketMediaStream, type DecodedMediaMessage } from '../webSocketMedia';

/**
 * Twilio bidirectional Media Streams for audio lines (`<Connect><Stream url>`): Twilio connects to the
 * worker's listener (../mediaSocketServer.ts) with µ-law 8 kHz, the audio relay's own format.
 *
 * Twilio → us: `connected`, `start {streamSid, start: {callSid, tracks, mediaFormat, customParameters}}`,
 * `media {media: {track, chunk, timestamp, payload}}`, `mark {mark: {name}}` (our audio before it has
 * played), `dtmf`, `stop`. Us → Twilio: `media`, `mark`, `clear`, each naming the `streamSid`, which is
 * why the stream is handed over only once `start` has come (`started`).
 */
export class TwilioMediaStream extends WebSocketMediaStream {
  private streamSid = '';
  private markStarted!: () => void;
  /** Resolves with Twilio's `start` message. */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));

  static accept(ws: WebSocket): TwilioMediaStream {
    return new TwilioMediaStream(ws);
  }

  protected encodeMedia(payload: Buffer): object {
    return { event: 'media', streamSid: this.streamSid, media: { payload: payload.toString('base64') } };
  }

  protected encodeMark(name: string): object {
    return { event: 'mark', streamSid: this.streamSid, mark: { name } };
  }

  protected encodeClear(): object {
    return { event: 'clear', streamSid: this.streamSid };
  }

  protected decode(message: Record<string, unknown>): DecodedMediaMessage | null {
    if (message.event === 'start' && typeof message.streamSid === 'string') {
      this.streamSid = message.streamSid;
      this.markStarted();
      return null;
    }
    const media = message.media as { track?: unknown; chunk?: unknown; timestamp?: unknown; payload?: unknown } | undefined;
    if (message.event === 'media' && media && typeof media.payload === 'string' && (media.track ?? 'inbound') === 'inbound')
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
