import { telnyxClient } from '../adapters/carrier/telnyx/client';
import { reject } from '../adapters/carrier/telnyx/calls';
import { dialKey } from '../adapters/carrier/telnyx/dial';
import { telnyxSpeechCommands } from '../adapters/carrier/telnyx/speech';
import { postgresTelnyxCallLanguages } from '../adapters/carrier/callbacks/telnyx/callRecords';
import { postgresTelnyxSpeechQueue } from '../adapters/carrier/callbacks/telnyx/speechQueue';
import type { TelnyxCallControl } from '../adapters/carrier/callbacks/telnyx/webhook';
import { postgresCreateAttempts } from '../adapters/carrier/twilio/createAttempts';
import { environmentsOnCarrier, requireSetting, type Config } from '../platform/config';
import type { Db } from '../platform/db/knex';
import { createLogger } from '../platform/logger';

/** The API's Telnyx client: the API sends the carrier commands webhooks call for (and the worker reads Telnyx's settings). */
export function apiTelnyxClient(config: Config) {
  return telnyxClient({
    apiKey: requireSetting(config.telnyx.apiKey, 'TELNYX_API_KEY'),
    baseUrl: config.telnyx.baseUrl,
    connectionId: config.telnyx.connectionId ?? '',
    messagingProfileId: config.telnyx.messagingProfileId ?? '',
    webhookUrl: '',
  });
}

/**
 * The API's one carrier command: declining an inbound call it cannot take, on a carrier that
 * retries a refused webhook rather than declining (Telnyx: `POST /calls/{id}/actions/reject`).
 * None for the simulator, which declines the call on a non-2xx answer.
 */
export function carrierDecliner(config: Config): ((carrierCallId: string) => Promise<void>) | undefined {
  if (environmentsOnCarrier(config, 'telnyx').length === 0) return undefined;
  const client = apiTelnyxClient(config);
  return (carrierCallId) => reject(client, { carrierCallId });
}

/**
 * What Telnyx's call webhooks change beyond the event (an environment on Telnyx): the speech queue, whose next
 * `speak` the API sends when Telnyx reports one ended and whose `playback_stop` it sends on a barge-in; the
 * calls' languages; the dial records a retried dial reads.
 */
export function telnyxCallControl(config: Config, db: Db): TelnyxCallControl | undefined {
  if (environmentsOnCarrier(config, 'telnyx').length === 0) return undefined;
  const log = createLogger('telnyx-speech', config.logLevel);
  const attempts = postgresCreateAttempts(db);
  return {
    speech: postgresTelnyxSpeechQueue(db, telnyxSpeechCommands(apiTelnyxClient(config)), (err, carrierCallId) =>
      log.warn(
        { carrierCallId, err: (err as Error).message },
        'telnyx: the next speech command could not be sent; the next speak or stop sends it',
      ),
    ),
    languages: postgresTelnyxCallLanguages(db),
    dialled: (callId, carrierCallId) => attempts.finish('call', dialKey(callId), carrierCallId),
  };
}
