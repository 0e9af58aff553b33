import type { Client } from '@temporalio/client';
import { withCallContext } from './callContext';

/**
 * Waits at most `ms` for a workflow's result. Past that the long poll is cancelled, so no
 * request to Temporal outlives the HTTP request that asked; the workflow carries on by itself.
 * A workflow that failed within the wait rejects, as `handle.result()` does.
 */
export async function waitForResult<R>(
  client: Client,
  handle: { result(): Promise<R> },
  ms: number,
): Promise<{ finished: true; result: R } | { finished: false }> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  try {
    return {
      finished: true,
      result: await withCallContext(client.connection, () => client.withAbortSignal(stop.signal, () => handle.result())),
    };
  } catch (err) {
    if (stop.signal.aborted) return { finished: false };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
