import { EnvironmentCarrier, type CarrierEnvironment, type CarrierEnvironmentLookup } from '../adapters/carrier/environmentCarrier';
import { MediaSocketServer } from '../adapters/carrier/mediaSocketServer';
import type { CarrierAdapter } from '../adapters/carrier/port';
import { SimulatorCarrier } from '../adapters/carrier/simulatorCarrier';
import { TelnyxCarrier } from '../adapters/carrier/telnyx/telnyxCarrier';
import { postgresRelayCommands } from '../adapters/carrier/twilio/callbacks/relayCommands';
import { postgresCreateAttempts } from '../adapters/carrier/twilio/createAttempts';
import type { TwilioAccount } from '../adapters/carrier/twilio/client';
import { TwilioCarrier } from '../adapters/carrier/twilio/twilioCarrier';
import { requireSetting, type CarrierProvider, type Config } from '../platform/config';
import type { Db } from '../platform/db/knex';
import { createLogger } from '../platform/logger';

const log = createLogger('carriers');

/**
 * The worker's carrier, the one home of that choice: each environment's `config.carrier` (one of
 * `CARRIER_PROVIDERS`, src/platform/config.ts). The simulator alone when both environments use it (the
 * default), else one adapter per environment behind `EnvironmentCarrier`, so every command reaches the
 * carrier of the environment its line, call or message belongs to. Twilio in the test environment runs
 * with the test account in test mode (it buys only Twilio's test number); Telnyx, which has no test mode,
 * serves the live environment only (its `requiredSettings` refuses it for test), its test traffic running
 * on the simulator.
 */
export function buildCarrier(config: Config, db: Db): CarrierAdapter {
  if (config.carrier.test === 'simulator' && config.carrier.live === 'simulator') return simulatorCarrier(config);
  // One listener for both environments' Media Streams (each stream checks its own account's signature).
  const twilioMedia = mediaServer(config, config.twilio);
  const builders: Record<CarrierProvider, (environment: CarrierEnvironment) => CarrierAdapter> = {
    simulator: () => simulatorCarrier(config),
    twilio: (environment) => twilioCarrier(config, db, environment, twilioMedia),
    telnyx: () => telnyxCarrier(config, db),
  };
  return new EnvironmentCarrier(
    { test: builders[config.carrier.test]('test'), live: builders[config.carrier.live]('live') },
    environmentLookup(db),
  );
}

/** The simulator's carrier API, with the worker's bearer. */
export function simulatorCarrier(config: Config): SimulatorCarrier {
  return new SimulatorCarrier(config.simulatorUrl, requireSetting(config.carrierApiKey, 'CARRIER_API_KEY'));
}

/**
 * A provider's media listener (TWILIO_/TELNYX_MEDIA_URL and _PORT), when both are set; audio lines are refused without.
 * It listens from the worker's start: a port that is taken is logged then, and each audio call tries it again.
 */
function mediaServer(config: Config, media: { mediaUrl?: string; mediaPort?: number }): MediaSocketServer | undefined {
  if (!media.mediaUrl || media.mediaPort === undefined) return undefined;
  const server = new MediaSocketServer(media.mediaUrl, media.mediaPort, config.host);
  const port = media.mediaPort;
  server
    .start()
    .catch((err: unknown) =>
      log.error({ port, err: (err as Error).message }, 'media listener could not listen; audio calls will try again'),
    );
  return server;
}

/** The environment's own Twilio account (TWILIO_<ENV>_ACCOUNT_SID and _AUTH_TOKEN). */
export function twilioAccountOf(config: Config, environment: CarrierEnvironment): TwilioAccount {
  return requireSetting(config.twilio[environment], `TWILIO_${environment.toUpperCase()}_ACCOUNT_SID and _AUTH_TOKEN`);
}

/** Twilio with the environment's own account (src/adapters/carrier/twilio/). */
function twilioCarrier(config: Config, db: Db, environment: CarrierEnvironment, media: MediaSocketServer | undefined): CarrierAdapter {
  return new TwilioCarrier({
    account: twilioAccountOf(config, environment),
    publicBaseUrl: config.publicBaseUrl,
    mode: environment,
    apiBaseUrl: config.twilio.apiBaseUrl,
    relay: postgresRelayCommands(db),
    media,
    attempts: postgresCreateAttempts(db),
    // Test credentials cannot use Messaging Services (403): the test account sends from its test number alone.
    messagingServiceSid: environment === 'live' ? config.twilio.liveMessagingServiceSid : undefined,
    regulation:
      environment === 'live' ? { addressSids: config.twilio.liveAddressSids, bundleSids: config.twilio.liveBundleSids } : undefined,
  });
}

/** Telnyx with its account's settings (src/adapters/carrier/telnyx/). */
function telnyxCarrier(config: Config, db: Db): CarrierAdapter {
  return new TelnyxCarrier(
    {
      apiKey: requireSetting(config.telnyx.apiKey, 'TELNYX_API_KEY'),
      baseUrl: config.telnyx.baseUrl,
      connectionId: requireSetting(config.telnyx.connectionId, 'TELNYX_CONNECTION_ID'),
      messagingProfileId: requireSetting(config.telnyx.messagingProfileId, 'TELNYX_MESSAGING_PROFILE_ID'),
      campaignId: config.telnyx.campaignId,
      requirementGroups: config.telnyx.requirementGroups,
      webhookUrl: `${config.publicBaseUrl}/carrier/telnyx/events`,
      webhookFailoverUrl: config.telnyx.webhookFailoverUrl,
    },
    { db, media: mediaServer(config, config.telnyx) },
  );
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
