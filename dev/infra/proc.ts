import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Runs a command to completion, streaming nothing; throws with its output when it fails. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; asUser?: string } = {}): string {
  const [file, argv] = opts.asUser && isRoot() ? ['runuser', ['-u', opts.asUser, '--', cmd, ...args]] : [cmd, args];
  const result = spawnSync(file, argv, { env: opts.env ?? process.env, cwd: opts.cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`${cmd} ${args.join(' ')} could not start: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

export function tryRun(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): boolean {
  const result = spawnSync(cmd, args, { env: opts.env ?? process.env, stdio: 'ignore' });
  return !result.error && result.status === 0;
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** First executable named `name` on PATH, or undefined. */
export function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export async function waitForPort(host: string, port: number, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`process exited with ${child.signalCode ?? child.exitCode} before listening on ${host}:${port}`);
    if (await canConnect(host, port)) return;
    if (Date.now() > deadline) throw new Error(`nothing listening on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // pacing: poll interval until the port listens
  }
}

export function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export function spawnLogged(cmd: string, args: string[], logFile: string, opts: SpawnOptions = {}): ChildProcess {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.openSync(logFile, 'a');
  return spawn(cmd, args, { stdio: ['ignore', out, out], ...opts });
}

/** Sends SIGTERM, then SIGKILL after `graceMs` if the process is still alive. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** `run` without blocking the event loop (for long builds): resolves with stdout, rejects with the output when it fails. */
export function runAsync(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-64 * 1024)));
    child.once('error', (err) => reject(new Error(`${cmd} ${args.join(' ')} could not start: ${err.message}`)));
    child.once('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${stdout}\n${stderr}`)),
    );
  });
}

/** `count` consecutive free ports on loopback (for servers that take a block, like the Temporal server), below the ephemeral range. */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * (32_000 - 20_000 - count));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if ((await Promise.all(ports.map((port) => canListen(port)))).every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

/** Whether a server can listen on `port` of `host` right now (it listens, then closes at once). */
export function canListen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** Polls `url` until it answers 2xx, or fails after `timeoutMs`. */
export async function waitForHttpOk(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250)); // pacing: poll interval until the URL answers 2xx
  }
}

/** How often a long set-up step says it is still running (`withProgress`). */
export const PROGRESS_INTERVAL_MS = 30_000;

/** `45s`, `1m30s`, `1h02m`: an elapsed time as the set-up and supervisor lines print it. */
export function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * Runs a long set-up step (an apt install, a Go build) without minutes of silence: logs `<step>...` at the start,
 * `still <step>... 1m30s` every `everyMs` while it runs, and `<step>: done in 4m12s` (or `failed after 12s`) at the end.
 * `step` reads as a present participle: `building the Temporal server v1.30.9`. The step must not block the event loop
 * (`runAsync`, not `run`), or no line appears until it ends.
 */
export async function withProgress<T>(
  step: string,
  log: (line: string) => void,
  work: () => Promise<T>,
  opts: { everyMs?: number } = {},
): Promise<T> {
  const started = Date.now();
  log(`${step}...`);
  const ticker = setInterval(() => log(`still ${step}... ${formatElapsed(Date.now() - started)}`), opts.everyMs ?? PROGRESS_INTERVAL_MS);
  try {
    const result = await work();
    log(`${step}: done in ${formatElapsed(Date.now() - started)}`);
    return result;
  } catch (err) {
    log(`${step}: failed after ${formatElapsed(Date.now() - started)}`);
    throw err;
  } finally {
    clearInterval(ticker);
  }
}

/**
 * Installs Debian packages with apt-get (`update`, then `install --no-install-recommends`) as a long set-up step
 * (`withProgress`), waiting up to 10 minutes for a dpkg lock another installer holds. The caller checks it runs as root.
 */
export async function aptInstall(packages: string[], log: (line: string) => void): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
  await withProgress(`installing ${packages.join(', ')} from Debian packages (apt-get install)`, log, async () => {
    await runAsync('apt-get', [...lockWait, 'update', '-q'], { env });
    await runAsync('apt-get', [...lockWait, 'install', '-y', '-q', '--no-install-recommends', ...packages], { env });
  });
}

/** `runAsync` as a long set-up step (`withProgress`): e.g. `runWithProgress('building Helm v3.17.3', log, go, ['install', ...], { env })`. */
export function runWithProgress(
  step: string,
  log: (line: string) => void,
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; everyMs?: number } = {},
): Promise<string> {
  return withProgress(step, log, () => runAsync(cmd, args, opts), { everyMs: opts.everyMs });
}
