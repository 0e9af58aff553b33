import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../../activities';
import type { CarrierAdapter } from '../adapters/carrier/port';
import { SimulatorCarrier } from '../adapters/carrier/simulatorCarrier';
import { TelnyxMediaServer } from '../adapters/carrier/telnyx/media';
import { TelnyxCarrier } from '../adapters/carrier/telnyx/telnyxCarrier';
import { OpenAiCompatibleModel } from '../adapters/model/openAiCompatible';
import { requireSetting, type Config } from '../platform/config';
import { parseSecretsKey, type SecretsKeyRing } from '../platform/crypto/secretBox';
import type { Db } from '../platform/db/knex';
import { egressPolicyFor } from '../platform/net/egress';
import { paymentProcessorsFor } from './payments';

/**
 * The one composition of a worker's activity dependencies, from its configuration: the carrier,
 * the card processor of each environment (src/main/payments.ts) and the model, all reached with the configured keys;
 * the egress policy; where the carrier reports back (`<public base URL>/carrier/events`). Used by
 * the worker entry point, the test harness's in-process worker and the benches.
 */
export function buildActivityDeps(
  config: Config,
  sources: {
    db: Db;
    /** The worker's Temporal client; a function, as the worker connects it after creating the worker. */
    temporal: () => Client;
    /** The sealing key, when the caller has one already (a bench's own); else SECRETS_KEY, parsed here. */
    secretsKey?: SecretsKeyRing;
  },
): ActivityDeps {
  const secretsKey = sources.secretsKey ?? parseSecretsKey(requireSetting(config.secretsKey, 'SECRETS_KEY'));
  return {
    db: sources.db,
    carrier: buildCarrier(config),
    // Telnyx has no test mode: a test key must never buy a real number (docs/decisions.md "Telnyx carrier").
    carrierServesTestEnvironment: config.carrierProvider === 'simulator',
    payments: paymentProcessorsFor(config),
    model: new OpenAiCompatibleModel({
      baseUrl: config.modelBaseUrl,
      apiKey: config.modelApiKey,
      model: config.modelName,
      maxTokens: config.modelMaxTokens,
      maxReplyChars: config.modelMaxReplyChars,
    }),
    secretsKey: () => secretsKey,
    egress: egressPolicyFor(config),
    temporal: sources.temporal,
    taskQueue: config.taskQueue,
    carrierEventsUrl: `${config.publicBaseUrl}/carrier/events`,
    ndjsonBudget: { lineMs: config.ndjsonLineBudgetMs, totalMs: config.ndjsonTotalBudgetMs },
    now: () => new Date(),
  };
}

/** The carrier CARRIER_PROVIDER names: the simulator, or Telnyx with its account's settings. */
export function buildCarrier(config: Config): CarrierAdapter {
  if (config.carrierProvider === 'telnyx') {
    return new TelnyxCarrier(
      {
        apiKey: requireSetting(config.telnyx.apiKey, 'TELNYX_API_KEY'),
        baseUrl: config.telnyx.baseUrl,
        connectionId: requireSetting(config.telnyx.connectionId, 'TELNYX_CONNECTION_ID'),
        messagingProfileId: requireSetting(config.telnyx.messagingProfileId, 'TELNYX_MESSAGING_PROFILE_ID'),
        webhookUrl: `${config.publicBaseUrl}/carrier/telnyx/events`,
        transcriptionLanguage: config.telnyx.transcriptionLanguage,
      },
      config.telnyx.mediaUrl && config.telnyx.mediaPort !== undefined
        ? new TelnyxMediaServer(config.telnyx.mediaUrl, config.telnyx.mediaPort, config.host)
        : undefined,
    );
  }
  return new SimulatorCarrier(config.simulatorUrl, requireSetting(config.carrierApiKey, 'CARRIER_API_KEY'));
}
