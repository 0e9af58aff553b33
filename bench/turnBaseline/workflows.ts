/**
 * The bare-Temporal turn loop `bench:calls` compares call turns with: a workflow that takes a
 * signal, runs one local activity that POSTs the signal's text to a local receiver, and waits for
 * the next signal. Nothing else: no database, no carrier, no transcript.
 */
import { condition, defineSignal, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { TurnBaselineActivities } from './activities';

export const baselineTurnSignal = defineSignal<[{ text: string }]>('turn');
export const baselineStopSignal = defineSignal('stop');

const { postTurn } = proxyLocalActivities<TurnBaselineActivities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } });

export async function baselineTurnWorkflow(url: string): Promise<number> {
  const queue: string[] = [];
  let stopped = false;
  let turns = 0;
  setHandler(baselineTurnSignal, ({ text }) => void queue.push(text));
  setHandler(baselineStopSignal, () => void (stopped = true));
  for (;;) {
    await condition(() => stopped || queue.length > 0);
    if (stopped) return turns;
    await postTurn(url, queue.shift()!);
    turns += 1;
  }
}
