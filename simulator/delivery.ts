import { carrierCallbackHeaders } from '../src/adapters/carrier/callbacks/signature';

/**
 * How the simulator calls Switchboard back (call events, SMS and receipts): where it may post
 * ({@link CallbackSender}), and how one event is posted until delivered ({@link postEvent}).
 */

/**
 * Where and how the simulator calls Switchboard back (call events, SMS and receipts): only to URLs under one
 * configured callback base (`SIMULATOR_CALLBACK_BASE_URL`, the API's URL), each attempt signed
 * afresh with the webhook secret (src/adapters/carrier/callbacks/signature.ts). No secret is ever sent, and a
 * URL outside the base is refused when it is given, so neither the carrier API nor the control API
 * can make the simulator post anywhere else (security review M10).
 */
export class CallbackSender {
  private base: URL | null = null;

  constructor(
    private readonly secret: string,
    baseUrl: string | null = null,
  ) {
    this.setBaseUrl(baseUrl);
  }

  get baseUrl(): string | null {
    return this.base?.toString() ?? null;
  }

  /** Set once the API's URL is known (in-process harnesses start the simulator first). */
  setBaseUrl(baseUrl: string | null): void {
    if (baseUrl === null) {
      this.base = null;
      return;
    }
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`the callback base must be an http(s) URL, not ${baseUrl}`);
    if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
    url.search = '';
    url.hash = '';
    this.base = url;
  }

  /** Whether `url` is under the callback base: same origin, and the base's path is a prefix of its path. */
  allows(url: string): boolean {
    if (!this.base) return false;
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return false;
    }
    return (
      target.origin === this.base.origin &&
      target.pathname.startsWith(this.base.pathname) &&
      target.username === '' &&
      target.password === ''
    );
  }

  /**
   * The URL to deliver to for a request's `events_url` / `status_url`: the base plus `defaultPath`
   * when none was given; an error text when the given one is not an http(s) URL under the base.
   */
  resolve(requested: unknown, defaultPath: string): { url: string } | { error: string } {
    if (!this.base) return { error: 'no callback base is configured (SIMULATOR_CALLBACK_BASE_URL)' };
    if (requested === undefined) return { url: new URL(defaultPath.replace(/^\/+/, ''), this.base).toString() };
    if (typeof requested !== 'string' || !this.allows(requested))
      return { error: `must be an http(s) URL under the callback base ${this.base.toString()}` };
    return { url: requested };
  }

  /**
   * POSTs `body` as JSON, signed for this attempt. `delivery` is shared by the attempts of one
   * delivery: each is signed with a later timestamp than the one before (even within the same
   * second, and even if the one before failed after reaching the receiver), so the receiver's
   * replay protection never mistakes a retry for a replay. Throws (as a network error would) for a
   * URL outside the base.
   */
  async post(url: string, body: object, signal: AbortSignal, delivery: { lastTimestamp?: number } = {}): Promise<Response> {
    if (!this.allows(url)) throw new Error('the callback URL is outside the configured callback base');
    const rawBody = JSON.stringify(body);
    const timestamp = Math.max(Math.floor(Date.now() / 1000), (delivery.lastTimestamp ?? 0) + 1);
    delivery.lastTimestamp = timestamp;
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...carrierCallbackHeaders({ secret: this.secret, rawBody, now: new Date(timestamp * 1000) }),
      },
      body: rawBody,
      signal,
      redirect: 'manual',
    });
  }
}

export interface DeliveryOptions {
  /** Tries per event before it is logged and dropped. */
  attempts: number;
  /** Pause between the first tries (it doubles every two tries, up to {@link MAX_RETRY_DELAY_MS}). */
  delayMs: number;
  /** How long one try may take. */
  timeoutMs: number;
}

const MAX_RETRY_DELAY_MS = 2_000;

/**
 * Like a real carrier's status callbacks, events are retried for a while (12 tries 200 ms apart
 * growing to 2 s, about 15 s in all) so a restarting Switchboard loses none.
 */
export function deliveryOptions(overrides: Partial<DeliveryOptions> = {}): DeliveryOptions {
  return { attempts: 12, delayMs: 200, timeoutMs: 2_000, ...overrides };
}

/** How one event's delivery ended: `refused` is a final HTTP answer; `status` is the last HTTP status received, if any. */
export interface DeliveryOutcome {
  delivery: 'delivered' | 'refused' | 'failed';
  status: number | null;
}

/**
 * POSTs one event, signed afresh on every try, until a 2xx, a final answer (`isFinal(status)`)
 * or `options.attempts` tries, and then calls `dropped` with the last error; never throws, so
 * later events still go. Network errors and timeouts are always retried; an abort of `signal`
 * (the simulator is stopping or resetting) ends it at once, as `failed`, without `dropped`.
 */
export async function postEvent(request: {
  callbacks: CallbackSender | null;
  url: string;
  event: object;
  signal: AbortSignal;
  options: DeliveryOptions;
  /** Whether a non-2xx status is final (not retried). */
  isFinal: (status: number) => boolean;
  /** Logs the event that is given up on. */
  dropped: (error: string) => void;
}): Promise<DeliveryOutcome> {
  const { callbacks, url, event, signal, options } = request;
  let error = '';
  let status: number | null = null;
  const signing = {};
  for (let attempt = 1; attempt <= options.attempts; attempt += 1) {
    if (signal.aborted) return { delivery: 'failed', status };
    try {
      if (!callbacks) throw new Error('no callback sender configured');
      // Signed afresh on every attempt with a new timestamp: a retry is a new request, not a replay.
      const response = await callbacks.post(url, event, AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]), signing);
      await response.arrayBuffer().catch(() => undefined);
      status = response.status;
      if (response.ok) return { delivery: 'delivered', status };
      if (request.isFinal(response.status)) return { delivery: 'refused', status };
      error = `HTTP ${response.status}`;
    } catch (err) {
      if (signal.aborted) return { delivery: 'failed', status };
      error = err instanceof Error ? err.message : String(err);
    }
    if (attempt < options.attempts) await sleep(Math.min(options.delayMs * 2 ** Math.floor((attempt - 1) / 2), MAX_RETRY_DELAY_MS), signal);
  }
  request.dropped(error);
  return { delivery: 'failed', status };
}

/** Resolves after `ms`, or at once when `signal` aborts (the simulator is stopping or resetting). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
