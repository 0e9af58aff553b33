import { spawn, type ChildProcess } from 'node:child_process';
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
