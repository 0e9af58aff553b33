import { searchCapacity } from '../../../bench/calls/capacitySearch';

/** bench:calls with BENCH_FIND_CAPACITY=1: which call counts it tries, in order, and what it reports. */
describe('bench: capacity search', () => {
  const run = async (first: number, maxCalls: number, capacity: number) => {
    const tried: number[] = [];
    const result = await searchCapacity(first, maxCalls, async (k) => {
      tried.push(k);
      return k <= capacity;
    });
    return { tried, result };
  };

  it('doubles while the target holds, then bisects down to max(5, 10 %)', async () => {
    expect(await run(20, 320, 100)).toEqual({
      tried: [20, 40, 80, 160, 120, 100, 110],
      result: { largestPassing: 100, smallestFailing: 110 },
    });
  });

  it('stops doubling at the limit and reports no failure', async () => {
    expect(await run(20, 100, 1_000)).toEqual({ tried: [20, 40, 80], result: { largestPassing: 80, smallestFailing: null } });
  });

  it('halves down to 1 when even the first count misses the target', async () => {
    expect(await run(20, 320, 3)).toEqual({ tried: [20, 10, 5, 2], result: { largestPassing: 2, smallestFailing: 5 } });
    expect(await run(4, 320, 0)).toEqual({ tried: [4, 2, 1], result: { largestPassing: null, smallestFailing: 1 } });
  });
});
