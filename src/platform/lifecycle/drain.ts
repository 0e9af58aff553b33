import type http from 'node:http';
import type { Logger } from '../logger';

/** Time allowed after a drain's deadline for closing pools and connections, before the process exits 1 regardless. */
export const CLOSE_MARGIN_MS = 5_000;

/** How often a draining server closes the keep-alive connections that have just finished a request. */
const IDLE_SWEEP_MS = 100;

/**
 * Drains an HTTP server: it stops accepting connections at once, closes idle keep-alive
 * connections, lets the requests in flight finish (closing each connection once its answer is
 * sent), and after `deadlineMs` cuts the connections still open. Resolves once the server is closed: `true`
 * when every request finished in time, `false` when some were cut at the deadline.
 */
export async function drainHttpServer(server: http.Server, deadlineMs: number): Promise<boolean> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Node closes idle connections once on close(); a connection whose request finishes later
  // would otherwise stay open for its keep-alive timeout, and the server with it.
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), deadlineMs);
  });
  try {
    const inTime = await Promise.race([closed.then(() => true as const), deadline]);
    if (!inTime) {
      server.closeAllConnections();
      await closed;
    }
    return inTime;
  } finally {
    clearInterval(sweep);
    clearTimeout(timer);
  }
}

export interface TerminationOptions {
  /** Stops the process's work in order; the process ends when it has (the caller exits, or its event loop empties). */
  drain: (signal: NodeJS.Signals) => Promise<void> | void;
  /** After this long the process exits 1 whatever the drain is waiting for. */
  forceExitAfterMs: number;
  log: Logger;
  /** Injected by tests. */
  signals?: Pick<NodeJS.Process, 'on'>;
  exit?: (code: number) => void;
}

/**
 * The first SIGTERM or SIGINT starts the drain; the same signal again, a failing drain, or a drain
 * that outlives `forceExitAfterMs` ends the process at once with exit code 1 (an orchestrator's
 * SIGKILL would otherwise come with no log line saying why). The other signal during a drain is
 * the same stop: a terminal's Ctrl-C reaches a whole process group (SIGINT), and the supervisor
 * in it (`npm run up`, a shell script) then sends its children SIGTERM.
 */
export function drainOnSignal(options: TerminationOptions): void {
  const { drain, forceExitAfterMs, log, signals = process, exit = (code: number) => process.exit(code) } = options;
  let first: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === signal) {
      log.warn({ signal }, 'second signal: exiting without finishing the drain');
      exit(1);
      return;
    }
    if (first !== undefined) {
      log.info({ signal }, 'already draining');
      return;
    }
    first = signal;
    log.info({ signal, force_exit_after_ms: forceExitAfterMs }, 'draining');
    // Unref'd: a drain that finishes lets the process end on its own.
    setTimeout(() => {
      log.error({ force_exit_after_ms: forceExitAfterMs }, 'drain outlived its deadline: exiting');
      exit(1);
    }, forceExitAfterMs).unref();
    Promise.resolve()
      .then(() => drain(signal))
      .catch((err: unknown) => {
        log.error({ err }, 'drain failed: exiting');
        exit(1);
      });
  };
  signals.on('SIGTERM', onSignal);
  signals.on('SIGINT', onSignal);
}
