/**
 * How a benchmark process runs: teardown steps registered as things start, the verdict (exit
 * code) of its main function, and timestamped progress lines.
 */
import { performance } from 'node:perf_hooks';

export interface Cleanups {
  push(step: () => Promise<void>): void;
  run(): Promise<void>;
}

/**
 * Steps run in reverse order at the end (or on Ctrl-C), each failure reported without stopping the
 * rest. `log`, if given, announces the teardown (stopping a stack can take a while).
 */
export function createCleanups(options: { log?: (line: string) => void } = {}): Cleanups {
  const steps: Array<() => Promise<void>> = [];
  const run = async () => {
    options.log?.('cleaning up');
    for (const step of steps.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        console.error(`[bench] cleanup failed: ${(err as Error).message}`);
      }
    }
    options.log?.('done');
  };
  process.once('SIGINT', () => void run().finally(() => process.exit(130)));
  return { push: (step) => void steps.push(step), run };
}

/** Runs `main` and exits with its code (0 when it returns none), or with 1 after printing what it threw. */
export function runBench(main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/** Prints each failure as a `[bench] FAIL:` line; the exit code is 1 if there was any. */
export function reportFailures(failures: readonly string[]): number {
  for (const failure of failures) console.error(`[bench] FAIL: ${failure}`);
  return failures.length > 0 ? 1 : 0;
}

/** A progress logger whose lines carry the seconds since it was made: `[bench] +12.3s line`. */
export function elapsedLog(): (line: string) => void {
  const t0 = performance.now();
  return (line) => console.log(`[bench] +${((performance.now() - t0) / 1000).toFixed(1)}s ${line}`);
}

/**
 * BENCH_TEMPORAL=server: the bench's stack runs the official Temporal server on Postgres (the cluster profile's,
 * `npm run up -- --cluster`) instead of the dev server; built once into the tool cache.
 */
export const onTemporalServer = (): boolean => process.env.BENCH_TEMPORAL === 'server';
