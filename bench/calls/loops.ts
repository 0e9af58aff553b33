import { performance } from 'node:perf_hooks';
import { sleep } from '../support/async';
import { postgresCpuMs, processCpuMs } from '../support/cpu';
import { fmt } from '../support/table';
import { TURN_TIMEOUT_MS, type Row } from './turns';

/** How turns are driven (closed loop, or paced lanes) and what each process's CPU costs per turn. */

export const CAPACITY_PERIOD_MS = 5_000;

/** Per-turn CPU of each process over a phase: ms of CPU / turns (undefined where not measured). */
export interface CpuPerTurn {
  bench: number | undefined;
  /** The API process (BENCH_API=process); its turns' carrier events go there. */
  api: number | undefined;
  worker: number | undefined;
  temporal: number | undefined;
  postgres: number | undefined;
}

/** The Postgres port of DATABASE_URL (for its server's CPU time). */
const postgresPort = () => Number(new URL(process.env.DATABASE_URL ?? 'postgres://localhost:5432').port || 5432);

export function cpuMeter(pids: {
  worker: number | undefined;
  temporal: number | undefined;
  api?: number | undefined;
}): (turns: number) => CpuPerTurn {
  const at = () => ({
    bench: processCpuMs(process.pid),
    api: processCpuMs(pids.api),
    worker: processCpuMs(pids.worker),
    temporal: processCpuMs(pids.temporal),
    postgres: postgresCpuMs(postgresPort()),
  });
  const before = at();
  return (turns) => {
    const after = at();
    const per = (b: number | undefined, a: number | undefined) => (b === undefined || a === undefined ? undefined : (a - b) / turns);
    return {
      bench: per(before.bench, after.bench),
      api: per(before.api, after.api),
      worker: per(before.worker, after.worker),
      temporal: per(before.temporal, after.temporal),
      postgres: per(before.postgres, after.postgres),
    };
  };
}

export const msOrNa = (ms: number | undefined) => (ms === undefined ? 'n/a' : fmt(ms, 1));

export interface ThroughputResult {
  turnsPerSecond: number;
  latency: Row;
  cpu: CpuPerTurn;
}

/** For reading a --cpu-prof profile over one phase only (V8 profiles count time on the same monotonic clock). */
export function printWindow(phase: string, start: bigint): void {
  if (process.env.BENCH_PRINT_WINDOW === '1')
    console.log(`[bench] ${phase} window, monotonic µs: ${start / 1000n} ${process.hrtime.bigint() / 1000n}`);
}

/** One paced run: `lanes` lanes, each doing one `turn` every CAPACITY_PERIOD_MS (phases staggered) for `seconds`. */
export async function paced<T>(lanes: number, seconds: number, turn: (lane: number, index: number) => Promise<T>): Promise<T[]> {
  const done: T[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: lanes }, async (_, i) => {
      // Stagger the lanes across the period so turns arrive evenly, not in bursts.
      let at = start + (CAPACITY_PERIOD_MS * i) / lanes;
      for (let t = 0; at < end; t += 1, at += CAPACITY_PERIOD_MS) {
        const wait = at - performance.now();
        if (wait > 0) await sleep(wait); // pacing: the open loop's arrival schedule is the measurement
        done.push(await turn(i, t));
      }
    }),
  );
  return done;
}

/** The same closed loop, back to back over `lanes` lanes until `turns` turns are done. */
export async function closedLoop<T>(lanes: number, turns: number, turn: (lane: number, index: number) => Promise<T>): Promise<T[]> {
  const done: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, i) => {
      while (next < turns) {
        next += 1;
        done.push(await turn(i, next));
      }
    }),
  );
  return done;
}

/** A waiter per text: resolves to the arrival time (performance.now()) of that text, or rejects after TURN_TIMEOUT_MS. */
export function arrivals() {
  const waiting = new Map<string, (at: number) => void>();
  return {
    arrived(text: string, at: number) {
      waiting.get(text)?.(at);
      waiting.delete(text);
    },
    expect(text: string, what: string): Promise<number> {
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(text);
          reject(new Error(`${what} of ${text} not received within ${TURN_TIMEOUT_MS / 1000} s`));
        }, TURN_TIMEOUT_MS);
        waiting.set(text, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
  };
}
