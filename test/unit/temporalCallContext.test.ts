import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConnectionLike } from '@temporalio/client';
import { releaseCallContext, withCallContext } from '../../src/platform/temporal/callContext';

/** A connection as far as callContext.ts sees one: its call-context storage (the SDK's `with…` calls run in it). */
function fakeConnection() {
  const callContextStorage = new AsyncLocalStorage<{ label: string }>();
  const connection = { callContextStorage } as unknown as ConnectionLike;
  const withLabel = <T>(label: string, fn: () => Promise<T>) => callContextStorage.run({ label }, fn);
  return { connection, callContextStorage, withLabel };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Temporal call context (src/platform/temporal/callContext.ts)', () => {
  it('keeps the context of a call still in flight when an overlapping one ends', async () => {
    const { connection, callContextStorage, withLabel } = fakeConnection();
    let releaseSecond!: () => void;
    const secondMayEnd = new Promise<void>((resolve) => (releaseSecond = resolve));
    const seen: Array<string | undefined> = [];
    const first = withCallContext(connection, () => withLabel('first', async () => tick()));
    const second = withCallContext(connection, () =>
      withLabel('second', async () => {
        await secondMayEnd;
        seen.push(callContextStorage.getStore()?.label);
      }),
    );
    await first;
    releaseSecond();
    await second;
    expect(seen).toEqual(['second']);
  });

  it('switches the storage off once no call is in flight, and a later call switches it on again', async () => {
    const { connection, callContextStorage, withLabel } = fakeConnection();
    callContextStorage.enterWith({ label: 'left over from connecting' });
    releaseCallContext(connection);
    expect(callContextStorage.getStore()).toBeUndefined();
    const inside = await withCallContext(connection, () => withLabel('later', async () => callContextStorage.getStore()?.label));
    expect(inside).toBe('later');
  });
});
