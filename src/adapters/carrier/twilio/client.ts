import twilio from 'twilio';
import RequestClient from 'twilio/lib/base/RequestClient';

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

  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    if (!this.baseUrl) return super.request(opts);
    const original = new URL(opts.uri);
    const rebased = new URL(`${original.pathname}${original.search}`, this.baseUrl);
    return super.request({ ...opts, uri: rebased.toString() });
  }
}
