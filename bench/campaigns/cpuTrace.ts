import { cpuSeconds, processCpuMs } from '../support/cpu';

/** One window of a run: the dials placed in it and the CPU each part of the box spent on them. */
export interface CpuWindow {
  dials: number;
  benchSeconds: number;
  temporalSeconds: number;
  postgresSeconds: number;
}

/**
 * CPU a dial, window by window, over a long run: whether a dial costs more as the campaign (and the Temporal server's
 * store) grows. Each `sample(dials)` closes a window at the dials placed so far; the bench process (API, worker,
 * simulator), the Temporal server and Postgres are read from /proc (NaN where they cannot be).
 */
export function cpuTrace(read: { temporalPid: number | undefined; postgresCpuMs: () => number | undefined }) {
  const now = () => ({
    bench: process.cpuUsage(),
    temporalMs: processCpuMs(read.temporalPid) ?? NaN,
    postgresMs: read.postgresCpuMs() ?? NaN,
  });
  let last = { ...now(), dials: 0 };
  const windows: CpuWindow[] = [];
  return {
    sample(dials: number): CpuWindow | undefined {
      const at = now();
      const window = {
        dials: dials - last.dials,
        benchSeconds: cpuSeconds(process.cpuUsage(last.bench)),
        temporalSeconds: (at.temporalMs - last.temporalMs) / 1000,
        postgresSeconds: (at.postgresMs - last.postgresMs) / 1000,
      };
      last = { ...at, bench: process.cpuUsage(), dials };
      if (window.dials <= 0) return undefined;
      windows.push(window);
      return window;
    },
    windows: () => windows,
  };
}

/** A window's CPU a dial, as the bench's progress line prints it. */
export function perDial(window: CpuWindow): string {
  const each = (seconds: number) => (seconds / window.dials).toFixed(3);
  return (
    `${window.dials} dials, CPU s a dial: bench ${each(window.benchSeconds)}, Temporal ${each(window.temporalSeconds)}, ` +
    `Postgres ${each(window.postgresSeconds)}`
  );
}

/** The whole box's CPU a dial in the first window and in the last full one (the run's last, partial window left out). */
export function firstToLast(windows: readonly CpuWindow[]): string {
  const full = windows.length > 2 ? windows.slice(0, -1) : windows;
  if (full.length === 0) return 'n/a';
  const total = (w: CpuWindow) => ((w.benchSeconds + w.temporalSeconds + w.postgresSeconds) / w.dials).toFixed(3);
  return `${total(full[0])} → ${total(full[full.length - 1])} (${full.length} windows)`;
}
