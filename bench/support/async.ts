/** Pacing for the benchmarks: waits, polls, and work spread over a bounded number of lanes. */
import { performance } from 'node:perf_hooks';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight, each lane taking the next index when free. */
export async function runBounded(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next;
      next += 1;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, lane));
}

/** Runs `run` over `items` `size` at a time, each batch finishing before the next starts; results in order. */
export async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map((item, i) => run(item, start + i)))));
  }
  return results;
}

/** Checks `probe` every `intervalMs` until it holds or `timeoutMs` has passed; says whether it held. */
export async function pollUntil(probe: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (performance.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** As `pollUntil`, but not holding in time is an error that names `what` was awaited. */
export async function waitUntil(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<void> {
  if (!(await pollUntil(probe, timeoutMs, intervalMs))) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}
