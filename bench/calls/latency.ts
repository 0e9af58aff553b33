import { performance } from 'node:perf_hooks';
import { runBounded } from '../support/async';
import { postJson } from '../support/http';
import { startStubEndpoint } from '../support/receivers';
import { hopRows } from './hops';
import { cpuMeter, printWindow, type ThroughputResult } from './loops';
import { hangUp, placeCalls, row, turn, turnRows, type Bench, type Row, type Turn } from './turns';

/**
 * (a) Added turn latency: turns back to back over a few concurrent calls, split into hops, with
 * the CPU per turn, against bare loopback POST round trips.
 */

async function baselineRoundTrips(n: number, lanes: number): Promise<number[]> {
  const endpoint = await startStubEndpoint(200, '{}');
  const url = `${endpoint.origin}/`;
  const samples: number[] = [];
  try {
    // Warm-up (not counted): one keep-alive socket per lane.
    await Promise.all(Array.from({ length: lanes * 5 }, (_, i) => postJson(url, { event: 'message', text: `warmup ${i}` })));
    await runBounded(n, lanes, async (i) => {
      const t0 = performance.now();
      await postJson(url, { event: 'message', text: `baseline ${i + 1}` });
      samples.push(performance.now() - t0);
    });
  } finally {
    await endpoint.close();
  }
  return samples;
}

export async function latencyPhase(
  bench: Bench,
  turns: number,
  callCount: number,
  warmupTurns: number,
): Promise<{ rows: Row[]; hops: Row[]; throughput: ThroughputResult; missing: number }> {
  const ids = await placeCalls(bench, callCount);
  for (const [i, id] of ids.entries()) for (let w = 0; w < warmupTurns; w += 1) await turn(bench, id, `warmup c${i} t${w}`);
  const done: Turn[] = [];
  let next = 0;
  const meter = cpuMeter({ worker: bench.workerPid, temporal: bench.temporalPid, api: bench.apiPid });
  const hr0 = process.hrtime.bigint();
  const wall0 = performance.now();
  await Promise.all(
    ids.map(async (id, i) => {
      while (next < turns) {
        next += 1;
        done.push(await turn(bench, id, `latency c${i} t${next}`));
      }
    }),
  );
  const wall = performance.now() - wall0;
  const cpu = meter(done.length);
  printWindow('(a)', hr0);
  await hangUp(bench, ids);
  const baseline = await baselineRoundTrips(turns, callCount);
  const { rows, endToEnd } = turnRows(bench, done, '');
  return {
    rows: [...rows, row('baseline: loopback POST round trip', baseline, 0)],
    hops: await hopRows(bench, done),
    throughput: { turnsPerSecond: done.length / (wall / 1000), latency: endToEnd, cpu },
    missing: endToEnd.missing,
  };
}
