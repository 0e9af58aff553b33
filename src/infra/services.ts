import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { projectRoot } from '../config';
import { spawnLogged } from './proc';

/** Starts one of the project's TypeScript entry points (api, worker, simulator) as a child process. */
export function spawnService(entry: 'api' | 'worker' | 'simulator/main', env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  return spawnLogged(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', `${entry}.ts`)], logFile, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
  });
}
