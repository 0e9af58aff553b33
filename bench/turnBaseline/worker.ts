/**
 * The baseline's worker (bench/turnBaseline/workflows.ts) with the project worker's tuning
 * (src/main/worker.ts WORKER_TUNING). `bench:calls` runs it in its own process with
 * BENCH_WORKER=process (this file's entry point), or in the bench process (`startTurnBaselineWorker`).
 *
 *   TEMPORAL_ADDRESS=… TEMPORAL_TASK_QUEUE=… TEMPORAL_PAYLOAD_KEY=… BASELINE_BUNDLE_PATH=… [DATABASE_URL=…] node --import tsx bench/turnBaseline/worker.ts
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { WORKER_TUNING } from '../../src/main/worker';
import { payloadEncryptionCodec } from '../../src/platform/codecs/payloadEncryption';
import { dataConverterWith } from '../../src/platform/temporal/client';
import { createTurnBaselineActivities } from './activities';
import { openDurableRecords } from './durableRecords';

export async function startTurnBaselineWorker(options: {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  bundlePath: string;
  /** The durable floor's database; without it the worker runs the bare and engine-floor turns only. */
  databaseUrl?: string;
  /** TEMPORAL_PAYLOAD_KEY: the project's worker encrypts payloads, so the baseline does too (same cost, and the same client starts both). */
  payloadKey: string;
}): Promise<{ running: Promise<void>; stop(): Promise<void> }> {
  const records = options.databaseUrl ? openDurableRecords(options.databaseUrl) : undefined;
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: { codePath: options.bundlePath },
    dataConverter: dataConverterWith(payloadEncryptionCodec(options.payloadKey)),
    activities: createTurnBaselineActivities(records),
    ...WORKER_TUNING,
  });
  const running = worker.run().finally(async () => {
    await connection.close();
    await records?.close();
  });
  return {
    running,
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

if (require.main === module) {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  startTurnBaselineWorker({
    temporalAddress: env('TEMPORAL_ADDRESS'),
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env('TEMPORAL_TASK_QUEUE'),
    bundlePath: env('BASELINE_BUNDLE_PATH'),
    databaseUrl: process.env.DATABASE_URL,
    payloadKey: env('TEMPORAL_PAYLOAD_KEY'),
  })
    .then(({ running }) => running)
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
