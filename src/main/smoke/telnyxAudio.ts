import type { WebSocket } from 'ws';
import { AUDIO_ENCODING, type RelayMessage } from '../../platform/audio/framing';
import { decodeMulaw, FRAME_BYTES } from '../../platform/audio/mulaw';
import { expectThat, fail, type Check } from './runner';
import type { TelnyxSession } from './telnyxSide';

/**
 * An audio-mode call whose carrier leg is not PCMU (review, Telnyx "Media streaming": Telnyx
 * streams the call's own codec unless told otherwise, and µ-law decoding of G.722 is noise). A
 * person calls an audio line from a SIP phone that offers only G.722; the kit is the line's
 * audio handler and judges whether the caller's frames decode as speech or as noise.
 */

export interface AudioMeasure {
  frames: number;
  /** Median zero-crossing rate of the louder half of the frames (voiced speech ≈ 0.05–0.2; noise ≈ 0.5). */
  loudZeroCrossings: number;
  /** Loudness spread between the 90th and 10th percentile frames, dB (speech with pauses ≫ 15; steady noise ≪ 15). */
  spreadDb: number;
  speechLike: boolean;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** Whether µ-law frames sound like speech (loud, low-pitched, with pauses) rather than misdecoded noise. */
export function measureSpeech(frames: Buffer[]): AudioMeasure {
  const stats = frames.map((frame) => {
    const samples = decodeMulaw(frame);
    let energy = 0;
    let crossings = 0;
    for (let i = 0; i < samples.length; i += 1) {
      energy += samples[i] * samples[i];
      if (i > 0 && samples[i] >= 0 !== samples[i - 1] >= 0) crossings += 1;
    }
    return { rms: Math.sqrt(energy / Math.max(1, samples.length)), zcr: crossings / Math.max(1, samples.length - 1) };
  });
  const loudness = stats.map((s) => s.rms).sort((x, y) => x - y);
  const median = percentile(loudness, 0.5);
  const loud = stats
    .filter((s) => s.rms >= median)
    .map((s) => s.zcr)
    .sort((x, y) => x - y);
  const loudZeroCrossings = loud.length > 0 ? percentile(loud, 0.5) : 1;
  const spreadDb = 20 * Math.log10((percentile(loudness, 0.9) + 1) / (percentile(loudness, 0.1) + 1));
  return { frames: frames.length, loudZeroCrossings, spreadDb, speechLike: loudZeroCrossings < 0.3 && spreadDb > 15 };
}

/** The first stream's `start` encoding and `seconds` of caller audio, from the audio line's socket. */
function listenOnce(session: TelnyxSession, seconds: number, timeoutMs: number): Promise<{ encoding: string; frames: Buffer[] }> {
  return new Promise((resolve, reject) => {
    let encoding = '';
    const frames: Buffer[] = [];
    const timer = setTimeout(() => {
      const seen = encoding ? `the stream started (${encoding}) but sent ${frames.length} frames` : 'no stream reached the audio handler';
      reject(new Error(`${seen} within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    session.receiver.onSocket('/audio', (socket: WebSocket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as RelayMessage;
        if (message.event === 'start') encoding = message.start.encoding;
        if (message.event !== 'media') return;
        frames.push(Buffer.from(message.media.payload, 'base64'));
        if (frames.length < (seconds * 1000) / 20) return;
        clearTimeout(timer);
        // A clean close hangs the call up (audio_handler_closed): the caller is done.
        socket.close(1000);
        resolve({ encoding, frames });
      });
    });
  });
}

export const g722Check: Check<TelnyxSession> = {
  id: 'g722-stream',
  title: 'An audio line streams clean µ-law from a caller whose leg is G.722',
  budgetMs: 8 * 60_000,
  human: 'call the audio line the kit prints from a SIP phone that offers only G.722, and count aloud slowly to twenty',
  optIn: {
    name: 'SMOKE_TELNYX_G722_CALLER',
    what:
      'needs a person with a SIP phone (or PBX) whose call reaches Telnyx as G.722; the kit cannot place a G.722 leg itself ' +
      '(Switchboard dials phone numbers only)',
  },
  async run(session, log) {
    const { line, secret } = await session.api.createLine({
      name: `smoke audio ${new Date().toISOString()}`,
      mode: 'audio',
      audio_handler_url: session.receiver.socketUrl('/audio'),
      webhook_url: session.receiver.webhookUrl,
    });
    session.extraLines.push(line.id);
    session.receiver.addLine(line.id, secret);
    const active = await session.api.lineActive(line.id);
    log(`>>> Now call ${active.phone_number} from your G.722-only SIP phone and count aloud slowly to twenty (waiting 4 min) <<<`);
    const { encoding, frames } = await listenOnce(session, 8, 4 * 60_000).catch(async (err: Error) => {
      // Switchboard refuses a stream Telnyx could not transcode to PCMU (the call then ends): say how the call ended.
      const [latest] = await session.api.callsOfLine(line.id).catch(() => []);
      return fail(
        `${err.message}${latest ? `; the line's call ${latest.id} is ${latest.status} (${latest.end_cause ?? 'no end cause'})` : ''}`,
      );
    });
    expectThat(encoding === AUDIO_ENCODING, `the stream's start says ${encoding}, not ${AUDIO_ENCODING}`);
    const oddFrames = frames.filter((f) => f.length !== FRAME_BYTES).length;
    const measure = measureSpeech(frames);
    const numbers = `${measure.frames} frames (${oddFrames} not 20 ms), loud-frame zero crossings ${measure.loudZeroCrossings.toFixed(2)}, spread ${measure.spreadDb.toFixed(0)} dB`;
    expectThat(measure.speechLike, `the caller's audio decodes as noise, not speech: ${numbers}`);
    return `caller audio is speech after µ-law decoding: ${numbers}`;
  },
};
