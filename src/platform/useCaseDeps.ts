import type { Client } from '@temporalio/client';
import type { Db } from './db/knex';
import type { Logger } from './logger';

/**
 * What a use case reaches besides its arguments: the database, Temporal and the task queue its
 * workflows run on, the clock (injected, so tests move time) and the request's logger. The API's
 * deps plus `log` are one.
 */
export interface UseCaseDeps {
  db: Db;
  temporal: Client;
  config: { taskQueue: string };
  now: () => Date;
  log: Logger;
}
