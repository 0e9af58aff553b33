import type { Db } from '../src/db/knex';
import type { CarrierAdapter } from './carrier/adapter';
import { createLineActivities } from './lines';
import { createMaintenanceActivities } from './maintenance';
import { createLineSecretActivities } from './lineSecrets';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  /** The key sealing secrets at rest; a function so a worker without one fails only where it is needed. */
  secretsKey: () => Buffer;
  now: () => Date;
}

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLineActivities(deps),
    ...createMaintenanceActivities(deps),
    ...createLineSecretActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
