import type { CarrierProvider } from '../platform/config';
import type { PaymentProvider, ProviderSettings, RequiredSettings } from '../platform/startupCheck';
import { requiredSettings as telnyx } from './carrier/telnyx/settings';
import { requiredSettings as twilio } from './carrier/twilio/settings';
import { requiredSettings as stripe } from './payments/stripeSettings';

/**
 * Every provider's own settings check, one per carrier and card processor but the simulator (whose settings
 * are the startup check's generic secrets): what `src/platform/startupCheck.ts` runs beside its generic
 * checks. The type makes it complete: a provider added to `CARRIER_PROVIDERS` or `PAYMENT_PROVIDERS` needs
 * an entry here. Every process passes it to the startup check, and `/readyz` too.
 */
export const PROVIDER_SETTINGS: ProviderSettings &
  Readonly<Record<Exclude<CarrierProvider | PaymentProvider, 'simulator'>, RequiredSettings>> = {
  twilio,
  telnyx,
  stripe,
};
