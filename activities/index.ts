import type { Db } from '../src/db/knex';
import type { CarrierAdapter } from './carrier/adapter';
import { createLineActivities } from './lines';
import { createMaintenanceActivities } from './maintenance';

export interface ActivityDeps {
  db: Db;
  carrier: CarrierAdapter;
  now: () => Date;
}

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLineActivities(deps),
    ...createMaintenanceActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
