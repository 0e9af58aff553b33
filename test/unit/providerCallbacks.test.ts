import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { AppContext, AppDeps } from '../../api/context';
import { providerCallbackRoute } from '../../api/routes/providerCallback';
import { environmentsOfTwilioAccount, twilioAccounts } from '../../src/adapters/carrier/twilio/callbacks';
import { loadConfig } from '../../src/platform/config';

/** The shared pieces of the providers' callbacks (issue 28): the route shape and Twilio's account reach. */
describe('provider callbacks', () => {
  it('a provider callback route is an internal signed POST whose body reaches its handler', async () => {
    const received: unknown[] = [];
    const route = providerCallbackRoute<{ id: string }>({
      path: '/carrier/acme',
      operationId: 'acmeEvent',
      auth: { kind: 'carrier' },
      bodyLimitBytes: 1024,
      summary: 'Internal: Acme events',
      body: { type: 'object', required: ['id'] },
      received: '`{received: true}`',
      refusals: { '404': { description: 'unknown' } },
      receive: async (_ctx, _deps, body) => void received.push(body),
    });
    expect(route).toMatchObject({ method: 'post', path: '/carrier/acme', operationId: 'acmeEvent', bodyLimitBytes: 1024 });
    expect(route.doc.tags).toEqual(['internal']);
    expect(route.doc.requestBody?.content['application/json'].schema).toEqual({ type: 'object', required: ['id'] });
    expect(Object.keys(route.doc.responses)).toEqual(['200', '401', '404']);
    expect(route.doc.responses['401'].description).toBe('`unauthorized`: missing, wrong, stale or replayed signature');
    await route.handler({ state: { body: { id: 'e1' } } } as unknown as AppContext, {} as AppDeps);
    expect(received).toEqual([{ id: 'e1' }]);
    const stripe = providerCallbackRoute({
      path: '/payments/acme',
      operationId: 'acmePayment',
      auth: { kind: 'stripe' },
      bodyLimitBytes: 1024,
      summary: 'Internal: Acme payments',
      body: { type: 'object' },
      received: 'Received',
      unauthorized: 'Signature missing or invalid',
      receive: async () => {},
    });
    expect(stripe.doc.responses['401'].description).toBe('Signature missing or invalid');
  });

  it('a Twilio callback reaches only the environments on Twilio whose account signed it', () => {
    const sid = () => `AC${crypto.randomBytes(16).toString('hex')}`;
    const [testSid, liveSid] = [sid(), sid()];
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: path.join(os.tmpdir(), `switchboard-no-data-${crypto.randomUUID()}`),
      CARRIER_PROVIDER_TEST: 'twilio',
      CARRIER_PROVIDER_LIVE: 'twilio',
      TWILIO_TEST_ACCOUNT_SID: testSid,
      TWILIO_TEST_AUTH_TOKEN: 'test-token',
      TWILIO_LIVE_ACCOUNT_SID: liveSid,
      TWILIO_LIVE_AUTH_TOKEN: 'live-token',
    });
    expect(twilioAccounts(config).map((account) => account.accountSid)).toEqual([testSid, liveSid]);
    expect(environmentsOfTwilioAccount(config, testSid)).toEqual(['test']);
    expect(environmentsOfTwilioAccount(config, liveSid)).toEqual(['live']);
    expect(environmentsOfTwilioAccount(config, sid())).toEqual([]);
    // An account whose environment has left Twilio reaches nothing, though its settings remain.
    expect(environmentsOfTwilioAccount({ ...config, carrier: { test: 'simulator', live: 'twilio' } }, testSid)).toEqual([]);
  });
});
