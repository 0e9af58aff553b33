import type Stripe from 'stripe';
import type { CardVault, CardVaults, PaymentProcessor, PaymentProcessors } from '../adapters/payments/port';
import { SimulatedCardVault } from '../adapters/payments/cardTokenizer';
import { StripeCardVault } from '../adapters/payments/stripeCards';
import { SimulatorPaymentProcessor } from '../adapters/payments/simulatorProcessor';
import { StripePaymentProcessor, stripeClient } from '../adapters/payments/stripeProcessor';
import { isStripeKeyOf } from '../adapters/payments/stripeSettings';
import { requireSetting, type Config } from '../platform/config';

type Environment = 'test' | 'live';

/**
 * The Stripe client of one environment, with that environment's key only. The startup check
 * refuses a key of the other mode; this refuses it again, so no path builds a test-environment
 * client on a live key.
 */
export function stripeClientFor(config: Config, environment: Environment): Stripe {
  const name = environment === 'test' ? 'STRIPE_TEST_SECRET_KEY' : 'STRIPE_LIVE_SECRET_KEY';
  const key = requireSetting(config.stripe.secretKeys[environment], name);
  if (!isStripeKeyOf(environment, key))
    throw new Error(`${name} is not a Stripe ${environment}-mode key; the ${environment} environment never uses the other mode`);
  return stripeClient({ secretKey: key, apiBase: config.stripe.apiBase });
}

/** The card processor of each environment, as configured (PAYMENTS_PROVIDER; the simulator by default). */
export function paymentProcessorsFor(config: Config): PaymentProcessors {
  const of = (environment: Environment): PaymentProcessor => {
    const provider = config.paymentsProviders[environment];
    if (provider === 'stripe') return new StripePaymentProcessor(stripeClientFor(config, environment));
    if (provider !== 'simulator') throw new Error(`unknown payments provider "${provider}" for the ${environment} environment`);
    const url = environment === 'test' ? config.paymentsTestUrl : config.paymentsLiveUrl;
    return new SimulatorPaymentProcessor(url, requireSetting(config.paymentsApiKey, 'PAYMENTS_API_KEY'));
  };
  return { test: of('test'), live: of('live') };
}

/** Where each environment saves cards (PAYMENTS_PROVIDER): the simulator tokenises test card numbers, Stripe takes pm_… ids. */
export function cardVaultsFor(config: Config): CardVaults {
  const of = (environment: Environment): CardVault =>
    config.paymentsProviders[environment] === 'stripe'
      ? new StripeCardVault(() => stripeClientFor(config, environment))
      : new SimulatedCardVault();
  return { test: of('test'), live: of('live') };
}
