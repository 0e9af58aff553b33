/**
 * The workflows `bench:temporal` measures the dev server with (bundled on their own, not with the project's workflows):
 * the three smallest shapes a design can spend per unit of work.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

/** The activity both activity shapes run: nothing, so the figure is the server's cost of scheduling it. */
export interface BenchActivities {
  noop(): Promise<void>;
}

const { noop } = proxyActivities<BenchActivities>({ startToCloseTimeout: '10 seconds' });
const { noop: localNoop } = proxyLocalActivities<BenchActivities>({ startToCloseTimeout: '10 seconds' });

export async function emptyWorkflow(): Promise<void> {}

export async function oneActivityWorkflow(): Promise<void> {
  await noop();
}

export async function oneLocalActivityWorkflow(): Promise<void> {
  await localNoop();
}
