import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { lastLines } from '../../dev/infra/supervisor';
import { projectRoot } from '../../src/platform/config';

/** `npm run up` (or `up --cluster`) started as an operator starts it, with everything it printed so far. */
export interface UpProcess {
  child: ChildProcess;
  output: () => string;
}

/**
 * Starts `src/main/up.ts` with `args` and resolves once its summary names a test key (the last line
 * `up` prints when the stack serves), from the process's own output and exit events: refused with
 * what it printed when it exits first or says nothing within `timeoutMs`.
 */
export function startUp(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 240_000): Promise<UpProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/up.ts', ...args], { cwd: projectRoot, env });
  let output = '';
  const up: UpProcess = { child, output: () => output };
  const name = ['up', ...args].join(' ');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => settle(new Error(`no summary from ${name} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const settle = (err?: Error) => {
      clearTimeout(timer);
      child.off('exit', exited);
      if (err) reject(err);
      else resolve(up);
    };
    const exited = (code: number | null) => settle(new Error(`${name} exited with ${code}:\n${output}`));
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Test key\s+\S+/.test(output)) settle();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', exited);
  });
}

/** The processes `up` (pid `parent`) started itself, with their command lines (read from /proc: Linux only). */
export function childProcesses(parent: number): Array<{ pid: number; cmdline: string }> {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      // The parent's pid is the 4th field, after the command name in parentheses (which may itself hold spaces).
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) return [];
      return [{ pid: Number(entry), cmdline: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ') }];
    } catch {
      return []; // ended while we looked
    }
  });
}

/** Sends `up` SIGINT (Ctrl-C) and resolves with its exit code. */
export function interruptUp(up: UpProcess): Promise<number | null> {
  if (up.child.exitCode !== null || up.child.signalCode !== null) return Promise.resolve(up.child.exitCode);
  const exited = new Promise<number | null>((resolve) => up.child.once('exit', (code) => resolve(code)));
  up.child.kill('SIGINT');
  return exited;
}

/**
 * Runs `steps` against a running `up`; when they fail, the error carries what an operator would read to explain it:
 * everything `up` printed and the last lines of each child's log in `logDir` (a stack that stopped serving says why).
 */
export async function explainingFailure(up: UpProcess, logDir: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (err) {
    const logs = fs.existsSync(logDir) ? fs.readdirSync(logDir).filter((name) => name.endsWith('.log')) : [];
    const tails = logs.map((name) => `--- last lines of ${name}:\n${lastLines(path.join(logDir, name), 40).join('\n')}`);
    (err as Error).message += `\n--- up printed:\n${up.output()}\n${tails.join('\n')}`;
    throw err;
  }
}
