import type { TelnyxInboxDeps } from './apply';
import { processTelnyxEvents } from './process';
import { dueKeys } from './store';

/** Keys taken per pass; the next pass (seconds later) takes the rest. */
const KEYS_PER_PASS = 100;
/** A pass stops taking keys after this long, well inside its activity's timeout. */
const PASS_BUDGET_MS = 20_000;

/**
 * The sweeper's pass (a Temporal schedule, every 5 s): the events due and not processed, because the API that
 * stored them died first, their processing failed, or they wait for what they are about (a receipt ahead of its
 * message). Keys another instance is processing are left to it. Returns the events processed.
 */
export async function sweepTelnyxInbox(deps: TelnyxInboxDeps): Promise<number> {
  const started = Date.now();
  let processed = 0;
  for (const key of await dueKeys(deps.db, KEYS_PER_PASS)) {
    if (Date.now() - started > PASS_BUDGET_MS) break;
    processed += await processTelnyxEvents(deps, key);
  }
  return processed;
}
