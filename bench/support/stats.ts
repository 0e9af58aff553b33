/** The benchmarks' statistics: nearest-rank quantiles over latency samples (ms). */

/** The nearest-rank value at quantile `q` (0..1) of samples sorted ascending; NaN when there are none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export interface Distribution {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Count, p50, p99 and max of samples in any order (NaN for the figures when there are none). */
export function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  return { count: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1) ?? Number.NaN };
}
