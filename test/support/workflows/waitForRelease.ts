/**
 * A workflow that does nothing until it is signalled `release`, then returns: the durability test of the dev Temporal
 * server starts many of them, kills the server, and completes them after a restart (bundled on its own).
 */
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

export const releaseSignal = defineSignal('release');

export async function waitForRelease(): Promise<string> {
  let released = false;
  setHandler(releaseSignal, () => {
    released = true;
  });
  await condition(() => released);
  return 'released';
}
