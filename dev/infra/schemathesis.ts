import { spawnSync } from 'node:child_process';
import { isExecutable } from './proc';
import { pipInstall, venvBin, type Log } from './toolVenv';

/**
 * Finds or installs schemathesis (the OpenAPI fuzzer the test suite runs against the served
 * document). Order: `SCHEMATHESIS` (a path), the tool cache's virtualenv, then PyPI into that
 * virtualenv. Pinned, so a run is reproducible from its seed.
 */
export const SCHEMATHESIS_VERSION = '4.32.5';
export const SCHEMATHESIS_WHEEL = `schemathesis==${SCHEMATHESIS_VERSION}`;

function versionOf(executable: string): string | undefined {
  const result = spawnSync(executable, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (result.error || result.status !== 0) return undefined;
  return /(\d+\.\d+\.\d+)/.exec(result.stdout)?.[1];
}

export function ensureSchemathesis(toolCacheDir: string, log: Log): string {
  const fromEnv = process.env.SCHEMATHESIS;
  if (fromEnv && isExecutable(fromEnv)) return fromEnv;
  const cached = venvBin(toolCacheDir, 'schemathesis');
  if (isExecutable(cached) && versionOf(cached) === SCHEMATHESIS_VERSION) return cached;
  if (pipInstall(toolCacheDir, SCHEMATHESIS_WHEEL, log) && isExecutable(cached) && versionOf(cached) === SCHEMATHESIS_VERSION)
    return cached;
  throw new Error(
    `schemathesis ${SCHEMATHESIS_VERSION} is not installed and could not be installed: run \`${venvBin(toolCacheDir, 'pip')} install ${SCHEMATHESIS_WHEEL}\`, or set SCHEMATHESIS to its path.`,
  );
}
