import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { requiredSettings as telnyxSettings } from '../../src/adapters/carrier/telnyx/settings';
import { requiredSettings as twilioSettings } from '../../src/adapters/carrier/twilio/settings';
import { isStripeKeyOf, requiredSettings as stripeSettings } from '../../src/adapters/payments/stripeSettings';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';
import { requiredSettings as s3Settings } from '../../src/adapters/storage/settings';
import { CARRIER_PROVIDERS, loadConfig, RECORDING_STORES } from '../../src/platform/config';
import { configurationReport, PAYMENT_PROVIDERS, PROCESS_ROLES } from '../../src/platform/startupCheck';

/** Each provider's settings rule lives in its adapter; the startup check runs the list of them (issue 28). */
describe('provider settings rules', () => {
  const strong = () => crypto.randomBytes(32).toString('hex');
  // The rules read only their own settings: a bare environment (no dev secrets from a data directory) is enough.
  const base = (): NodeJS.ProcessEnv => ({ SWITCHBOARD_DATA_DIR: path.join(os.tmpdir(), `switchboard-no-data-${crypto.randomUUID()}`) });

  it('lists a rule for every carrier, card processor and recordings store but the local ones', () => {
    const providers = [...CARRIER_PROVIDERS, ...PAYMENT_PROVIDERS, ...RECORDING_STORES].filter(
      (provider) => provider !== 'simulator' && provider !== 'filesystem',
    );
    expect(Object.keys(PROVIDER_SETTINGS).sort()).toEqual([...new Set(providers)].sort());
  });

  it('asks nothing of a deployment that uses none of the providers', () => {
    const config = loadConfig(base());
    for (const role of PROCESS_ROLES)
      for (const rule of [twilioSettings, telnyxSettings, stripeSettings, s3Settings])
        expect({ role, problems: rule(role, config) }).toEqual({ role, problems: [] });
  });

  it('is where the startup check learns what a provider needs: without the list it knows no provider', () => {
    const config = loadConfig({
      ...base(),
      CARRIER_PROVIDER_LIVE: 'twilio',
      CARRIER_PROVIDER_TEST: 'telnyx',
      STRIPE_TEST_SECRET_KEY: `sk_live_${strong()}`,
    });
    const withRules = configurationReport('worker', config, PROVIDER_SETTINGS).problems.map((p) => p.setting);
    const without = configurationReport('worker', config, {}).problems.map((p) => p.setting);
    const fromRules = [...twilioSettings('worker', config), ...telnyxSettings('worker', config), ...stripeSettings('worker', config)].map(
      (p) => p.setting,
    );
    expect(fromRules.sort()).toEqual([
      'CARRIER_PROVIDER_TEST',
      'STRIPE_TEST_SECRET_KEY',
      'TELNYX_API_KEY',
      'TELNYX_CONNECTION_ID',
      'TELNYX_MESSAGING_PROFILE_ID',
      'TWILIO_LIVE_ACCOUNT_SID',
      'TWILIO_LIVE_MESSAGING_SERVICE_SID',
    ]);
    expect(without.filter((setting) => fromRules.includes(setting))).toEqual([]);
    expect(withRules.sort()).toEqual([...without, ...fromRules].sort());
  });

  it('holds a Stripe key to the mode of its environment', () => {
    const keys = ['sk_test_x', 'rk_test_x', 'sk_live_x', 'rk_live_x', 'pk_test_x'];
    expect(keys.filter((key) => isStripeKeyOf('test', key))).toEqual(['sk_test_x', 'rk_test_x']);
    expect(keys.filter((key) => isStripeKeyOf('live', key))).toEqual(['sk_live_x', 'rk_live_x']);
  });
});
