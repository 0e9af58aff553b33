/**
 * The bare-Temporal turn loops `bench:calls` compares call turns with.
 *
 * `baselineTurnWorkflow`: a workflow that takes a signal, runs one local activity that POSTs the
 * signal's text to a local receiver, and waits for the next signal. Nothing else: no database, no
 * carrier, no transcript.
 *
 * `engineFloorTurnWorkflow`: the same loop with the hops every Switchboard turn makes by the spec
 * (its signal comes from a signed carrier POST to a bare Koa receiver, bench/turnBaseline/carrierReceiver.ts;
 * its local activity signs the `message` POST and hands the reply to the carrier's `speak` API). With `durable`, the
 * durable floor: the same turn plus the Postgres writes a turn cannot skip across processes (bench/turnBaseline/durableRecords.ts).
 */
import { condition, defineSignal, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { TurnBaselineActivities } from './activities';

export const baselineTurnSignal = defineSignal<[{ text: string }]>('turn');
export const baselineStopSignal = defineSignal('stop');

const { postTurn, postTurnAndSpeak, postRecordedTurnAndSpeak } = proxyLocalActivities<TurnBaselineActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/** Takes each signalled turn in order until `stop`; answers how many turns were taken. */
async function turnLoop(takeTurn: (text: string, turn: number) => Promise<unknown>): Promise<number> {
  const queue: string[] = [];
  let stopped = false;
  let turns = 0;
  setHandler(baselineTurnSignal, ({ text }) => void queue.push(text));
  setHandler(baselineStopSignal, () => void (stopped = true));
  for (;;) {
    await condition(() => stopped || queue.length > 0);
    if (stopped) return turns;
    await takeTurn(queue.shift()!, turns + 1);
    turns += 1;
  }
}

export async function baselineTurnWorkflow(url: string): Promise<number> {
  return turnLoop((text) => postTurn(url, text));
}

/** `durable`: the durable floor's turn (its `message` event recorded in Postgres before its POST and settled after). */
export async function engineFloorTurnWorkflow(callId: string, messageUrl: string, speakUrl: string, durable = false): Promise<number> {
  const takeTurn = durable ? postRecordedTurnAndSpeak : postTurnAndSpeak;
  return turnLoop((text, turn) => takeTurn(messageUrl, speakUrl, callId, turn, text));
}
