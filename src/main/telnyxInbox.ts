import { findLegRecording } from '../adapters/carrier/telnyx/recordings';
import { readTelnyxWebhookSettings, telnyxWebhookProblems } from '../adapters/carrier/telnyx/webhookSettings';
import type { TelnyxInboxPorts } from '../domain/telnyxInbox/apply';
import { environmentsOnCarrier, type Config } from '../platform/config';
import type { Db } from '../platform/db/knex';
import { createLogger, type Logger } from '../platform/logger';
import { apiTelnyxClient, carrierDecliner, telnyxCallControl } from './carrierDecliner';

/**
 * What processing Telnyx's webhooks (src/domain/telnyxInbox/) needs of Telnyx, with the account's API key:
 * declining a ringing call, finding a leg's recording, and the call state shared with the worker's adapter
 * (./carrierDecliner.ts `telnyxCallControl`: the speech queue whose next command a webhook sends). Built by the API (which processes an event once it has
 * answered it) and by the worker (whose sweeper processes what the API did not); none without Telnyx.
 */
export function telnyxInboxPorts(config: Config, db: Db): TelnyxInboxPorts | undefined {
  const declineCall = carrierDecliner(config);
  const calls = telnyxCallControl(config, db);
  if (!declineCall || !calls) return undefined;
  const client = apiTelnyxClient(config);
  return { declineCall, recordingOfLeg: (callLegId, startedAt) => findLegRecording(client, callLegId, startedAt), calls };
}

/** The worker's share: the inbox sweeper's configuration, ports and log (absent without Telnyx). */
export function telnyxInboxSweeping(config: Config, db: Db): { config: Config; ports: TelnyxInboxPorts; log: Logger } | undefined {
  if (environmentsOnCarrier(config, 'telnyx').length === 0) return undefined;
  const ports = telnyxInboxPorts(config, db);
  return ports && { config, ports, log: createLogger('telnyx-inbox', config.logLevel) };
}

/**
 * Part of the worker's start (after the configuration check): Telnyx's own record of where it sends webhooks
 * (src/adapters/carrier/telnyx/webhookSettings.ts), each problem logged as a warning. Not a refusal: Telnyx being
 * unreachable at that moment, or a deployment with one entry point only, must not stop the worker.
 */
export async function checkTelnyxWebhookSettings(config: Config, log: Logger): Promise<string[]> {
  const { connectionId, messagingProfileId } = config.telnyx;
  if (environmentsOnCarrier(config, 'telnyx').length === 0 || !connectionId || !messagingProfileId) return [];
  const client = apiTelnyxClient(config);
  let problems: string[];
  try {
    const settings = await readTelnyxWebhookSettings(client, { connectionId, messagingProfileId });
    problems = telnyxWebhookProblems(settings, {
      eventsUrl: `${config.publicBaseUrl}/carrier/telnyx/events`,
      failoverUrl: config.telnyx.webhookFailoverUrl,
    });
  } catch (err) {
    log.warn({ provider: 'telnyx', err: (err as Error).message }, 'telnyx: could not read where Telnyx sends webhooks');
    return [];
  }
  for (const problem of problems) log.warn({ provider: 'telnyx' }, `telnyx webhooks: ${problem}`);
  return problems;
}
