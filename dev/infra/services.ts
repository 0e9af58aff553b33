import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { projectRoot } from '../../src/platform/config';
import { spawnLogged } from './proc';

/** Starts one of the project's TypeScript entry points (api, worker, simulator) as a child process. */
const ENTRY_POINTS = { api: 'src/main/api.ts', worker: 'src/main/worker.ts', simulator: 'simulator/main.ts' } as const;

export function spawnService(entry: keyof typeof ENTRY_POINTS, env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  return spawnLogged(process.execPath, ['--import', 'tsx', path.join(projectRoot, ENTRY_POINTS[entry])], logFile, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
  });
}
