import { spawn } from 'node:child_process';
import { encodeMulaw, MULAW_SAMPLE_RATE } from '../src/platform/audio/mulaw';
import { parseWav, resample } from '../src/platform/audio/pcm';

/**
 * Speech for the simulated caller: `espeak-ng` when it is installed (never required), turned into
 * 8 kHz µ-law. Callers fall back to a tone when this answers null.
 */

const SYNTH_TIMEOUT_MS = 10_000;
const MAX_WAV_BYTES = 32 * 1024 * 1024;

let available: Promise<boolean> | null = null;

/** Whether `espeak-ng` runs on this machine (checked once per process). */
export function espeakAvailable(): Promise<boolean> {
  available ??= new Promise((resolve) => {
    const child = spawn('espeak-ng', ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
  return available;
}

/**
 * Synthesises `text` with `espeak-ng --stdout` (the text goes on stdin, so it is never parsed as
 * options) and returns it as 8 kHz mono µ-law; null when espeak-ng is not installed.
 */
export async function synthesizeSpeech(text: string): Promise<Buffer | null> {
  if (!(await espeakAvailable())) return null;
  const wav = await new Promise<Buffer>((resolve, reject) => {
    const child = spawn('espeak-ng', ['--stdout'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), SYNTH_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_WAV_BYTES) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(chunks));
      else reject(new Error(`espeak-ng exited with ${code}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
  const pcm = parseWav(wav);
  return encodeMulaw(resample(pcm.samples, pcm.sampleRate, MULAW_SAMPLE_RATE));
}
