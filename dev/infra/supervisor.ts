import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { formatElapsed, stopProcess } from './proc';

/**
 * Keeps `npm run up`'s children running (docs/decisions/operations.md "up supervises its children"): a child that exits
 * when nobody asked it to is started again after a delay that doubles with each failure, and a child that fails
 * `maxFailures` times within `windowMs` is given up on (the caller stops everything and says why). A deliberate stop
 * (`kill`, or `shutdown` on Ctrl-C) never triggers a restart.
 */
export interface RestartPolicy {
  /** The delay before the first restart; each further failure within the window doubles it. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** This many failures of one child within `windowMs` and it is given up on. */
  maxFailures: number;
  windowMs: number;
}

/** `npm run up`'s numbers: restarts after 1 s, 2 s, 4 s, 8 s; the fifth failure within a minute gives up. */
export const RESTART_POLICY: RestartPolicy = { firstDelayMs: 1_000, maxDelayMs: 30_000, maxFailures: 5, windowMs: 60_000 };

/** How many of a child's last log lines a give-up quotes. */
const LAST_LINES = 20;

export interface ChildSpec {
  /** What the log lines call it (`worker`, `api-1`). */
  name: string;
  /** Starts the process; may also wait until it serves, leaving nothing running when it fails. */
  spawn: () => ChildProcess | Promise<ChildProcess>;
  /** Resolves once it serves (e.g. listens on its port); a rejection, or an exit first, stops it and counts as a failure. */
  ready?: (child: ChildProcess) => Promise<void>;
  /** Where its output goes: a give-up quotes its last lines. */
  logFile?: string;
}

/** A supervised child: `kill` and `start` are deliberate (no restart in between). */
export interface SupervisedChild {
  readonly name: string;
  /** The current process (the latest restart's). */
  readonly child: ChildProcess;
  /** Kills it with `signal` (SIGTERM: a graceful stop, SIGKILL after 10 s; SIGKILL: a crash) and keeps it down until `start()`. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again and waits until it serves. */
  start(): Promise<void>;
}

export interface GiveUp {
  name: string;
  /** The last failure: `exit code 1`, `signal SIGKILL`, or why it did not start. */
  reason: string;
  failures: number;
  /** Within this long (the policy's window). */
  windowMs: number;
  logFile: string | undefined;
  lastLines: string[];
}

export interface Supervisor {
  /** Starts a child (rejecting when it does not start: no restarts for a first start) and supervises it from then on. */
  start(spec: ChildSpec): Promise<SupervisedChild>;
  /** No more restarts, pending ones cancelled (Ctrl-C): the children are then stopped through their handles. */
  shutdown(): void;
  readonly shuttingDown: boolean;
}

export function createSupervisor(opts: {
  log: (line: string) => void;
  policy?: RestartPolicy;
  /** A child failed too often; it stays down. */
  onGiveUp: (failure: GiveUp) => void;
}): Supervisor {
  const policy = opts.policy ?? RESTART_POLICY;
  const log = opts.log;
  let shuttingDown = false;
  const timers = new Set<NodeJS.Timeout>();

  const start = async (spec: ChildSpec): Promise<SupervisedChild> => {
    let current: ChildProcess | undefined;
    /** Deliberately stopped, or given up on: exits are expected and nothing restarts it. */
    let down = false;
    let failures: number[] = [];
    let timer: NodeJS.Timeout | undefined;
    let launching: Promise<void> | undefined;
    const quiet = () => shuttingDown || down;

    const launch = async (): Promise<void> => {
      const child = await spec.spawn();
      current = child;
      const exited = new Promise<string>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve(describeExit(child.exitCode, child.signalCode));
        else child.once('exit', (code, signal) => resolve(describeExit(code, signal)));
      });
      if (spec.ready) {
        const notReady = (reason: string) => new Error(`exited (${reason}) before it served`);
        try {
          await Promise.race([spec.ready(child), exited.then((reason) => Promise.reject(notReady(reason)))]);
        } catch (err) {
          current = undefined;
          await stopProcess(child);
          throw err;
        }
      } else if (child.exitCode !== null || child.signalCode !== null) {
        current = undefined;
        throw new Error(`exited (${describeExit(child.exitCode, child.signalCode)}) as it started`);
      }
      void exited.then((reason) => {
        if (child === current && !quiet()) failed(reason);
      });
      // Stopped while it started (Ctrl-C during a restart): it must not outlive the stop.
      if (quiet()) await stopProcess(child);
    };

    const failed = (reason: string) => {
      const now = Date.now();
      failures = [...failures.filter((at) => at > now - policy.windowMs), now];
      if (failures.length >= policy.maxFailures) {
        down = true;
        opts.onGiveUp({
          name: spec.name,
          reason,
          failures: failures.length,
          windowMs: policy.windowMs,
          logFile: spec.logFile,
          lastLines: spec.logFile ? lastLines(spec.logFile, LAST_LINES) : [],
        });
        return;
      }
      const delay = Math.min(policy.firstDelayMs * 2 ** (failures.length - 1), policy.maxDelayMs);
      log(
        `${spec.name} exited unexpectedly (${reason}); restarting it in ${formatElapsed(delay)} ` +
          `(failure ${failures.length} of ${policy.maxFailures} allowed within ${formatElapsed(policy.windowMs)})`,
      );
      timer = setTimeout(() => {
        timers.delete(timer!);
        timer = undefined;
        if (quiet()) return;
        launching = launch().then(
          () => {
            if (!quiet()) log(`${spec.name} restarted (pid ${current?.pid})`);
          },
          (err: Error) => {
            if (!quiet()) failed(`did not start: ${firstLine(err.message)}`);
          },
        );
      }, delay);
      timers.add(timer);
    };

    await launch();
    return {
      name: spec.name,
      get child() {
        return current!;
      },
      async kill(signal: NodeJS.Signals = 'SIGTERM') {
        down = true;
        if (timer) clearTimeout(timer);
        await launching;
        const child = current;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        if (signal === 'SIGTERM') return stopProcess(child);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill(signal);
        await exited;
      },
      async start() {
        await launching;
        down = false;
        failures = [];
        await launch();
      },
    };
  };

  return {
    start,
    shutdown() {
      shuttingDown = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
    get shuttingDown() {
      return shuttingDown;
    },
  };
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/** The last `count` non-empty lines of `file` (its last 64 KiB), each cut to 500 characters; none when it cannot be read. */
export function lastLines(file: string, count: number): string[] {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, 64 * 1024);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      return buffer
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .slice(-count)
        .map((line) => (line.length > 500 ? `${line.slice(0, 500)}…` : line));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0];
}
