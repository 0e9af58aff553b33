import { until } from './waits';

/** Polls until `probe` returns a value other than undefined, and answers it; fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  let value: T | undefined;
  await until(async () => (value = await probe()) !== undefined, what, { timeoutMs, intervalMs: 100 });
  return value as T;
}
