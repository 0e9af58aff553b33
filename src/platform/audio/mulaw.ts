/**
 * G.711 µ-law (the telephone network's 8 kHz, 8-bit audio) and 20 ms frame generators.
 * Pure: no I/O. Samples are signed 16-bit linear PCM.
 */

/** Telephone audio: 8000 samples per second, one byte per sample in µ-law. */
export const MULAW_SAMPLE_RATE = 8_000;
/** One frame is 20 ms, the packetisation every carrier uses. */
export const FRAME_MS = 20;
/** Bytes (= samples) in one 20 ms µ-law frame at 8 kHz. */
export const FRAME_BYTES = (MULAW_SAMPLE_RATE * FRAME_MS) / 1000;
/** µ-law of a zero sample: silence. */
export const MULAW_SILENCE = 0xff;

const BIAS = 0x84;
const CLIP = 32_635;

/** Encodes one linear sample (clamped to -32768…32767) as a µ-law byte. */
export function encodeMulawSample(sample: number): number {
  let value = Math.max(-32_768, Math.min(32_767, Math.round(sample)));
  const sign = value < 0 ? 0x80 : 0;
  if (sign) value = -value;
  if (value > CLIP) value = CLIP;
  value += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (value & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (value >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** Decodes one µ-law byte to a linear sample (the midpoint of its quantisation step). */
export function decodeMulawSample(byte: number): number {
  const u = ~byte & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  return u & 0x80 ? 0 - magnitude : magnitude; // 0 - 0 is +0, not -0
}

/** Every µ-law byte decoded, for bulk decoding. */
const DECODE_TABLE = Int16Array.from({ length: 256 }, (_, byte) => decodeMulawSample(byte));

/** µ-law of every 16-bit sample (index = sample + 32768), for bulk encoding. */
let encodeTable: Uint8Array | null = null;
function encodeLookup(): Uint8Array {
  if (!encodeTable) {
    encodeTable = new Uint8Array(65_536);
    for (let i = 0; i < 65_536; i += 1) encodeTable[i] = encodeMulawSample(i - 32_768);
  }
  return encodeTable;
}

/** Encodes 16-bit linear samples to µ-law, one byte per sample. */
export function encodeMulaw(samples: Int16Array): Buffer {
  const table = encodeLookup();
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i += 1) out[i] = table[samples[i] + 32_768];
  return out;
}

/** Decodes µ-law bytes to 16-bit linear samples. */
export function decodeMulaw(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 1) out[i] = DECODE_TABLE[bytes[i]];
  return out;
}

/** Sum of squared decoded samples of a µ-law buffer (to compute an RMS over many frames without keeping them). */
export function mulawSumOfSquares(bytes: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    const s = DECODE_TABLE[bytes[i]];
    sum += s * s;
  }
  return sum;
}

/** One 20 ms frame of µ-law silence. */
export function silenceFrame(bytes = FRAME_BYTES): Buffer {
  return Buffer.alloc(bytes, MULAW_SILENCE);
}

/**
 * Frame `index` (0-based) of a continuous sine tone: sample n of the whole tone is
 * `amplitude · sin(2π · hz · n / 8000)`, so consecutive frames join without a click.
 */
export function toneFrame(hz: number, index: number, amplitude = 8_000, bytes = FRAME_BYTES): Buffer {
  const table = encodeLookup();
  const out = Buffer.allocUnsafe(bytes);
  const first = index * bytes;
  const step = (2 * Math.PI * hz) / MULAW_SAMPLE_RATE;
  for (let i = 0; i < bytes; i += 1) {
    const sample = Math.round(amplitude * Math.sin(step * (first + i)));
    out[i] = table[Math.max(-32_768, Math.min(32_767, sample)) + 32_768];
  }
  return out;
}

/** How many 20 ms frames cover `durationMs` (a partial last frame counts as one). */
export function framesFor(durationMs: number): number {
  return Math.ceil(durationMs / FRAME_MS);
}

/**
 * A tone of `durationMs` as 20 ms µ-law frames, generated one at a time (a ten-minute tone is
 * never held in memory). A partial last frame is padded with silence to 160 bytes.
 */
export function* toneFrames(hz: number, durationMs: number, amplitude = 8_000): Generator<Buffer> {
  const count = framesFor(durationMs);
  const lastSamples = Math.round(((durationMs - (count - 1) * FRAME_MS) * MULAW_SAMPLE_RATE) / 1000);
  for (let index = 0; index < count; index += 1) {
    const frame = toneFrame(hz, index, amplitude);
    if (index === count - 1 && lastSamples < FRAME_BYTES) frame.fill(MULAW_SILENCE, Math.max(0, lastSamples));
    yield frame;
  }
}

/** Splits µ-law audio into 20 ms frames, padding the last one with silence. */
export function* chunkFrames(audio: Buffer, bytes = FRAME_BYTES): Generator<Buffer> {
  for (let start = 0; start < audio.length; start += bytes) {
    const frame = audio.subarray(start, start + bytes);
    if (frame.length === bytes) {
      yield Buffer.from(frame);
    } else {
      const padded = silenceFrame(bytes);
      frame.copy(padded);
      yield padded;
    }
  }
}
