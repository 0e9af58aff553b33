import { carrierCallbackHeaders } from '../src/adapters/carrier/callbacks/signature';

/**
 * How the simulator calls Switchboard back (call events, SMS and receipts): only to URLs under one
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
    return target.origin === this.base.origin && target.pathname.startsWith(this.base.pathname) && target.username === '' && target.password === '';
  }

  /**
   * The URL to deliver to for a request's `events_url` / `status_url`: the base plus `defaultPath`
   * when none was given; an error text when the given one is not an http(s) URL under the base.
   */
  resolve(requested: unknown, defaultPath: string): { url: string } | { error: string } {
    if (!this.base) return { error: 'no callback base is configured (SIMULATOR_CALLBACK_BASE_URL)' };
    if (requested === undefined) return { url: new URL(defaultPath.replace(/^\/+/, ''), this.base).toString() };
    if (typeof requested !== 'string' || !this.allows(requested)) return { error: `must be an http(s) URL under the callback base ${this.base.toString()}` };
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
      headers: { 'content-type': 'application/json', ...carrierCallbackHeaders({ secret: this.secret, rawBody, now: new Date(timestamp * 1000) }) },
      body: rawBody,
      signal,
      redirect: 'manual',
    });
  }
}
