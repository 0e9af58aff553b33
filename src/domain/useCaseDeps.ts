import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Db } from '../platform/db/knex';
import type { Logger } from '../platform/logger';
import type { IdempotencyCompletion } from './idempotency/store';
import type { MessageHandOver } from './messages/dispatch';

/**
 * What a use case reaches: the database, Temporal, the configuration and the clock (injected, so
 * tests move time). The API's `AppDeps` is one.
 */
export interface UseCaseDeps {
  config: Config;
  db: Db;
  temporal: Client;
  now: () => Date;
  /**
   * The instant calling hours are judged at (src/domain/callingHours), `now` when absent: the test
   * suite's deployment fixes it (test/support/harness.ts), so that tests not about calling hours do
   * not depend on the hour they run at, and tests of calling hours set it.
   */
  callingHoursNow?: () => Date;
  /**
   * Where an accepted SMS goes to have its send workflow started off the request (the API's MessageDispatcher,
   * src/domain/messages/dispatch.ts); absent, the use case starts it before returning.
   */
  messageHandOver?: MessageHandOver;
}

/** A use case that logs takes the log of whoever asked with its deps, so its lines carry the request id. */
export type LoggedUseCaseDeps = UseCaseDeps & { log: Logger };

/**
 * Work that must commit with what a use case records, or not at all: the API stores the request's
 * idempotent answer here, so a process that dies after the commit still replays it.
 */
export type WithinRecording<R> = (trx: import('knex').Knex.Transaction, recorded: R) => Promise<void>;

/**
 * The idempotent answer to what a use case records, for a use case that records in one statement (the SMS send): it
 * writes the answer in that statement (src/domain/idempotency/store.ts `completionWriteSql`), so the two commit together
 * without a transaction. The API's idempotency middleware makes it: `completion(recorded)` is the completion for the
 * row the use case is about to record, and `committed()` says the statement committed it.
 */
export interface AnswerWithin<R> {
  completion(recorded: R): IdempotencyCompletion;
  committed(): void;
}
