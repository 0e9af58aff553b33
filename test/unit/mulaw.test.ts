import fc from 'fast-check';
import {
  chunkFrames,
  decodeMulaw,
  decodeMulawSample,
  encodeMulaw,
  encodeMulawSample,
  FRAME_BYTES,
  framesFor,
  MULAW_SILENCE,
  mulawSumOfSquares,
  silenceFrame,
  toneFrame,
  toneFrames,
} from '../../src/platform/audio/mulaw';
import { parseWav, resample } from '../../src/platform/audio/pcm';

describe('G.711 µ-law', () => {
  it('encodes and decodes the reference values', () => {
    expect(encodeMulawSample(0)).toBe(0xff);
    expect(decodeMulawSample(0xff)).toBe(0);
    expect(decodeMulawSample(0x7f)).toBe(0);
    expect(decodeMulawSample(0x80)).toBe(32_124);
    expect(decodeMulawSample(0x00)).toBe(-32_124);
    expect(encodeMulawSample(32_767)).toBe(0x80);
    expect(encodeMulawSample(-32_768)).toBe(0x00);
    // Segment boundaries (ITU-T G.711 table 2a, 14-bit values scaled by 4).
    expect(decodeMulawSample(0xef)).toBe(132); // first step of segment 1
    expect(decodeMulawSample(0xdf)).toBe(396);
    expect(encodeMulawSample(1_000)).toBe(0xce);
    expect(encodeMulawSample(-1_000)).toBe(0x4e);
    expect(MULAW_SILENCE).toBe(0xff);
  });

  it('is symmetric around zero', () => {
    for (let byte = 0; byte < 128; byte += 1) expect(decodeMulawSample(byte) + decodeMulawSample(byte | 0x80)).toBe(0);
  });

  it('decoding then encoding gives back every code (but the two zeros)', () => {
    for (let byte = 0; byte < 256; byte += 1) {
      const again = encodeMulawSample(decodeMulawSample(byte));
      if (byte === 0x7f)
        expect(again).toBe(0xff); // -0 and +0 encode alike
      else expect(again).toBe(byte);
    }
  });

  it('round-trips every 16-bit sample within half a quantisation step', () => {
    for (let sample = -32_768; sample <= 32_767; sample += 1) {
      const error = Math.abs(decodeMulawSample(encodeMulawSample(sample)) - sample);
      const magnitude = Math.min(Math.abs(sample), 32_635);
      // Half the step of the sample's segment: step = 2^(segment+3), and |x|+132 ≥ 2^(segment+7).
      const bound = Math.max(4, (magnitude + 132) / 32) + (Math.abs(sample) - magnitude);
      if (error > bound) throw new Error(`sample ${sample}: error ${error} > ${bound}`);
    }
  });

  it('bulk encode/decode match the sample functions', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32_768, max: 32_767 }), { maxLength: 400 }), (values) => {
        const samples = Int16Array.from(values);
        const encoded = encodeMulaw(samples);
        expect([...encoded]).toEqual(values.map(encodeMulawSample));
        expect([...decodeMulaw(encoded)]).toEqual([...encoded].map(decodeMulawSample));
      }),
    );
  });

  it('signal-to-noise ratio of a full-scale tone is above 35 dB', () => {
    const samples = Int16Array.from({ length: 8_000 }, (_, n) => Math.round(20_000 * Math.sin((2 * Math.PI * 1_000 * n) / 8_000 + 0.3)));
    const decoded = decodeMulaw(encodeMulaw(samples));
    let signal = 0;
    let noise = 0;
    for (let i = 0; i < samples.length; i += 1) {
      signal += samples[i] ** 2;
      noise += (samples[i] - decoded[i]) ** 2;
    }
    expect(10 * Math.log10(signal / noise)).toBeGreaterThan(35);
  });
});

describe('frames', () => {
  it('a silence frame is 160 bytes of 0xFF (20 ms at 8 kHz)', () => {
    expect(FRAME_BYTES).toBe(160);
    const frame = silenceFrame();
    expect(frame.length).toBe(160);
    expect(frame.every((byte) => byte === 0xff)).toBe(true);
    expect(mulawSumOfSquares(frame)).toBe(0);
  });

  it('tone frames are continuous, at the right frequency and level', () => {
    const frames = [...toneFrames(400, 1_000, 8_000)];
    expect(frames).toHaveLength(50);
    expect(frames.every((frame) => frame.length === 160)).toBe(true);
    const samples = decodeMulaw(Buffer.concat(frames));
    // Zero crossings: 2 per period → 800 in a second of 400 Hz.
    let crossings = 0;
    for (let i = 1; i < samples.length; i += 1) if (samples[i - 1] < 0 !== samples[i] < 0) crossings += 1;
    expect(Math.abs(crossings - 800)).toBeLessThanOrEqual(2);
    const rms = Math.sqrt(mulawSumOfSquares(Buffer.concat(frames)) / samples.length);
    expect(Math.abs(rms - 8_000 / Math.SQRT2)).toBeLessThan(150);
    // Frame 1 continues frame 0's phase: the same as generating the whole tone at once.
    expect(toneFrame(400, 1, 8_000)).toEqual(frames[1]);
  });

  it('a partial last frame is padded with silence', () => {
    expect(framesFor(50)).toBe(3);
    const frames = [...toneFrames(440, 50)];
    expect(frames).toHaveLength(3);
    expect(frames[2].subarray(80).every((byte) => byte === 0xff)).toBe(true);
    expect(frames[2].subarray(0, 80).some((byte) => byte !== 0xff)).toBe(true);
  });

  it('chunks audio into 160-byte frames, padding the last', () => {
    const audio = Buffer.alloc(400, 0x10);
    const frames = [...chunkFrames(audio)];
    expect(frames.map((frame) => frame.length)).toEqual([160, 160, 160]);
    expect(frames[2].subarray(0, 80).every((byte) => byte === 0x10)).toBe(true);
    expect(frames[2].subarray(80).every((byte) => byte === 0xff)).toBe(true);
  });
});

describe('PCM helpers (espeak-ng output)', () => {
  function wav(samples: number[], sampleRate: number, channels = 1): Buffer {
    const data = Buffer.alloc(samples.length * 2);
    samples.forEach((sample, i) => data.writeInt16LE(sample, i * 2));
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'ascii');
    header.writeUInt32LE(36 + data.length, 4);
    header.write('WAVE', 8, 'ascii');
    header.write('fmt ', 12, 'ascii');
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(channels, 22);
    header.writeUInt32LE(sampleRate, 24);
    header.writeUInt32LE(sampleRate * 2 * channels, 28);
    header.writeUInt16LE(2 * channels, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36, 'ascii');
    header.writeUInt32LE(data.length, 40);
    return Buffer.concat([header, data]);
  }

  it('reads 16-bit PCM WAV, averaging channels, and an unsized data chunk', () => {
    expect(parseWav(wav([1, 2, 3, -4], 22_050))).toEqual({ sampleRate: 22_050, samples: Int16Array.from([1, 2, 3, -4]) });
    expect(parseWav(wav([100, 200, -10, -30], 16_000, 2)).samples).toEqual(Int16Array.from([150, -20]));
    const streamed = wav([5, 6, 7], 8_000);
    streamed.writeUInt32LE(0xffffffff, 40);
    expect(parseWav(streamed).samples).toEqual(Int16Array.from([5, 6, 7]));
    expect(() => parseWav(Buffer.from('not a wav file at all'))).toThrow('not a RIFF/WAVE file');
  });

  it('resamples 22050 Hz speech to 8 kHz, keeping the pitch and length', () => {
    const input = Int16Array.from({ length: 22_050 }, (_, n) => Math.round(10_000 * Math.sin((2 * Math.PI * 500 * n) / 22_050)));
    const out = resample(input, 22_050, 8_000);
    expect(out.length).toBe(8_000);
    let crossings = 0;
    for (let i = 1; i < out.length; i += 1) if (out[i - 1] < 0 !== out[i] < 0) crossings += 1;
    expect(Math.abs(crossings - 1_000)).toBeLessThanOrEqual(4);
    const up = resample(Int16Array.from([0, 100]), 8_000, 16_000);
    expect([...up]).toEqual([0, 50, 100, 100]);
  });
});
