import twilio from 'twilio';
import RequestClient from 'twilio/lib/base/RequestClient';
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
  const httpClient = new RebasedRequestClient({ timeout: options.timeoutMs }, options.apiBaseUrl);
  return twilio(account.accountSid, account.authToken, { httpClient, autoRetry: false });
}

class RebasedRequestClient extends RequestClient {
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
