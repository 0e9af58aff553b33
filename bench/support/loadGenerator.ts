/**
 * bench:api's load generator (autocannon) and its interleaved measurement: each target gets a child process of its own
 * (its own heap, event loop and core to be scheduled on, as wrk from another shell would), driven over IPC; the
 * targets compared with each other take turns in slices (`measureInterleaved`).
 */
import { fork } from 'node:child_process';
import { on } from 'node:events';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { cpuSeconds, postgresCpuMs, processCpuMs } from './cpu';
import { writeRequests, type WriteLoad } from './apiWrites';

export interface LoadSpec {
  title: string;
  url: string;
  headers: Record<string, string>;
  write?: WriteLoad;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** The process serving the target, when it is not this one (the floors'): its CPU is the target's servers' CPU. */
  serverPid?: number;
}

export interface Summary {
  title: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  total: number;
  /**
   * CPU per request (µs) over the target's slices: the process serving it (the API's, or the floors'), the Postgres and
   * Temporal servers (NaN where /proc cannot show them) and the target's load generator.
   */
  cpuUs?: { servers: number; postgres: number; temporal: number; loadgen: number };
}

/** What the parent asks of a target's load generator: `spec` first (not answered), then each answered once done (`finish` with the Summary). */
type LoadCommand = { kind: 'spec'; spec: LoadSpec } | { kind: 'warmup' } | { kind: 'slice'; seconds: number } | { kind: 'finish' };

/** autocannon's result of a run made with `skipAggregateResult`: encoded histograms, merged by `aggregateResult`. */
type RawResult = autocannon.Result & { totalCompletedRequests: number };
const aggregateResults = (autocannon as unknown as { aggregateResult(results: RawResult[], opts: autocannon.Options): autocannon.Result })
  .aggregateResult;

/**
 * One target's load: a warm-up, then measured slices that the parent interleaves with other targets' slices, then a
 * summary over all of them (latency percentiles from the slices' merged histograms, req/s over their summed time).
 * The requests (a write row's tenants and numbers) carry on from one slice to the next.
 */
async function loadgenMain(): Promise<void> {
  let spec: LoadSpec | undefined;
  let requests: autocannon.Request[] | undefined;
  const slices: RawResult[] = [];
  let measuredSeconds = 0;
  const options = (seconds: number): autocannon.Options => ({
    url: spec!.url,
    headers: spec!.headers,
    connections: spec!.connections,
    pipelining: 1,
    requests,
    duration: seconds,
    title: spec!.title,
    skipAggregateResult: true,
  });
  const run = (seconds: number) => autocannon(options(seconds));
  const answer = (message: unknown) =>
    new Promise<void>((resolve, reject) => process.send!(message as object, (err: Error | null) => (err ? reject(err) : resolve())));
  const warmUp = async (): Promise<void> => {
    const warmed = spec!.warmupSec > 0 ? ((await run(spec!.warmupSec)) as RawResult).totalCompletedRequests : 0;
    // A write row's warm-up reaches every tenant at least once, as a fleet in steady state has: each tenant's key is
    // then in the API's key cache, rather than its first use (a key read) counted in the measurement.
    const unreached = (spec!.write?.tenants.length ?? 0) - warmed;
    if (unreached > 0) {
      const { duration: _timed, ...untimed } = options(0);
      // autocannon refuses fewer requests than connections; a few tenants reached twice do no harm.
      await autocannon({ ...untimed, amount: Math.max(unreached, spec!.connections) });
    }
  };
  const slice = async (seconds: number): Promise<{ cpuMs: number }> => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    slices.push((await run(seconds)) as RawResult);
    measuredSeconds += (performance.now() - started) / 1000;
    return { cpuMs: cpuSeconds(process.cpuUsage(cpu)) * 1000 };
  };
  const summary = (): Summary => {
    const merged = aggregateResults(slices, { url: spec!.url, connections: spec!.connections, title: spec!.title });
    const total = slices.reduce((sum, one) => sum + one.totalCompletedRequests, 0);
    const { non2xx, errors, timeouts } = merged;
    return {
      title: spec!.title,
      reqPerSec: total / measuredSeconds,
      p50: merged.latency.p50,
      p99: merged.latency.p99,
      non2xx,
      errors,
      timeouts,
      total,
    };
  };
  // The spec comes over IPC (with a write row's tenants, a key each, it is too long for a command line), unanswered;
  // every other command is answered when done.
  for await (const [command] of on(process, 'message') as AsyncIterable<[LoadCommand]>) {
    if (command.kind === 'spec') {
      spec = command.spec;
      requests = spec.write ? writeRequests(spec.write) : undefined;
    } else if (command.kind === 'finish') {
      await answer(summary());
      process.disconnect();
      return;
    } else {
      await answer(command.kind === 'warmup' ? (await warmUp(), {}) : await slice(command.seconds));
    }
  }
}

/** A target's load generator in a child process of its own, driven one command at a time. */
interface LoadGenerator {
  warmUp(): Promise<void>;
  /** Runs a measured slice; resolves to the CPU time (ms) the load generator used in it. */
  slice(seconds: number): Promise<number>;
  finish(): Promise<Summary>;
}

function startLoadGenerator(spec: LoadSpec): LoadGenerator {
  // execArgv is inherited, so the child also runs under `--import tsx`.
  const child = fork(__filename, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let pending: { resolve: (message: unknown) => void; reject: (err: Error) => void } | undefined;
  child.on('message', (message) => {
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(message);
  });
  const fail = (err: Error) => {
    const waiting = pending;
    pending = undefined;
    waiting?.reject(err);
  };
  child.on('error', fail);
  child.on('exit', (code, signal) => fail(new Error(`load generator for ${spec.title} exited (code ${code}, signal ${signal})`)));
  const ask = (command: LoadCommand) =>
    new Promise<unknown>((resolve, reject) => {
      pending = { resolve, reject };
      child.send(command);
    });
  child.send({ kind: 'spec', spec } satisfies LoadCommand);
  return {
    warmUp: async () => void (await ask({ kind: 'warmup' })),
    slice: async (seconds) => ((await ask({ kind: 'slice', seconds })) as { cpuMs: number }).cpuMs,
    finish: async () => (await ask({ kind: 'finish' })) as Summary,
  };
}

/**
 * Measures targets in interleaved slices: each warmed up once, then `rounds` rounds in which every target runs
 * `durationSec / rounds` seconds, in turn, the order reversed every other round (A B, B A, ...). A ratio of two
 * targets measured this way compares the same minutes of the machine: on this shared 2-core machine its speed drifts
 * by more than 10% between one row's quarter minute and the next's, which consecutive rows took as the targets' own
 * difference. `betweenSlices` runs after each slice, outside the measurement (an SMS row's hand-over catching up).
 */
export async function measureInterleaved(
  specs: readonly LoadSpec[],
  options: { rounds: number; postgresPort: number; temporalPid: number | undefined; betweenSlices?: (spec: LoadSpec) => Promise<void> },
): Promise<Summary[]> {
  const generators = specs.map((spec) => startLoadGenerator(spec));
  for (const generator of generators) await generator.warmUp();
  const seconds = Math.max(1, Math.round(specs[0]!.durationSec / options.rounds));
  const cpuMs = specs.map(() => ({ servers: 0, postgres: 0, temporal: 0, loadgen: 0 }));
  // CPU time so far (ms) of the process serving `spec`, Postgres and Temporal; undefined where /proc cannot show one.
  const cpuNow = (spec: LoadSpec) => ({
    servers: processCpuMs(spec.serverPid ?? process.pid),
    postgres: postgresCpuMs(options.postgresPort),
    temporal: processCpuMs(options.temporalPid),
  });
  for (let round = 0; round < options.rounds; round += 1) {
    const order = round % 2 === 0 ? specs.map((_, i) => i) : specs.map((_, i) => specs.length - 1 - i);
    for (const i of order) {
      const spec = specs[i]!;
      const before = cpuNow(spec);
      const loadgenMs = await generators[i]!.slice(seconds);
      const after = cpuNow(spec);
      const used = cpuMs[i]!;
      used.loadgen += loadgenMs;
      for (const part of ['servers', 'postgres', 'temporal'] as const) used[part] += (after[part] ?? NaN) - (before[part] ?? NaN);
      await options.betweenSlices?.(spec);
    }
  }
  const summaries: Summary[] = [];
  for (const [i, generator] of generators.entries()) {
    const summary = await generator.finish();
    const perRequest = (ms: number) => (summary.total > 0 ? (ms * 1000) / summary.total : NaN);
    const cpu = cpuMs[i]!;
    summaries.push({
      ...summary,
      cpuUs: {
        servers: perRequest(cpu.servers),
        postgres: perRequest(cpu.postgres),
        temporal: perRequest(cpu.temporal),
        loadgen: perRequest(cpu.loadgen),
      },
    });
  }
  return summaries;
}

// Forked by startLoadGenerator: this file is the child's entry point.
if (require.main === module) void loadgenMain();
