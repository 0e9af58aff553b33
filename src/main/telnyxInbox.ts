import { telnyxClient } from '../adapters/carrier/telnyx/client';
import { findLegRecording } from '../adapters/carrier/telnyx/recordings';
import type { TelnyxInboxPorts } from '../domain/telnyxInbox/apply';
import { environmentsOnCarrier, requireSetting, type Config } from '../platform/config';
import { createLogger, type Logger } from '../platform/logger';
import { carrierDecliner } from './carrierDecliner';

/**
 * What processing Telnyx's webhooks (src/domain/telnyxInbox/) needs of Telnyx, with the account's API key:
 * declining a ringing call, finding a leg's recording. Built by the API (which processes an event once it has
 * answered it) and by the worker (whose sweeper processes what the API did not); none without Telnyx.
 */
export function telnyxInboxPorts(config: Config): TelnyxInboxPorts | undefined {
  const declineCall = carrierDecliner(config);
  if (!declineCall) return undefined;
  const client = telnyxClient({
    apiKey: requireSetting(config.telnyx.apiKey, 'TELNYX_API_KEY'),
    baseUrl: config.telnyx.baseUrl,
    connectionId: config.telnyx.connectionId ?? '',
    messagingProfileId: config.telnyx.messagingProfileId ?? '',
    webhookUrl: '',
    transcriptionLanguage: config.telnyx.transcriptionLanguage,
  });
  return { declineCall, recordingOfLeg: (callLegId, startedAt) => findLegRecording(client, callLegId, startedAt) };
}

/** The worker's share: the inbox sweeper's configuration, ports and log (absent without Telnyx). */
export function telnyxInboxSweeping(config: Config): { config: Config; ports: TelnyxInboxPorts; log: Logger } | undefined {
  if (environmentsOnCarrier(config, 'telnyx').length === 0) return undefined;
  const ports = telnyxInboxPorts(config);
  return ports && { config, ports, log: createLogger('telnyx-inbox', config.logLevel) };
}
