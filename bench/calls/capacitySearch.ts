/** BENCH_FIND_CAPACITY=1: the largest call count whose turn p99 meets the target. */

/** The outcome of a capacity search: the largest count that met the target, and the smallest that missed it. */
export interface CapacitySearch {
  largestPassing: number | null;
  smallestFailing: number | null;
}

/**
 * Doubles the call count from `first` while `passesAt` holds (up to `maxCalls`), then bisects
 * between the last passing and the first failing count down to max(5, 10 %). If even `first`
 * fails, halves down to 1. Counts are tried one at a time, in that order.
 */
export async function searchCapacity(first: number, maxCalls: number, passesAt: (k: number) => Promise<boolean>): Promise<CapacitySearch> {
  let pass: number | null = null;
  let fail: number | null = null;
  for (let k = first; fail === null && k <= maxCalls; k *= 2) {
    if (await passesAt(k)) pass = k;
    else fail = k;
  }
  while (pass !== null && fail !== null && fail - pass > Math.max(5, Math.ceil(pass * 0.1))) {
    const k = Math.round((pass + fail) / 2);
    if (await passesAt(k)) pass = k;
    else fail = k;
  }
  if (pass === null && fail !== null) {
    // Even the first count failed: halve down to 1.
    for (let k = Math.floor(fail / 2); k >= 1 && pass === null; k = Math.floor(k / 2)) {
      if (await passesAt(k)) pass = k;
      else fail = k;
    }
  }
  return { largestPassing: pass, smallestFailing: fail };
}
