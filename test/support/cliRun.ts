import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BUILD_ENTRY_POINTS } from '../../src/platform/buildLayout';
import { runBuildDir } from './buildDir';

export interface CliRun {
  status: number | null;
  /** The printed JSON object, `{}` for human output. */
  json: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

const root = path.resolve(__dirname, '../..');

/**
 * The command `npm run cli` runs (package.json's `scripts.cli`, read here so that there is one home for it), with this
 * process's Node: `npm run` adds about 0.15 s of CPU to each of the suite's three dozen CLI runs and nothing the CLI reads
 * except INIT_CWD, which runCli sets as npm does.
 */
function sourcesCommand(): { file: string; args: string[] } {
  const script = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { cli: string } }).scripts.cli;
  const [program, ...args] = script.split(/\s+/);
  if (program !== 'node') throw new Error(`package.json's cli script no longer starts with node: ${script}`);
  return { file: process.execPath, args };
}

/**
 * The CLI as the image runs it (`node dist/src/main/cli.js`), from the run's production build when the global setup made
 * one: the same code without tsx compiling it at every start. Without a build, the sources as `npm run cli` runs them.
 */
function cliCommand(): { file: string; args: string[] } {
  const build = runBuildDir();
  return build ? { file: process.execPath, args: [path.join(build, BUILD_ENTRY_POINTS.cli)] } : sourcesCommand();
}

/**
 * The operator CLI from the repository root, with `env` on top of this process's: from the run's production build (see
 * `cliCommand`); with `fromSources`, the command of `npm run cli` (the TypeScript sources under tsx); with `viaNpm`,
 * exactly as the README says (`npm run --silent cli -- ...`).
 */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, { viaNpm = false, fromSources = false } = {}): CliRun {
  const { file, args: cliArgs } = viaNpm
    ? { file: 'npm', args: ['run', '--silent', 'cli', '--'] }
    : fromSources
      ? sourcesCommand()
      : cliCommand();
  const result = spawnSync(file, [...cliArgs, ...args], {
    cwd: root,
    // npm run records where it was started (INIT_CWD): the CLI resolves an operator's relative paths against it.
    env: { ...process.env, LOG_LEVEL: 'silent', ...(viaNpm ? {} : { INIT_CWD: root }), ...env },
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
