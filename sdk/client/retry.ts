import { retryAfterSeconds } from './errors';

export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** Backoff for network errors and for a 429/503 without `Retry-After`: base × 2^attempt, with jitter (default 500 ms). */
  baseDelayMs: number;
  /** The longest wait the client accepts; a longer `Retry-After` is answered with the error instead (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 30_000 };

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * A request is safe to send again when its method is idempotent or it carries an
 * `Idempotency-Key` (the API then replays the first answer instead of acting twice).
 */
export function isRetrySafe(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
}

/**
 * Wraps `fetch` with the client's retries: a 429 (rate limited) is retried after its
 * `Retry-After`, whatever the method, since the API did nothing; a 503 with `Retry-After` and a
 * network error are retried only for a retry-safe request, since the API may have acted.
 */
export function retryingFetch(policy: RetryPolicy, fetchImpl: (request: Request) => Promise<Response> = fetch) {
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= policy.maxRetries;
      let response: Response;
      try {
        response = await fetchImpl(request.clone());
      } catch (err) {
        if (last || !isRetrySafe(request)) throw err;
        await sleep(backoff(policy, attempt));
        continue;
      }
      const retryable = response.status === 429 || (response.status === 503 && isRetrySafe(request));
      if (!retryable || last) return response;
      const advised = retryAfterSeconds(response);
      const delay = advised === null ? backoff(policy, attempt) : advised * 1000;
      if (delay > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}

function backoff(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
