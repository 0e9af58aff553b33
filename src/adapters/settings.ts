import type { CarrierProvider, RecordingStoreKind } from '../platform/config';
import type { PaymentProvider, ProviderSettings, RequiredSettings } from '../platform/startupCheck';
import { requiredSettings as telnyx } from './carrier/telnyx/settings';
import { requiredSettings as twilio } from './carrier/twilio/settings';
import { requiredSettings as stripe } from './payments/stripeSettings';
import { requiredSettings as s3 } from './storage/settings';

/**
 * Every provider's own settings check, one per carrier, card processor and recordings store but the local ones
 * (the simulator, whose settings are the startup check's generic secrets, and the filesystem store): what
 * `src/platform/startupCheck.ts` runs beside its generic checks. The type makes it complete: a provider added to
 * `CARRIER_PROVIDERS`, `PAYMENT_PROVIDERS` or `RECORDING_STORES` needs an entry here. Every process passes it to
 * the startup check, and `/readyz` too.
 */
export const PROVIDER_SETTINGS: ProviderSettings &
  Readonly<Record<Exclude<CarrierProvider | PaymentProvider | RecordingStoreKind, 'simulator' | 'filesystem'>, RequiredSettings>> = {
  twilio,
  telnyx,
  stripe,
  s3,
};
