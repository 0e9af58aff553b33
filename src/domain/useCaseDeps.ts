import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Db } from '../platform/db/knex';

/**
 * What a use case reaches: the database, Temporal, the configuration and the clock (the API's
 * `AppDeps` is one). Use cases also take the log of whoever asked, so their lines carry its request id.
 */
export interface UseCaseDeps {
  config: Config;
  db: Db;
  temporal: Client;
  now: () => Date;
}

