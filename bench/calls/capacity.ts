import { sleep, waitUntil } from '../support/async';
import { hopRows } from './hops';
import { paced } from './loops';
import { hangUp, placeCalls, turn, turnRows, type Bench, type Row } from './turns';

/**
 * (b) Capacity: K concurrent calls, each doing one turn every 5 s, measured once their setup has
 * settled (the search for the largest passing K is ./capacitySearch.ts).
 */

export const TARGET_P99_MS = 150;
/** After the calls of a capacity run have started, before its first turn. */
const SETTLE_MS = 1_000;

/**
 * Waits until every call's setup has finished (its `call_started` delivered), then a second
 * more, so that the turns measured are not queued behind the start of K calls at once.
 */
async function settle(bench: Bench, ids: string[]): Promise<void> {
  await waitUntil('every call to finish starting', () => ids.every((id) => bench.receiver.started.has(id)), 30_000);
  await sleep(SETTLE_MS); // pacing: the calls' own start-up traffic dies down before the measured turns
}

export async function capacityPhase(
  bench: Bench,
  callCount: number,
  seconds: number,
): Promise<{ row: Row; rows: Row[]; hops: Row[]; turns: number }> {
  const ids = await placeCalls(bench, callCount);
  if (process.env.BENCH_SETTLE !== '0') await settle(bench, ids);
  const done = await paced(callCount, seconds, (i, t) => turn(bench, ids[i], `capacity k${callCount} c${i} t${t}`));
  await hangUp(bench, ids);
  const { rows, endToEnd } = turnRows(bench, done, `K=${callCount} `);
  return { row: endToEnd, rows, hops: await hopRows(bench, done), turns: done.length };
}
