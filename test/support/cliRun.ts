import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface CliRun {
  status: number | null;
  /** The printed JSON object, `{}` for human output. */
  json: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

/** The operator CLI run exactly as the README says (`npm run --silent cli -- ...`), from the repository root, with `env` on top of this process's. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): CliRun {
  const result = spawnSync('npm', ['run', '--silent', 'cli', '--', ...args], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(result.stdout);
  } catch {
    // human output
  }
  return { status: result.status, json, stdout: result.stdout, stderr: result.stderr };
}
