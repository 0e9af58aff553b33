import { Readable } from 'node:stream';

/**
 * The carrier's media store: recordings of ended calls, generated on request as a quiet tone as
 * long as the answered part of the call (`GET /recordings/{carrier_call_id}.wav`).
 */

const RECORDING_SAMPLE_RATE = 8_000;
const WAV_HEADER_BYTES = 44;
/** Samples per chunk when streaming a recording. */
const WAV_CHUNK_SAMPLES = 8_000;

/**
 * A simulated recording, streamed chunk by chunk: a WAV header (8000 Hz, mono, 16-bit PCM) then
 * `samples` samples of a quiet 440 Hz tone (amplitude 1000).
 */
function* wavChunks(samples: number): Generator<Buffer> {
  const dataBytes = samples * 2;
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(RECORDING_SAMPLE_RATE, 24);
  header.writeUInt32LE(RECORDING_SAMPLE_RATE * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  yield header;
  for (let start = 0; start < samples; start += WAV_CHUNK_SAMPLES) {
    const count = Math.min(WAV_CHUNK_SAMPLES, samples - start);
    const chunk = Buffer.alloc(count * 2);
    for (let i = 0; i < count; i += 1) {
      chunk.writeInt16LE(Math.round(1000 * Math.sin((2 * Math.PI * 440 * (start + i)) / RECORDING_SAMPLE_RATE)), i * 2);
    }
    yield chunk;
  }
}

/** A recording `durationMs` long as a WAV file: its length in bytes, and its bytes streamed chunk by chunk. */
export function wavRecording(durationMs: number): { length: number; body: Readable } {
  const samples = Math.round((Math.max(0, durationMs) * RECORDING_SAMPLE_RATE) / 1000);
  return { length: WAV_HEADER_BYTES + samples * 2, body: Readable.from(wavChunks(samples)) };
}
