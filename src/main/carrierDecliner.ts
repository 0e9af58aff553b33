import { telnyxClient } from '../adapters/carrier/telnyx/client';
import { reject } from '../adapters/carrier/telnyx/calls';
import { environmentsOnCarrier, requireSetting, type Config } from '../platform/config';

/**
 * The API's one carrier command: declining an inbound call it cannot take, on a carrier that
 * retries a refused webhook rather than declining (Telnyx: `POST /calls/{id}/actions/reject`).
 * None for the simulator, which declines the call on a non-2xx answer.
 */
export function carrierDecliner(config: Config): ((carrierCallId: string) => Promise<void>) | undefined {
  if (environmentsOnCarrier(config, 'telnyx').length === 0) return undefined;
  const client = telnyxClient({
    apiKey: requireSetting(config.telnyx.apiKey, 'TELNYX_API_KEY'),
    baseUrl: config.telnyx.baseUrl,
    connectionId: config.telnyx.connectionId ?? '',
    messagingProfileId: config.telnyx.messagingProfileId ?? '',
    webhookUrl: '',
    transcriptionLanguage: config.telnyx.transcriptionLanguage,
  });
  return (carrierCallId) => reject(client, { carrierCallId });
}
