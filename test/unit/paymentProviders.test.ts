import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { SimulatorPaymentProcessor } from '../../src/adapters/payments/simulatorProcessor';
import { StripePaymentProcessor } from '../../src/adapters/payments/stripeProcessor';
import { paymentProcessorsFor, stripeClientFor } from '../../src/main/payments';
import { loadConfig } from '../../src/platform/config';
import { configurationReport, type ProcessRole } from '../../src/platform/startupCheck';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';

/** The card processor of each environment, chosen by configuration; the two environments never share a Stripe mode (issue 16). */
describe('payments provider configuration', () => {
  const strong = () => crypto.randomBytes(32).toString('hex');
  const baseEnv = (): NodeJS.ProcessEnv => ({
    DATABASE_URL: 'postgres://switchboard@postgres:5432/switchboard',
    TEMPORAL_ADDRESS: 'temporal:7233',
    HOST: '0.0.0.0',
    PUBLIC_BASE_URL: 'https://switchboard.example.com',
    CARRIER_WEBHOOK_SECRET: strong(),
    CARRIER_API_KEY: strong(),
    PAYMENTS_API_KEY: strong(),
    SECRETS_KEY: strong(),
    TEMPORAL_PAYLOAD_KEY: strong(),
    SWITCHBOARD_DATA_DIR: path.join(os.tmpdir(), `switchboard-no-data-${crypto.randomUUID()}`),
  });
  /** Live cards are real only beside a real live carrier (startup check L17). */
  const liveCarrier = () => ({
    CARRIER_PROVIDER_LIVE: 'twilio',
    TWILIO_LIVE_ACCOUNT_SID: `AC${crypto.randomBytes(16).toString('hex')}`,
    TWILIO_LIVE_AUTH_TOKEN: strong(),
    TWILIO_LIVE_MESSAGING_SERVICE_SID: `MG${'0'.repeat(32)}`,
  });
  const stripeEnv = (): NodeJS.ProcessEnv => ({
    ...baseEnv(),
    ...liveCarrier(),
    PAYMENTS_PROVIDER: 'stripe',
    STRIPE_TEST_SECRET_KEY: `sk_test_${strong()}`,
    STRIPE_LIVE_SECRET_KEY: `sk_live_${strong()}`,
    STRIPE_WEBHOOK_SECRET_TEST: `whsec_${strong()}`,
    STRIPE_WEBHOOK_SECRET_LIVE: `whsec_${strong()}`,
  });
  const settingsOf = (role: ProcessRole, env: NodeJS.ProcessEnv) =>
    configurationReport(role, loadConfig(env), PROVIDER_SETTINGS).problems.map((p) => p.setting);

  it('defaults to the simulator in both environments', () => {
    const config = loadConfig(baseEnv());
    expect(config.paymentsProviders).toEqual({ test: 'simulator', live: 'simulator' });
    const processors = paymentProcessorsFor(config);
    expect(processors.test).toBeInstanceOf(SimulatorPaymentProcessor);
    expect(processors.live).toBeInstanceOf(SimulatorPaymentProcessor);
  });

  it('charges through Stripe when configured, one mode per environment, and the worker needs no PAYMENTS_API_KEY then', () => {
    const env = { ...stripeEnv(), PAYMENTS_API_KEY: undefined };
    expect(settingsOf('worker', env)).toEqual([]);
    expect(settingsOf('api', env)).toEqual([]);
    const processors = paymentProcessorsFor(loadConfig(env));
    expect(processors.test).toBeInstanceOf(StripePaymentProcessor);
    expect(processors.live).toBeInstanceOf(StripePaymentProcessor);
  });

  it('lets one environment use the simulator and the other Stripe', () => {
    const env = { ...baseEnv(), ...liveCarrier(), PAYMENTS_LIVE_PROVIDER: 'stripe', STRIPE_LIVE_SECRET_KEY: `sk_live_${strong()}` };
    expect(settingsOf('worker', env)).toEqual([]);
    const processors = paymentProcessorsFor(loadConfig(env));
    expect(processors.test).toBeInstanceOf(SimulatorPaymentProcessor);
    expect(processors.live).toBeInstanceOf(StripePaymentProcessor);
  });

  it('refuses a live-mode key for the test environment and a test-mode key for live, wherever it is set', () => {
    const swapped = { ...stripeEnv(), STRIPE_TEST_SECRET_KEY: `sk_live_${strong()}`, STRIPE_LIVE_SECRET_KEY: `sk_test_${strong()}` };
    for (const role of ['worker', 'cli', 'api'] as const)
      expect(settingsOf(role, swapped)).toEqual(expect.arrayContaining(['STRIPE_TEST_SECRET_KEY', 'STRIPE_LIVE_SECRET_KEY']));
    // Even with the simulator selected, a key of the wrong mode is not left lying in the configuration.
    expect(settingsOf('worker', { ...baseEnv(), STRIPE_TEST_SECRET_KEY: `sk_live_${strong()}` })).toEqual(['STRIPE_TEST_SECRET_KEY']);
    expect(() => stripeClientFor(loadConfig(swapped), 'test')).toThrow(/not a Stripe test-mode key/);
    expect(() => stripeClientFor(loadConfig(swapped), 'live')).toThrow(/not a Stripe live-mode key/);
  });

  it('refuses Stripe without its key (worker, CLI) or its webhook signing secret (API), and an unknown provider', () => {
    const env = { ...stripeEnv(), STRIPE_LIVE_SECRET_KEY: undefined, STRIPE_WEBHOOK_SECRET_TEST: 'not-a-whsec' };
    expect(settingsOf('worker', env)).toEqual(['STRIPE_LIVE_SECRET_KEY']);
    expect(settingsOf('cli', env)).toEqual(['STRIPE_LIVE_SECRET_KEY']);
    expect(settingsOf('api', env)).toEqual(['STRIPE_WEBHOOK_SECRET_TEST']);
    expect(settingsOf('worker', { ...baseEnv(), PAYMENTS_PROVIDER: 'paypal' })).toEqual([
      'PAYMENTS_TEST_PROVIDER',
      'PAYMENTS_LIVE_PROVIDER',
    ]);
    // The simulator still needs its bearer.
    expect(settingsOf('worker', { ...baseEnv(), PAYMENTS_API_KEY: undefined })).toEqual(['PAYMENTS_API_KEY']);
  });
});
