import type { SecretsKeyRing } from '../src/platform/crypto/secretBox';
import type { Db } from '../src/platform/db/knex';
import type { EgressPolicy } from '../src/platform/net/egress';
import type { Client } from '@temporalio/client';
import type { CarrierAdapter } from '../src/adapters/carrier/port';
import type { PaymentProcessors } from '../src/adapters/payments/port';
import type { ModelAdapter } from '../src/adapters/model/port';
import type { RecordingStore } from '../src/adapters/storage/port';
import { createAudioActivities } from './audio/activities';
import { createBillingActivities } from './billing';
import { createCallActivities } from './calls';
import { createCampaignActivities } from './campaigns';
import { createHostedActivities } from './hosted';
import { createToolActivities } from './tools';
import { createLineActivities } from './lines';
import { createMaintenanceActivities } from './maintenance';
import { createMessageActivities } from './messages';
import { createMessageDispatchActivities } from './messageDispatch';
import { createLineSecretActivities } from './lineSecrets';
import { createRecordingActivities } from './recordings';
import { createRecoveryActivities } from './recovery';
import { createWebhookActivities } from './webhooks';
import { createTelnyxInboxActivities, receiptsWaitingFor } from './telnyxInbox';
import type { TelnyxInboxPorts } from '../src/domain/telnyxInbox/apply';
import type { Config } from '../src/platform/config';
import type { Logger } from '../src/platform/logger';

/** What the worker's activities need; src/main/activityDeps.ts builds it from the configuration. */
export interface ActivityDeps {
  /** The worker's configuration: what use cases run by activities read (a campaign's calls are placed as the API places them). */
  config: Config;
  db: Db;
  carrier: CarrierAdapter;
  /** The operator's recordings store (`RECORDINGS_STORE`): where each call's recording and transcript are copied. */
  recordingStore: RecordingStore;
  /** The key sealing secrets at rest; a function so a worker without one fails only where it is needed. */
  secretsKey: () => SecretsKeyRing;
  /** The card processor of each environment: auto-charge picks the one of the account's environment. */
  payments: PaymentProcessors;
  /** The language model of hosted lines (the worker builds the OpenAI-compatible one from config). */
  model: ModelAdapter;
  /** The worker's Temporal client, for activities that start or signal workflows (events, auto-charge, recovery). */
  temporal: () => Client;
  /** The worker's task queue: where the workflows those activities start run. */
  taskQueue: string;
  /** `<public base URL>/carrier/events`: where the carrier reports call progress. */
  carrierEventsUrl: string;
  /** Where the carrier reports messages (receipts, inbound SMS); by default `messages` beside `carrierEventsUrl`. */
  carrierMessagesUrl?: string;
  /** The only way out to customer URLs (webhooks and audio handlers); src/platform/net/egress.ts. */
  egress: EgressPolicy;
  /** Streamed-reply budgets (tests shorten them); defaults are the spec's. */
  ndjsonBudget?: { lineMs: number; totalMs: number };
  /** The Telnyx inbox sweeper's configuration, Telnyx ports and log (src/main/telnyxInbox.ts); absent without Telnyx. */
  telnyxInbox?: { config: Config; ports: TelnyxInboxPorts; log: Logger };
  now: () => Date;
  /** The instant calling hours are judged at (src/domain/useCaseDeps.ts): a campaign's calls, as the API's. Tests fix it. */
  callingHoursNow?: () => Date;
}

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLineActivities(deps),
    ...createMaintenanceActivities(deps),
    ...createLineSecretActivities(deps),
    ...createWebhookActivities(deps),
    ...createBillingActivities(deps),
    ...createCallActivities(deps),
    ...createCampaignActivities(deps),
    ...createHostedActivities(deps),
    ...createToolActivities(deps),
    ...createAudioActivities(deps),
    ...createRecoveryActivities(deps),
    ...createMessageDispatchActivities(deps),
    ...createRecordingActivities(deps),
    ...createTelnyxInboxActivities(deps),
    ...createMessageActivities({
      ...deps,
      carrierMessagesUrl: deps.carrierMessagesUrl ?? new URL('messages', deps.carrierEventsUrl).toString(),
      onCarrierMessageId: receiptsWaitingFor(deps),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
