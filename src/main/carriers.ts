import { EnvironmentCarrier, type CarrierEnvironment, type CarrierEnvironmentLookup } from '../adapters/carrier/environmentCarrier';
import type { CarrierAdapter } from '../adapters/carrier/port';
import { SimulatorCarrier } from '../adapters/carrier/simulatorCarrier';
import { postgresSpeechQueue } from '../adapters/carrier/twilio/callbacks/speechQueue';
import { TwilioCarrier } from '../adapters/carrier/twilio/twilioCarrier';
import { requireSetting, type Config } from '../platform/config';
import type { Db } from '../platform/db/knex';

/**
 * The worker's carrier: the simulator alone when both environments use it (the default), else
 * one adapter per environment behind `EnvironmentCarrier`. Twilio in the test environment runs
 * with the test account in test mode (it buys only Twilio's test number; docs/decisions.md).
 */
export function buildCarrier(config: Config, db: Db): CarrierAdapter {
  const simulator = () => new SimulatorCarrier(config.simulatorUrl, requireSetting(config.carrierApiKey, 'CARRIER_API_KEY'));
  if (config.carrierProviders.test === 'simulator' && config.carrierProviders.live === 'simulator') return simulator();
  const forEnvironment = (environment: CarrierEnvironment): CarrierAdapter => {
    if (config.carrierProviders[environment] === 'simulator') return simulator();
    const account = requireSetting(config.twilio[environment], `TWILIO_${environment.toUpperCase()}_ACCOUNT_SID and _AUTH_TOKEN`);
    return new TwilioCarrier({
      account,
      publicBaseUrl: config.publicBaseUrl,
      mode: environment,
      apiBaseUrl: config.twilio.apiBaseUrl,
      speeches: postgresSpeechQueue(db),
    });
  };
  return new EnvironmentCarrier({ test: forEnvironment('test'), live: forEnvironment('live') }, environmentLookup(db));
}

function environmentLookup(db: Db): CarrierEnvironmentLookup {
  const of = async (table: string, where: Record<string, string>, newest = false) => {
    let query = db(table).where(where).select('environment');
    if (newest) query = query.orderBy('created_at', 'desc');
    const row = (await query.first()) as { environment?: CarrierEnvironment } | undefined;
    return row?.environment;
  };
  const uuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
  return {
    ofLine: async (lineId) => (uuid(lineId) ? of('lines', { id: lineId }) : undefined),
    ofNumber: (phoneNumber) => of('lines', { phone_number: phoneNumber }, true),
    ofCall: async (callId) => (uuid(callId) ? of('calls', { id: callId }) : undefined),
    ofCarrierCall: (carrierCallId) => of('calls', { carrier_call_id: carrierCallId }),
    ofMessage: async (messageId) => (uuid(messageId) ? of('messages', { id: messageId }) : undefined),
  };
}
