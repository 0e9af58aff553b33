import type { Config } from '../../platform/config';
import { PAYMENT_PROVIDERS, type ConfigurationProblem, type ProcessRole } from '../../platform/startupCheck';

/** Stripe key prefixes of each environment: a test environment never holds a live-mode key, nor the reverse. */
export const STRIPE_KEY_PREFIXES: Readonly<Record<'test' | 'live', readonly string[]>> = {
  test: ['sk_test_', 'rk_test_'],
  live: ['sk_live_', 'rk_live_'],
};

/** Whether `key` is a Stripe key of `environment`'s mode. */
export function isStripeKeyOf(environment: 'test' | 'live', key: string): boolean {
  return STRIPE_KEY_PREFIXES[environment].some((prefix) => key.startsWith(prefix));
}

const STRIPE_SETTINGS = {
  secretKey: { test: 'STRIPE_TEST_SECRET_KEY', live: 'STRIPE_LIVE_SECRET_KEY' },
  webhookSecret: { test: 'STRIPE_WEBHOOK_SECRET_TEST', live: 'STRIPE_WEBHOOK_SECRET_LIVE' },
} as const;

/**
 * What Stripe needs of a process's configuration (src/adapters/settings.ts lists it for the startup check;
 * issue 16): for each environment charging through Stripe, a key of that environment's mode in the worker
 * (which charges) and the CLI (which saves cards), and the webhook signing secret in the API (which receives
 * Stripe's events). A key of the other mode is refused wherever it is set, so test usage can never move real
 * money. An environment with an unknown provider is refused by the startup check itself.
 */
export function requiredSettings(role: ProcessRole, config: Config): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  for (const environment of ['test', 'live'] as const) {
    const provider = config.paymentsProviders[environment];
    if (!(PAYMENT_PROVIDERS as readonly string[]).includes(provider)) continue;
    const keyName = STRIPE_SETTINGS.secretKey[environment];
    const key = config.stripe.secretKeys[environment];
    if (key !== undefined && !isStripeKeyOf(environment, key))
      problems.push({
        setting: keyName,
        message: `must be a Stripe ${environment}-mode key (${STRIPE_KEY_PREFIXES[environment].join(' or ')}…): the ${environment} environment never holds a key of the other mode`,
      });
    if (provider !== 'stripe') continue;
    if (key === undefined && (role === 'worker' || role === 'cli'))
      problems.push({ setting: keyName, message: `is not set (the ${environment} environment charges through Stripe: PAYMENTS_PROVIDER)` });
    const secret = config.stripe.webhookSecrets[environment];
    if (role === 'api' && (secret === undefined || !secret.startsWith('whsec_')))
      problems.push({
        setting: STRIPE_SETTINGS.webhookSecret[environment],
        message: `must be the signing secret (whsec_…) of the ${environment}-mode webhook endpoint POST /payments/stripe/webhook`,
      });
  }
  return problems;
}
