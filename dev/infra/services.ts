import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { BUILD_ENTRY_POINTS, NODE_FLAGS } from '../../src/platform/buildLayout';
import { projectRoot } from '../../src/platform/config';
import { spawnLogged } from './proc';

/** Starts one of the project's TypeScript entry points (api, worker, simulator) as a child process. */
const ENTRY_POINTS = { api: 'src/main/api.ts', worker: 'src/main/worker.ts', simulator: 'simulator/main.ts' } as const;

/**
 * Under tsx from the sources, or with `from.build` (a production build's root: `npm run build`, dev/build.ts) its
 * JavaScript with plain node, as the image runs it; with the role's node flags either way (NODE_FLAGS).
 */
export function spawnService(
  entry: keyof typeof ENTRY_POINTS,
  env: NodeJS.ProcessEnv,
  logFile: string,
  from: { build?: string } = {},
): ChildProcess {
  const args = [
    ...NODE_FLAGS[entry],
    ...(from.build ? [path.join(from.build, BUILD_ENTRY_POINTS[entry])] : ['--import', 'tsx', path.join(projectRoot, ENTRY_POINTS[entry])]),
  ];
  return spawnLogged(process.execPath, args, logFile, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
  });
}
