import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { carrierCallbackHeaders } from '../../src/adapters/carrier/callbacks/signature';
import { FAILURE_CONVERTER_PATH } from '../../src/platform/codecs/failureConverter';
import { spawnLogged, stopProcess } from '../../dev/infra/proc';
import { startJsonReceiver } from '../support/receivers';
import { baselineStopSignal, baselineTurnSignal, baselineTurnWorkflow, engineFloorTurnWorkflow } from '../turnBaseline/workflows';
import { startFloorCarrierReceiver } from '../turnBaseline/carrierReceiver';
import { countDurableRecords, openDurableRecords, resetDurableRecords } from '../turnBaseline/durableRecords';
import { startTurnBaselineWorker } from '../turnBaseline/worker';
import { arrivals, closedLoop, cpuMeter, paced, printWindow, type ThroughputResult } from './loops';
import { waitForWorker, workerNodeArgs } from './processes';
import { replyTo, row, type Bench, type Row } from './turns';

export interface ReferenceResults {
  bare: ThroughputResult;
  /** The engine floor's closed loop: `latency` is carrier POST → speak, `message` carrier POST → message. */
  floor: ThroughputResult & { message: Row };
  /** The durable floor's closed loop (the engine floor plus the Postgres writes a turn cannot skip across processes). */
  durable: ThroughputResult & { message: Row };
  /** The open loop at K lanes, one turn each every 5 s (as Switchboard's K phase). */
  paced: { k: number; bare: Row; floorMessage: Row; floorSpeak: Row };
}

/**
 * The reference turn loops of bench/turnBaseline on the same server, with their worker run like
 * the project's (inline, or its own process with BENCH_WORKER=process) with WORKER_TUNING:
 *
 * - bare Temporal: a signal, one local activity that POSTs to a local receiver (answering 200 at
 *   once), the next signal. A turn = the signal RPC → the receiver's receipt of the POST.
 * - engine floor: the hops every Switchboard turn makes by the spec, and nothing else: the driver
 *   sends the utterance as a signed carrier POST to a bare Koa receiver that verifies the HMAC and
 *   signals the workflow; the local activity POSTs a signed `message` to a receiver answering as
 *   the bench's receiver does (NDJSON), then hands the reply to a carrier `speak` endpoint. A turn =
 *   the carrier POST → `speak` received (and → `message` received, for say→message).
 * - durable floor: the engine floor plus the writes a turn cannot skip once it runs across several
 *   processes (bench/turnBaseline/durableRecords.ts, raw pg, prepared statements): both carrier events'
 *   signatures accepted once in Postgres, the `message` event recorded before its POST and settled after,
 *   and the carrier's `call.playback` report (the driver sends it signed once `speak` has arrived, untimed,
 *   as the simulator does for Switchboard) recorded. Closed loop only; the bench checks every row is there.
 *
 * Bare and engine floor run the closed loop of phase (a) (same lanes, same turns) and the paced loop
 * of phase (b) at K lanes for `seconds`.
 */
export async function referenceTurns(
  bench: Bench,
  options: { turns: number; lanes: number; warmupTurns: number; dir: string; workerMode: 'inline' | 'process'; k: number; seconds: number },
): Promise<ReferenceResults> {
  const { h } = bench;
  const taskQueue = `${h.config.taskQueue}-bare-turns`;
  const noop = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../turnBaseline/workflows'),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop },
  });
  const bundlePath = path.join(options.dir, 'baseline-bundle.js');
  fs.writeFileSync(bundlePath, code);
  const cleanups: Array<() => Promise<void>> = [];
  const bareMessages = arrivals();
  const floorMessages = arrivals();
  const floorSpeaks = arrivals();
  /** The speak ids the carrier's `speak` endpoint was handed, by reply text: the durable floor's playback reports name them. */
  const speakIds = new Map<string, string>();
  const databaseUrl = h.config.databaseUrl!;
  await resetDurableRecords(databaseUrl);
  try {
    const bareReceiver = await startJsonReceiver((body, at, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const text = (body as { text?: string } | undefined)?.text;
      if (text) bareMessages.arrived(text, at);
    });
    cleanups.push(bareReceiver.close);
    // Answers as the bench's receiver answers Switchboard's `message`: NDJSON, the reply's line at once.
    const floorReceiver = await startJsonReceiver((body, at, res) => {
      const text = (body as { text?: string } | undefined)?.text ?? '';
      floorMessages.arrived(text, at);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ text: replyTo(text) })}\n`);
      res.end(`${JSON.stringify({ done: true })}\n`);
    });
    cleanups.push(floorReceiver.close);
    const speakEndpoint = await startJsonReceiver((body, at, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const { text, speak_id: speakId } = (body as { text?: string; speak_id?: string } | undefined) ?? {};
      if (text && speakId) speakIds.set(text, speakId);
      if (text) floorSpeaks.arrived(text, at);
    });
    cleanups.push(speakEndpoint.close);
    const carrierSecret = crypto.randomBytes(32).toString('hex');
    const carrier = await startFloorCarrierReceiver({ client: h.temporal, secret: carrierSecret });
    cleanups.push(carrier.close);
    const carrierRecords = openDurableRecords(databaseUrl);
    cleanups.push(carrierRecords.close);
    const durableCarrier = await startFloorCarrierReceiver({ client: h.temporal, secret: carrierSecret, records: carrierRecords });
    cleanups.push(durableCarrier.close);

    let workerPid: number | undefined;
    if (options.workerMode === 'inline') {
      const worker = await startTurnBaselineWorker({
        temporalAddress: h.config.temporalAddress!,
        namespace: h.config.temporalNamespace,
        taskQueue,
        bundlePath,
        databaseUrl,
        payloadKey: h.config.temporalPayloadKey!,
      });
      cleanups.push(worker.stop);
    } else {
      const logFile = path.join(options.dir, 'baseline-worker.log');
      const child = spawnLogged(
        process.execPath,
        [...workerNodeArgs, '--import', 'tsx', path.join(__dirname, '..', 'turnBaseline', 'worker.ts')],
        logFile,
        {
          env: {
            ...process.env,
            TEMPORAL_ADDRESS: h.config.temporalAddress,
            TEMPORAL_NAMESPACE: h.config.temporalNamespace,
            TEMPORAL_TASK_QUEUE: taskQueue,
            BASELINE_BUNDLE_PATH: bundlePath,
            TEMPORAL_PAYLOAD_KEY: h.config.temporalPayloadKey,
            DATABASE_URL: databaseUrl,
          },
        },
      );
      cleanups.push(() => stopProcess(child));
      workerPid = child.pid;
      await waitForWorker(h, child, logFile, taskQueue);
    }
    const meter = () => cpuMeter({ worker: workerPid, temporal: bench.temporalPid });

    const started: Array<WorkflowHandle<typeof baselineTurnWorkflow>> = [];
    const startBare = (count: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const handle = await h.temporal.workflow.start(baselineTurnWorkflow, {
            taskQueue,
            workflowId: `bare-turns-${crypto.randomUUID()}-${i}`,
            args: [`${bareReceiver.origin}/hooks`],
          });
          started.push(handle);
          return handle;
        }),
      );
    const startFloor = (count: number, durable = false) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const workflowId = `${durable ? 'durable' : 'floor'}-turns-${crypto.randomUUID()}-${i}`;
          const handle = await h.temporal.workflow.start(engineFloorTurnWorkflow, {
            taskQueue,
            workflowId,
            args: [workflowId, `${floorReceiver.origin}/hooks`, `${speakEndpoint.origin}/speak`, durable],
          });
          started.push(handle);
          return workflowId;
        }),
      );
    cleanups.push(async () => {
      await Promise.all(started.map((handle) => handle.signal(baselineStopSignal).catch(() => undefined)));
      await Promise.all(started.map((handle) => handle.result().catch(() => undefined)));
    });

    const bareTurn = async (handle: WorkflowHandle<typeof baselineTurnWorkflow>, label: string): Promise<number> => {
      const text = `${label} ${crypto.randomBytes(4).toString('hex')}`;
      const received = bareMessages.expect(text, 'bare message');
      const t0 = performance.now();
      await handle.signal(baselineTurnSignal, { text });
      return (await received) - t0;
    };
    const postCarrierEvent = async (url: string, event: Record<string, unknown>) => {
      const rawBody = JSON.stringify(event);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...carrierCallbackHeaders({ secret: carrierSecret, rawBody }) },
        body: rawBody,
      });
      await response.text();
      if (response.status !== 200) throw new Error(`the floor's carrier receiver answered ${response.status}`);
    };
    const floorTurn = async (workflowId: string, label: string, durable = false): Promise<{ message: number; speak: number }> => {
      const text = `${label} ${crypto.randomBytes(4).toString('hex')}`;
      const message = floorMessages.expect(text, 'floor message');
      const speak = floorSpeaks.expect(replyTo(text), 'floor speak');
      const url = durable ? durableCarrier.url : carrier.url;
      const t0 = performance.now();
      await postCarrierEvent(url, { type: 'call.utterance', call_id: workflowId, carrier_call_id: workflowId, text, at: Date.now() });
      const sample = { message: (await message) - t0, speak: (await speak) - t0 };
      // The carrier reports the reply played (untimed, as the simulator's report to Switchboard's API).
      if (durable) {
        const speakId = speakIds.get(replyTo(text));
        speakIds.delete(replyTo(text));
        await postCarrierEvent(url, {
          type: 'call.playback',
          call_id: workflowId,
          carrier_call_id: workflowId,
          speak_id: speakId,
          at: Date.now(),
        });
      }
      return sample;
    };

    // Closed loops, as phase (a).
    const bareLanes = await startBare(options.lanes);
    for (const handle of bareLanes) for (let w = 0; w < options.warmupTurns; w += 1) await bareTurn(handle, `warmup bare t${w}`);
    const cpu = meter();
    const wall0 = performance.now();
    const window0 = process.hrtime.bigint();
    const bareSamples = await closedLoop(options.lanes, options.turns, (lane, i) => bareTurn(bareLanes[lane], `bare c${lane} t${i}`));
    const bare: ThroughputResult = {
      turnsPerSecond: bareSamples.length / ((performance.now() - wall0) / 1000),
      latency: row('bare Temporal: signal→POST received', bareSamples, 0),
      cpu: cpu(bareSamples.length),
    };
    printWindow('bare Temporal closed loop', window0);

    /** The engine floor's (or, `durable`, the durable floor's) closed loop, as phase (a): `latency` carrier POST → speak. */
    const floorClosedLoop = async (title: string, durable: boolean) => {
      const tag = durable ? 'durable' : 'floor';
      const lanes = await startFloor(options.lanes, durable);
      for (const id of lanes) for (let w = 0; w < options.warmupTurns; w += 1) await floorTurn(id, `warmup ${tag} t${w}`, durable);
      const cpuOfLoop = meter();
      const started = performance.now();
      const window = process.hrtime.bigint();
      const samples = await closedLoop(options.lanes, options.turns, (lane, i) => floorTurn(lanes[lane], `${tag} c${lane} t${i}`, durable));
      const result = {
        turnsPerSecond: samples.length / ((performance.now() - started) / 1000),
        latency: row(
          `${title}: carrier POST→speak`,
          samples.map((s) => s.speak),
          0,
        ),
        message: row(
          `${title}: carrier POST→message`,
          samples.map((s) => s.message),
          0,
        ),
        cpu: cpuOfLoop(samples.length),
      };
      printWindow(`${title} closed loop`, window);
      return { result, turns: samples.length };
    };
    const floor = (await floorClosedLoop('engine floor', false)).result;
    const durableLoop = await floorClosedLoop('durable floor', true);
    const durable = durableLoop.result;
    await checkDurableRecords(databaseUrl, options.lanes * options.warmupTurns + durableLoop.turns);

    // Paced loops at K, as phase (b).
    const k = options.k;
    const barePaced = await startBare(k);
    const floorPaced = await startFloor(k);
    for (const handle of barePaced) await bareTurn(handle, 'warmup bare paced');
    for (const id of floorPaced) await floorTurn(id, 'warmup floor paced');
    const barePacedSamples = await paced(k, options.seconds, (lane, t) => bareTurn(barePaced[lane], `bare k${k} c${lane} t${t}`));
    const floorPacedSamples = await paced(k, options.seconds, (lane, t) => floorTurn(floorPaced[lane], `floor k${k} c${lane} t${t}`));
    return {
      bare,
      floor,
      durable,
      paced: {
        k,
        bare: row(`K=${k} bare Temporal: signal→POST received`, barePacedSamples, 0),
        floorMessage: row(
          `K=${k} engine floor: carrier POST→message`,
          floorPacedSamples.map((s) => s.message),
          0,
        ),
        floorSpeak: row(
          `K=${k} engine floor: carrier POST→speak`,
          floorPacedSamples.map((s) => s.speak),
          0,
        ),
      },
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** Every durable-floor turn wrote its rows: two accepted carrier signatures, a playback report, a settled `message` event. */
async function checkDurableRecords(databaseUrl: string, turns: number): Promise<void> {
  const counts = await countDurableRecords(databaseUrl);
  const expected = { signatures: 2 * turns, playbacks: turns, messages: turns, settled: turns };
  if (Object.entries(expected).some(([key, value]) => counts[key as keyof typeof counts] !== value))
    throw new Error(`the durable floor's rows are not all there: ${JSON.stringify(counts)}, expected ${JSON.stringify(expected)}`);
}
