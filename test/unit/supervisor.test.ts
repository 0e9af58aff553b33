import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnLogged } from '../../dev/infra/proc';
import { createSupervisor, type GiveUp, type RestartPolicy, type Supervisor } from '../../dev/infra/supervisor';
import { until } from '../support/waits';

/**
 * `npm run up`'s supervisor (dev/infra/supervisor.ts) with real child processes (`node -e`): restarts with a doubling
 * delay, gives up after too many failures within the window quoting the child's last lines, and never restarts what
 * was stopped on purpose or after a shutdown (Ctrl-C).
 */
describe('the supervisor of `up`', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-supervisor-'));
  const handles: Array<{ kill(signal?: NodeJS.Signals): Promise<void> }> = [];
  afterAll(async () => {
    for (const handle of handles) await handle.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A supervisor whose log lines, spawns and give-ups the test reads. */
  function supervise(policy: RestartPolicy, script: string, name: string) {
    const lines: string[] = [];
    const spawned: Array<{ at: number; child: ChildProcess }> = [];
    const gaveUp: GiveUp[] = [];
    const supervisor: Supervisor = createSupervisor({ log: (line) => lines.push(line), policy, onGiveUp: (f) => gaveUp.push(f) });
    const logFile = path.join(dir, `${name}.log`);
    const start = async () => {
      const handle = await supervisor.start({
        name,
        spawn: () => {
          const child = spawnLogged(process.execPath, ['-e', script], logFile);
          spawned.push({ at: Date.now(), child });
          return child;
        },
        logFile,
      });
      handles.push(handle);
      return handle;
    };
    return { supervisor, lines, spawned, gaveUp, start, logFile };
  }

  const longRunning = 'setInterval(() => undefined, 1000)';

  it('restarts a crashing child after doubling delays (capped), then gives up on the Nth failure within the window with its last lines', async () => {
    const policy = { firstDelayMs: 100, maxDelayMs: 300, maxFailures: 4, windowMs: 60_000 };
    const crasher = supervise(policy, "console.error('boom from ' + process.pid); process.exit(3)", 'crasher');
    await crasher.start();
    await until(() => crasher.gaveUp.length === 1, 'the give-up', { timeoutMs: 20_000 });

    expect(crasher.spawned).toHaveLength(4);
    // Each restart waited at least its delay after the previous process started: 100 ms, 200 ms, then the 300 ms cap.
    const gaps = crasher.spawned.slice(1).map((spawn, i) => spawn.at - crasher.spawned[i].at);
    [100, 200, 300].forEach((delay, i) => expect(gaps[i]).toBeGreaterThanOrEqual(delay));
    expect(crasher.lines).toEqual([
      'crasher exited unexpectedly (exit code 3); restarting it in 100ms (failure 1 of 4 allowed within 1m00s)',
      expect.stringMatching(/^crasher restarted \(pid \d+\)$/),
      'crasher exited unexpectedly (exit code 3); restarting it in 200ms (failure 2 of 4 allowed within 1m00s)',
      expect.stringMatching(/^crasher restarted/),
      'crasher exited unexpectedly (exit code 3); restarting it in 300ms (failure 3 of 4 allowed within 1m00s)',
      expect.stringMatching(/^crasher restarted/),
    ]);
    const last = crasher.spawned[3].child.pid;
    expect(crasher.gaveUp[0]).toEqual({
      name: 'crasher',
      reason: 'exit code 3',
      failures: 4,
      windowMs: 60_000,
      logFile: crasher.logFile,
      lastLines: expect.arrayContaining([`boom from ${last}`]),
    });
    expect(crasher.gaveUp[0].lastLines.at(-1)).toBe(`boom from ${last}`);
  });

  it('starts a child killed with SIGKILL again under a new pid, and forgets failures older than the window', async () => {
    const policy = { firstDelayMs: 50, maxDelayMs: 50, maxFailures: 2, windowMs: 400 };
    const worker = supervise(policy, longRunning, 'worker');
    const handle = await worker.start();
    for (let kill = 1; kill <= 3; kill += 1) {
      const pid = handle.child.pid!;
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      await until(() => handle.child.pid !== pid && worker.lines.at(-1) === `worker restarted (pid ${handle.child.pid})`, 'the restart', {
        timeoutMs: 10_000,
      });
      expect(worker.lines.at(-2)).toBe(
        'worker exited unexpectedly (signal SIGKILL); restarting it in 50ms (failure 1 of 2 allowed within 400ms)',
      );
      // Two kills inside the window would give up; each kill here comes after the window has forgotten the last one.
      const sinceKill = Date.now() - killedAt;
      if (sinceKill < policy.windowMs) await new Promise((resolve) => setTimeout(resolve, policy.windowMs - sinceKill + 20)); // waits out the window
    }
    expect(worker.gaveUp).toEqual([]);
    expect(worker.spawned).toHaveLength(4);
  });

  it('never restarts a child stopped on purpose, nor one that exits after a shutdown (Ctrl-C), nor a restart still pending', async () => {
    const policy = { firstDelayMs: 50, maxDelayMs: 50, maxFailures: 5, windowMs: 60_000 };
    // On purpose: `kill` keeps it down, even with SIGKILL (the cluster test's crash), until `start`.
    const stopped = supervise(policy, longRunning, 'stopped');
    const handle = await stopped.start();
    await handle.kill('SIGKILL');
    // Ctrl-C: `up` shuts the supervisor down, then the terminal's SIGINT reaches the child too.
    const interrupted = supervise(policy, "process.on('SIGINT', () => process.exit(0)); setInterval(() => undefined, 1000)", 'interrupted');
    const child = (await interrupted.start()).child;
    interrupted.supervisor.shutdown();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
    // A crash whose restart is pending when `up` stops: the restart is cancelled.
    const pending = supervise({ ...policy, firstDelayMs: 200, maxDelayMs: 200 }, longRunning, 'pending');
    const crashed = (await pending.start()).child;
    process.kill(crashed.pid!, 'SIGKILL');
    await until(() => pending.lines.length === 1, 'the restart to be scheduled');
    pending.supervisor.shutdown();

    await new Promise((resolve) => setTimeout(resolve, 500)); // waits out every restart delay above (50 ms, 200 ms)
    expect([stopped, interrupted, pending].map((s) => s.spawned.length)).toEqual([1, 1, 1]);
    expect([...stopped.lines, ...interrupted.lines]).toEqual([]);
    expect(pending.lines).toEqual([
      'pending exited unexpectedly (signal SIGKILL); restarting it in 200ms (failure 1 of 5 allowed within 1m00s)',
    ]);

    // `start` brings the deliberately stopped child back, supervised again.
    await handle.start();
    expect(stopped.spawned).toHaveLength(2);
    expect(handle.child.exitCode).toBeNull();
  });

  it('refuses a first start that does not serve, leaving nothing running', async () => {
    const supervisor = createSupervisor({ log: () => undefined, onGiveUp: () => undefined });
    let child: ChildProcess | undefined;
    await expect(
      supervisor.start({
        name: 'api',
        spawn: () => (child = spawnLogged(process.execPath, ['-e', longRunning], path.join(dir, 'api.log'))),
        ready: () => Promise.reject(new Error('nothing listening on 127.0.0.1:1 after 60000 ms')),
      }),
    ).rejects.toThrow('nothing listening');
    expect(child!.signalCode).toBe('SIGTERM');
    // And a child that exits before it serves is named with its exit.
    await expect(
      supervisor.start({
        name: 'api',
        spawn: () => spawnLogged(process.execPath, ['-e', 'process.exit(7)'], path.join(dir, 'api.log')),
        ready: () => new Promise(() => undefined),
      }),
    ).rejects.toThrow('exited (exit code 7) before it served');
  });
});
