/**
 * Linear PCM helpers: reading a 16-bit PCM WAV file (what `espeak-ng --stdout` writes) and
 * resampling it to the telephone rate. Pure: no I/O.
 */

export interface PcmAudio {
  sampleRate: number;
  /** Mono samples (multi-channel input is averaged). */
  samples: Int16Array;
}

/**
 * Reads a RIFF/WAVE file holding 16-bit integer PCM. Throws on anything else. A data chunk whose
 * size field is 0 or 0xFFFFFFFF (written by a streaming encoder that could not seek back) runs to
 * the end of the buffer.
 */
export function parseWav(buffer: Buffer): PcmAudio {
  if (buffer.length < 12 || buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a RIFF/WAVE file');
  let offset = 12;
  let format: { channels: number; sampleRate: number; bitsPerSample: number; audioFormat: number } | null = null;
  while (offset + 8 <= buffer.length) {
    const id = buffer.toString('ascii', offset, offset + 4);
    const declared = buffer.readUInt32LE(offset + 4);
    const bodyStart = offset + 8;
    if (id === 'fmt ') {
      if (declared < 16 || bodyStart + 16 > buffer.length) throw new Error('truncated fmt chunk');
      format = {
        audioFormat: buffer.readUInt16LE(bodyStart),
        channels: buffer.readUInt16LE(bodyStart + 2),
        sampleRate: buffer.readUInt32LE(bodyStart + 4),
        bitsPerSample: buffer.readUInt16LE(bodyStart + 14),
      };
    } else if (id === 'data') {
      if (!format) throw new Error('data chunk before fmt chunk');
      // 0xFFFE is WAVE_FORMAT_EXTENSIBLE; its sub-format is PCM for 16-bit integer samples.
      if ((format.audioFormat !== 1 && format.audioFormat !== 0xfffe) || format.bitsPerSample !== 16)
        throw new Error('only 16-bit PCM WAV is supported');
      if (format.channels < 1 || format.sampleRate < 1) throw new Error('invalid WAV format');
      const available = buffer.length - bodyStart;
      const size = declared === 0 || declared === 0xffffffff || declared > available ? available : declared;
      const frameCount = Math.floor(size / (2 * format.channels));
      const samples = new Int16Array(frameCount);
      for (let i = 0; i < frameCount; i += 1) {
        let sum = 0;
        for (let c = 0; c < format.channels; c += 1) sum += buffer.readInt16LE(bodyStart + (i * format.channels + c) * 2);
        samples[i] = Math.round(sum / format.channels);
      }
      return { sampleRate: format.sampleRate, samples };
    }
    offset = bodyStart + declared + (declared % 2);
  }
  throw new Error('no data chunk');
}

/**
 * Resamples mono PCM by linear interpolation. When downsampling, each output sample first
 * averages the input samples it spans (a box low-pass), which keeps most aliasing out of speech.
 */
export function resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate || samples.length === 0) return Int16Array.from(samples);
  const ratio = fromRate / toRate;
  const outLength = Math.max(1, Math.floor(samples.length / ratio));
  const out = new Int16Array(outLength);
  const half = ratio > 1 ? ratio / 2 : 0;
  for (let i = 0; i < outLength; i += 1) {
    const center = i * ratio;
    if (half > 0) {
      const from = Math.max(0, Math.floor(center - half + 0.5));
      const to = Math.min(samples.length - 1, Math.floor(center + half - 0.5));
      let sum = 0;
      for (let j = from; j <= to; j += 1) sum += samples[j];
      out[i] = Math.round(sum / (to - from + 1));
    } else {
      const left = Math.floor(center);
      const right = Math.min(samples.length - 1, left + 1);
      const t = center - left;
      out[i] = Math.round(samples[left] * (1 - t) + samples[right] * t);
    }
  }
  return out;
}
