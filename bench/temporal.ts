/**
 * The Temporal dev server's own throughput under each SQLite setting of its file: one Node process holding a client and a
 * worker, `BENCH_CONCURRENCY` (50) workflows in flight, `BENCH_WORKFLOWS` (200) of each shape (empty; one activity; one
 * local activity) per setting, each setting on a fresh server and file. The in-memory server (no `--db-filename`) is the
 * ceiling each row is compared with.
 *
 *   npm run bench:temporal
 *   BENCH_WORKFLOWS=500 BENCH_SETTINGS=memory,wal-normal npm run bench:temporal
 *
 * A workflow counts when its result is back at the client (`execute`), so every figure is start → first task → (activity) →
 * completion, as a design that spends one workflow per unit of work pays it. Also prints the server's CPU per workflow.
 *
 * With TEMPORAL_ADDRESS set (e.g. the server `npm run up -- --cluster` starts), the same shapes also run against that
 * server, as a last row beside the dev server's (its CPU is read from the process listening on that port, when it runs
 * on this machine):
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 BENCH_SETTINGS=memory,wal-normal npm run bench:temporal
 *
 * With BENCH_TEMPORAL=server, a last row runs on the official server of the cluster profile, started for the bench on
 * the test Postgres (built once into the tool cache).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { intFromEnv, loadConfig } from '../src/platform/config';
import { freePort } from '../src/platform/net/freePort';
import { startEphemeralStack } from '../dev/infra/stack';
import { DEV_SERVER_SQLITE_PRAGMAS, ensureTemporalCli, startDevServer } from '../dev/infra/temporal';
import { TEMPORAL_SERVER_VERSION } from '../dev/infra/temporalServer';
import { connectTemporalClient, dataConverterWith } from '../src/platform/temporal/client';
import { payloadEncryptionCodec } from '../src/platform/codecs/payloadEncryption';
import { FAILURE_CONVERTER_PATH } from '../src/platform/codecs/failureConverter';
import { generateSecretsKey } from '../src/platform/crypto/secretBox';
import { runBounded } from './support/async';
import { listeningPid, portOf, processCpuMs } from './support/cpu';
import { createCleanups, elapsedLog, onTemporalServer, runBench } from './support/run';
import { fmt, printTable } from './support/table';
import type { BenchActivities } from './workflows/temporal';

interface Setting {
  name: string;
  label: string;
  /** undefined: in memory (no file). */
  pragmas: Readonly<Record<string, string>> | undefined;
  /** What a setting does not survive, printed beside its row. */
  caveat?: string;
}

const SETTINGS: readonly Setting[] = [
  { name: 'memory', label: 'in memory (ceiling; not persisted)', pragmas: undefined, caveat: 'loses everything when the server stops' },
  { name: 'default', label: 'SQLite file, default pragmas (before)', pragmas: {} },
  { name: 'wal', label: 'journal_mode=wal', pragmas: { journal_mode: 'wal' } },
  { name: 'wal-normal', label: 'journal_mode=wal synchronous=normal', pragmas: { journal_mode: 'wal', synchronous: 'normal' } },
  {
    name: 'wal-off',
    label: 'journal_mode=wal synchronous=off',
    pragmas: { journal_mode: 'wal', synchronous: 'off' },
    caveat: 'NOT durable: never syncs; an OS crash or power loss can corrupt the file',
  },
];

const SHAPES = ['emptyWorkflow', 'oneActivityWorkflow', 'oneLocalActivityWorkflow'] as const;
type Shape = (typeof SHAPES)[number];
const SHAPE_TITLES: Record<Shape, string> = {
  emptyWorkflow: 'empty/s',
  oneActivityWorkflow: 'activity/s',
  oneLocalActivityWorkflow: 'local act./s',
};

interface Cell {
  perSecond: number;
  serverCpuMsPerWorkflow: number;
}

const activities: BenchActivities = { noop: async () => undefined };

/** `count` workflows of `shape`, `concurrency` at a time, each awaited to its result; workflows/s and the server's CPU each. */
async function measure(client: Client, taskQueue: string, shape: Shape, count: number, concurrency: number, serverPid: number | undefined) {
  const runId = `${shape}-${Date.now()}`;
  const cpuBefore = processCpuMs(serverPid);
  const t0 = performance.now();
  await runBounded(count, concurrency, async (i) => {
    await client.workflow.execute(shape, { taskQueue, workflowId: `${runId}-${i}` });
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpuAfter = processCpuMs(serverPid);
  const serverCpuMs = cpuBefore === undefined || cpuAfter === undefined ? NaN : cpuAfter - cpuBefore;
  return { perSecond: count / seconds, serverCpuMsPerWorkflow: serverCpuMs / count };
}

async function main(): Promise<number> {
  const workflows = intFromEnv('BENCH_WORKFLOWS', 200);
  const concurrency = intFromEnv('BENCH_CONCURRENCY', 50);
  const warmup = intFromEnv('BENCH_WARMUP_WORKFLOWS', 20);
  const wanted = (process.env.BENCH_SETTINGS ?? SETTINGS.map((s) => s.name).join(',')).split(',').map((s) => s.trim());
  const external = process.env.TEMPORAL_ADDRESS;
  const settings: Setting[] = SETTINGS.filter((s) => wanted.includes(s.name));
  if (external) settings.push({ name: 'external', label: `server at ${external} (TEMPORAL_ADDRESS)`, pragmas: undefined });
  if (onTemporalServer())
    settings.push({ name: 'server', label: `official server ${TEMPORAL_SERVER_VERSION} on Postgres`, pragmas: undefined });
  if (settings.length === 0) throw new Error(`BENCH_SETTINGS names none of ${SETTINGS.map((s) => s.name).join(', ')}`);

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = elapsedLog();
  const cleanups = createCleanups({ log });
  const config = loadConfig();
  const cli = ensureTemporalCli(config.toolCacheDir, log);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-temporal-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows/temporal'),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
  });
  log(`${workflows} workflows of each shape per setting, ${concurrency} in flight; settings: ${settings.map((s) => s.name).join(', ')}`);

  const results = new Map<string, Record<Shape, Cell>>();
  try {
    for (const setting of settings) {
      const dbFile = setting.pragmas === undefined ? undefined : path.join(dir, `${setting.name}.db`);
      const logFile = path.join(dir, `${setting.name}.log`);
      const server =
        setting.name === 'external' && external
          ? { address: external, pid: listeningPid(portOf(external)), stop: async () => undefined }
          : setting.name === 'server'
            ? await startEphemeralStack({ name: 'bench_temporal', temporalServer: true, log }).then((stack) => ({
                address: stack.temporalAddress,
                pid: stack.temporalServerPid,
                stop: () => stack.stop(),
              }))
            : await startDevServer({ cli, port: await freePort(), dbFile, sqlitePragmas: setting.pragmas, logFile }).then(
                (dev) => ({ address: dev.address, pid: dev.process.pid, stop: () => dev.stop() }),
                (err: Error) => {
                  const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '(no log)';
                  throw new Error(`${setting.name}: ${err.message}; the server's log ends:\n${tail}`);
                },
              );
      let client: Client | undefined;
      let connection: NativeConnection | undefined;
      try {
        // Payloads encrypted as every deployment's are (a key of this run).
        const payloadCodec = payloadEncryptionCodec(generateSecretsKey());
        client = await connectTemporalClient(server.address, 'default', payloadCodec);
        connection = await NativeConnection.connect({ address: server.address });
        const taskQueue = `bench-temporal-${setting.name}`;
        const worker = await Worker.create({
          connection,
          namespace: 'default',
          taskQueue,
          workflowBundle: { code },
          dataConverter: dataConverterWith(payloadCodec),
          activities,
          maxConcurrentWorkflowTaskExecutions: 100,
          maxConcurrentActivityTaskExecutions: 100,
          maxConcurrentLocalActivityExecutions: 100,
        });
        const row = {} as Record<Shape, Cell>;
        await worker.runUntil(async () => {
          for (const shape of SHAPES) {
            if (warmup > 0) await measure(client!, taskQueue, shape, warmup, concurrency, undefined);
            row[shape] = await measure(client!, taskQueue, shape, workflows, concurrency, server.pid);
            log(`${setting.name} ${shape}: ${fmt(row[shape].perSecond, 1)}/s`);
          }
        });
        results.set(setting.name, row);
        if (dbFile)
          log(
            `${setting.name}: ${fs
              .readdirSync(dir)
              .filter((f) => f.startsWith(`${setting.name}.db`))
              .join(' ')}`,
          );
      } finally {
        await client?.connection.close();
        await connection?.close();
        await server.stop();
      }
    }
  } finally {
    await cleanups.run();
  }

  const ceiling = results.get('memory');
  console.log('');
  console.log(`Workflows completed per second (${workflows} per cell, ${concurrency} in flight; ratio = setting / in memory):`);
  const rows = settings.map((setting) => {
    const row = results.get(setting.name)!;
    const cells = SHAPES.flatMap((shape) => [
      fmt(row[shape].perSecond, 1),
      ceiling ? `${fmt(row[shape].perSecond / ceiling[shape].perSecond, 2)}x` : 'n/a',
    ]);
    return [setting.label, ...cells, ...SHAPES.map((shape) => fmt(row[shape].serverCpuMsPerWorkflow, 1))];
  });
  printTable(
    [
      'setting',
      ...SHAPES.flatMap((shape) => [SHAPE_TITLES[shape], 'ratio']),
      ...SHAPES.map((shape) => `srv ms ${shape.replace('Workflow', '')}`),
    ],
    rows,
  );
  console.log('');
  for (const setting of settings) if (setting.caveat) console.log(`${setting.label}: ${setting.caveat}`);
  console.log(
    `startDevServer uses: ${Object.entries(DEV_SERVER_SQLITE_PRAGMAS)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  return 0;
}

runBench(main);
