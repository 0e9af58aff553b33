import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../../activities';
import { OpenAiCompatibleModel } from '../adapters/model/openAiCompatible';
import { requireSetting, type Config } from '../platform/config';
import { parseSecretsKey, type SecretsKeyRing } from '../platform/crypto/secretBox';
import type { Db } from '../platform/db/knex';
import { egressPolicyFor } from '../platform/net/egress';
import type { RecordingStore } from '../adapters/storage/port';
import { buildCarrier } from './carriers';
import { recordingStoreFromConfig } from './recordingStore';
import { paymentProcessorsFor } from './payments';
import { telnyxInboxSweeping } from './telnyxInbox';

/**
 * The one composition of a worker's activity dependencies, from its configuration: the carrier
 * (./carriers.ts), the card processor of each environment (./payments.ts) and the model, all reached with the
 * configured keys; the egress policy; where the carrier reports back (`<public base URL>/carrier/events`). Used by
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
    /** The recordings store, when the caller has one already (the test harness shares its API's); else `RECORDINGS_STORE`'s. */
    recordingStore?: RecordingStore;
  },
): ActivityDeps {
  const secretsKey = sources.secretsKey ?? parseSecretsKey(requireSetting(config.secretsKey, 'SECRETS_KEY'));
  return {
    config,
    db: sources.db,
    carrier: buildCarrier(config, sources.db),
    recordingStore: sources.recordingStore ?? recordingStoreFromConfig(config),
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
    telnyxInbox: telnyxInboxSweeping(config, sources.db),
    now: () => new Date(),
  };
}
