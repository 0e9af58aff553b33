/**
 * The JSON framing on the customer's audio socket (audio-mode lines), modelled on Twilio Media
 * Streams. Every message is one WebSocket text frame holding one JSON object. Pure: no I/O.
 *
 * Switchboard → customer, in this order on a stream:
 *   connected, start, then media (caller audio) and mark (played marks) interleaved, then stop.
 * Customer → Switchboard: media (audio for the caller), mark, clear.
 *
 * The full description, with examples, is in docs/audio.md.
 */

/** Version of this framing, sent in `connected`. */
export const AUDIO_PROTOCOL_VERSION = '1.0.0';
export const AUDIO_ENCODING = 'audio/x-mulaw';
export const AUDIO_SAMPLE_RATE = 8_000;
/** Largest decoded `media` payload a customer may send in one message: 1 s of 8 kHz µ-law. */
export const MAX_CUSTOMER_PAYLOAD_BYTES = 8_000;
/** Longest `mark` name accepted from a customer. */
export const MAX_MARK_NAME_LENGTH = 256;
/** Largest customer message (characters of JSON) the parser looks at. */
export const MAX_CUSTOMER_MESSAGE_LENGTH = 16_384;

export interface ConnectedMessage {
  event: 'connected';
  protocol: 'Call';
  version: string;
}

export interface StartMessage {
  event: 'start';
  sequence_number: number;
  stream_id: string;
  start: {
    call_id: string;
    line_id: string;
    encoding: typeof AUDIO_ENCODING;
    sample_rate: typeof AUDIO_SAMPLE_RATE;
    channels: 1;
    /** The stream this one replaces after a reconnect (the same call); absent on a call's first stream. */
    previous_stream_id?: string;
  };
}

export interface MediaMessage {
  event: 'media';
  sequence_number: number;
  stream_id: string;
  media: {
    /** `inbound`: the caller's audio. (Switchboard never echoes the customer's own audio back.) */
    track: 'inbound' | 'outbound';
    /** Per-track frame counter, from 1. */
    chunk: number;
    /** Media time of the frame's first sample, in ms since the stream started. */
    timestamp: number;
    /** Base64 of raw 8 kHz mono µ-law bytes (no header); usually 160 bytes = 20 ms. */
    payload: string;
  };
}

export interface MarkMessage {
  event: 'mark';
  sequence_number: number;
  stream_id: string;
  mark: { name: string };
}

export type StopReason = 'call_ended' | 'carrier_error';

export interface StopMessage {
  event: 'stop';
  sequence_number: number;
  stream_id: string;
  stop: { reason: StopReason };
}

/** What Switchboard sends on the customer's socket. */
export type RelayMessage = ConnectedMessage | StartMessage | MediaMessage | MarkMessage | StopMessage;

/** What a customer may send, as it appears on the wire. `stream_id`, when present, must be the current stream's. */
export type CustomerWireMessage =
  | { event: 'media'; stream_id?: string; media: { payload: string } }
  | { event: 'mark'; stream_id?: string; mark: { name: string } }
  | { event: 'clear'; stream_id?: string };

/** A customer message after validation, with the audio decoded. */
export type CustomerMessage = { event: 'media'; payload: Buffer } | { event: 'mark'; name: string } | { event: 'clear' };

export type ParseResult = { ok: true; message: CustomerMessage } | { ok: false; error: string };

export function connectedMessage(): ConnectedMessage {
  return { event: 'connected', protocol: 'Call', version: AUDIO_PROTOCOL_VERSION };
}

/**
 * Numbers the messages of one stream: `sequence_number` counts every message after `connected`
 * from 1 (`start` is 1), and `chunk` counts media frames per track from 1.
 */
export class StreamFramer {
  private sequence = 0;
  private readonly chunks = { inbound: 0, outbound: 0 };

  constructor(readonly streamId: string) {}

  start(details: { callId: string; lineId: string; previousStreamId?: string }): StartMessage {
    return {
      event: 'start',
      sequence_number: this.next(),
      stream_id: this.streamId,
      start: {
        call_id: details.callId,
        line_id: details.lineId,
        encoding: AUDIO_ENCODING,
        sample_rate: AUDIO_SAMPLE_RATE,
        channels: 1,
        ...(details.previousStreamId ? { previous_stream_id: details.previousStreamId } : {}),
      },
    };
  }

  media(payload: Buffer, timestamp: number, track: 'inbound' | 'outbound' = 'inbound'): MediaMessage {
    this.chunks[track] += 1;
    return {
      event: 'media',
      sequence_number: this.next(),
      stream_id: this.streamId,
      media: { track, chunk: this.chunks[track], timestamp: Math.max(0, Math.round(timestamp)), payload: payload.toString('base64') },
    };
  }

  mark(name: string): MarkMessage {
    return { event: 'mark', sequence_number: this.next(), stream_id: this.streamId, mark: { name } };
  }

  stop(reason: StopReason): StopMessage {
    return { event: 'stop', sequence_number: this.next(), stream_id: this.streamId, stop: { reason } };
  }

  /** The last sequence number handed out (0 before `start`). */
  get lastSequence(): number {
    return this.sequence;
  }

  private next(): number {
    this.sequence += 1;
    return this.sequence;
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Validates one message from the customer's socket. Binary frames, invalid JSON, unknown events,
 * a `stream_id` other than `streamId`, a payload that is not canonical base64 or decodes to
 * nothing or more than {@link MAX_CUSTOMER_PAYLOAD_BYTES}, and a blank or overlong mark name are
 * rejected with a reason; the relay counts them and carries on.
 */
export function parseCustomerMessage(data: string | Buffer, streamId: string, isBinary = false): ParseResult {
  if (isBinary) return { ok: false, error: 'binary frames are not part of the framing; send JSON text' };
  const text = typeof data === 'string' ? data : data.toString('utf8');
  if (text.length > MAX_CUSTOMER_MESSAGE_LENGTH)
    return { ok: false, error: `message longer than ${MAX_CUSTOMER_MESSAGE_LENGTH} characters` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, error: 'invalid JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, error: 'message must be a JSON object' };
  const message = parsed as Record<string, unknown>;
  if ('stream_id' in message && message.stream_id !== streamId) return { ok: false, error: 'stream_id does not match the current stream' };
  switch (message.event) {
    case 'media': {
      const media = message.media;
      if (typeof media !== 'object' || media === null) return { ok: false, error: 'media must be an object' };
      const payload = (media as Record<string, unknown>).payload;
      if (typeof payload !== 'string' || payload === '') return { ok: false, error: 'media.payload must be a non-empty base64 string' };
      if (payload.length > Math.ceil(MAX_CUSTOMER_PAYLOAD_BYTES / 3) * 4)
        return { ok: false, error: `media.payload decodes to more than ${MAX_CUSTOMER_PAYLOAD_BYTES} bytes` };
      if (!BASE64.test(payload)) return { ok: false, error: 'media.payload is not base64' };
      return { ok: true, message: { event: 'media', payload: Buffer.from(payload, 'base64') } };
    }
    case 'mark': {
      const mark = message.mark;
      const name = typeof mark === 'object' && mark !== null ? (mark as Record<string, unknown>).name : undefined;
      if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_MARK_NAME_LENGTH)
        return { ok: false, error: `mark.name must be a non-blank string of at most ${MAX_MARK_NAME_LENGTH} characters` };
      return { ok: true, message: { event: 'mark', name } };
    }
    case 'clear':
      return { ok: true, message: { event: 'clear' } };
    default:
      return {
        ok: false,
        error: typeof message.event === 'string' ? `unknown event ${JSON.stringify(message.event.slice(0, 40))}` : 'event is required',
      };
  }
}
