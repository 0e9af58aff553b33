import type twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';
import { outboundHttpSpan } from '../../../platform/tracing/http';

export interface TwilioAccount {
  accountSid: string;
  authToken: string;
}

/**
 * The official client for one account. `apiBaseUrl` (tests: the contract stub) replaces the
 * scheme, host and port of every request the SDK builds (`https://api.twilio.com/2010-04-01/…`),
 * through the SDK's own `httpClient` option: paths, form encoding, Basic auth and error parsing
 * stay the SDK's.
 */
export function twilioClient(account: TwilioAccount, options: { apiBaseUrl?: string; timeoutMs: number }): twilio.Twilio {
  const { twilio, RebasedRequestClient } = (sdk ??= loadSdk());
  const httpClient = new RebasedRequestClient({ timeout: options.timeoutMs }, options.apiBaseUrl);
  return twilio(account.accountSid, account.authToken, { httpClient, autoRetry: false });
}

/**
 * The REST client and its HTTP client are loaded when a process first talks to Twilio: one that never does (or
 * only answers Twilio's callbacks) does not pay for them at start (about 0.15 s of CPU).
 */
let sdk: ReturnType<typeof loadSdk> | undefined;
function loadSdk() {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said above */
  const twilio = require('twilio') as typeof import('twilio');
  const BaseRequestClient = require('twilio/lib/base/RequestClient') as typeof RequestClient;
  /* eslint-enable @typescript-eslint/no-require-imports */

  class RebasedRequestClient extends BaseRequestClient {
    constructor(
      options: RequestClient.RequestClientOptions,
      private readonly baseUrl: string | undefined,
    ) {
      super(options);
    }

    // The SDK sends with axios (node:http), which the fetch instrumentation does not see: the span is opened here.
    override request<TData>(opts: RequestClient.RequestOptions<TData>) {
      const original = new URL(opts.uri);
      const target = this.baseUrl ? new URL(`${original.pathname}${original.search}`, this.baseUrl) : original;
      return outboundHttpSpan(opts.method.toUpperCase(), target, (traceHeaders) =>
        super.request({ ...opts, uri: this.baseUrl ? target.toString() : opts.uri, headers: { ...opts.headers, ...traceHeaders } }),
      );
    }
  }
  return { twilio, RebasedRequestClient };
}
