import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatElapsed, runWithProgress, withProgress } from '../../dev/infra/proc';
import { projectRoot } from '../../src/platform/config';

/**
 * Long set-up steps (npm install, apt installs, the Go builds) say they are still running and how long they took
 * (`withProgress` in dev/infra/proc.ts; its shell twin in src/main/ensure-deps.sh).
 */
describe('progress of long set-up steps', () => {
  it('formats elapsed times as the lines print them', () => {
    expect([250, 45_000, 90_000, 252_000, 3_720_000].map(formatElapsed)).toEqual(['250ms', '45s', '1m30s', '4m12s', '1h02m']);
  });

  it('says the step is still running at each interval, then its total time', async () => {
    const lines: string[] = [];
    const output = await runWithProgress(
      'building the thing',
      (line) => lines.push(line),
      process.execPath,
      // pacing: the stand-in step lasts 300 ms, so several of the 50 ms progress ticks fall inside it.
      ['-e', 'setTimeout(() => console.log("built"), 300)'],
      {
        everyMs: 50,
      },
    );
    expect(output.trim()).toBe('built');
    expect(lines[0]).toBe('building the thing...');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^still building the thing\.\.\. \d+ms$/);
    expect(lines.at(-1)).toMatch(/^building the thing: done in \d+ms$/);
  });

  it('says how long a failing step ran, and passes its error on', async () => {
    const lines: string[] = [];
    await expect(
      withProgress(
        'installing nothing',
        (line) => lines.push(line),
        () => Promise.reject(new Error('apt-get exited with 100')),
      ),
    ).rejects.toThrow('apt-get exited with 100');
    expect(lines).toEqual(['installing nothing...', expect.stringMatching(/^installing nothing: failed after \d+ms$/)]);
  });

  describe('src/main/ensure-deps.sh', () => {
    /** The script in a copy of the project with `npm` replaced by a stand-in that takes `seconds` and exits with `status`. */
    function runEnsureDeps(seconds: number, status: number) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-ensure-deps-'));
      try {
        fs.mkdirSync(path.join(dir, 'src', 'main'), { recursive: true });
        fs.copyFileSync(path.join(projectRoot, 'src', 'main', 'ensure-deps.sh'), path.join(dir, 'src', 'main', 'ensure-deps.sh'));
        fs.writeFileSync(path.join(dir, 'package-lock.json'), '{}');
        fs.mkdirSync(path.join(dir, 'bin'));
        // pacing: the stand-in install lasts `seconds`, long enough for the script's 2 s progress interval to tick.
        fs.writeFileSync(path.join(dir, 'bin', 'npm'), `#!/usr/bin/env bash\nsleep ${seconds}\nexit ${status}\n`, { mode: 0o755 });
        const started = Date.now();
        const result = spawnSync('bash', [path.join(dir, 'src', 'main', 'ensure-deps.sh')], {
          env: { ...process.env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, SETUP_PROGRESS_SECONDS: '2' },
          encoding: 'utf8',
        });
        return { ...result, tookMs: Date.now() - started };
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }

    it('prints a progress line each interval while npm installs, the total time at the end, and ends with npm', () => {
      const ok = runEnsureDeps(2.5, 0);
      expect(ok.status).toBe(0);
      const lines = ok.stderr.trim().split('\n');
      expect(lines[0]).toBe('[setup] installing npm dependencies (npm install)...');
      // The first tick comes 2 s in; bash's SECONDS counts whole seconds from the script's start, so it reads 2 or 3.
      expect(lines).toContainEqual(expect.stringMatching(/^\[setup\] still installing npm dependencies \(npm install\)\.\.\. [23]s$/));
      expect(lines.at(-1)).toMatch(/^\[setup\] installing npm dependencies \(npm install\): done in [23]s$/);
      // The ticker and its `sleep` end with the install: nothing holds the output open until the next tick (4 s).
      expect(ok.tookMs).toBeLessThan(3_800);

      const failed = runEnsureDeps(0, 3);
      expect(failed.status).toBe(3);
      expect(failed.stderr.trim().split('\n').at(-1)).toMatch(/^\[setup\] installing npm dependencies \(npm install\): failed after 0s$/);
    });
  });
});
