/**
 * The far ends of the audio benchmark (bench/audio.ts): the carrier simulator (the callers), a
 * stand-in for Switchboard's carrier events endpoint, and the customer's audio handler (a `ws`
 * server echoing every `media` payload back). bench/audio.ts runs it in its own process by
 * default (forked, steered over IPC) so the bench process holds only what is measured (the relays,
 * or the bare echo); with BENCH_AUDIO_IN_PROCESS=1 it runs in the same process.
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer } from 'ws';
import { startSimulator, type SimulatorCredentials } from '../simulator/app';
import type { AudioReport } from '../simulator/media/mediaCall';
import type { MediaSimulatorState } from '../simulator/media/state';
import { randomSimulatorCredentials } from '../dev/simulator';
import { sleep } from './support/async';
import { closeServer } from './support/http';
import { startStubEndpoint } from './support/receivers';

export interface PeerInfo {
  simUrl: string;
  /** Random per peer: the carrier API key (media sockets) and the control token. */
  credentials: SimulatorCredentials;
  eventsUrl: string;
  customerUrl: string;
}

export interface TalkResult {
  reports: AudioReport[];
  /** Round trips (ms) of echoed frames, warm-up excluded. */
  roundTrips: number[];
  /** From the first caller starting to the last frame received back (ms). */
  windowMs: number;
  /** CPU time (s) this peer's process used while the callers talked (the whole process when in-process). */
  cpuS: number;
}

const DRAIN_TIMEOUT_MS = 5_000;

export async function startPeer(): Promise<{ info: PeerInfo; media: MediaSimulatorState; close(): Promise<void> }> {
  const credentials = randomSimulatorCredentials();
  const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
  // Switchboard's carrier events endpoint, as far as the simulator can tell: 204 to everything.
  const events = await startStubEndpoint(204);
  sim.callbacks.setBaseUrl(events.origin);
  const customer = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => customer.once('listening', () => resolve()));
  customer.on('connection', (ws) => {
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event?: string; stream_id?: string; media?: { payload?: string } };
      if (message.event === 'media')
        ws.send(JSON.stringify({ event: 'media', stream_id: message.stream_id, media: { payload: message.media?.payload } }));
    });
  });
  return {
    info: {
      simUrl: sim.url,
      credentials,
      eventsUrl: `${events.origin}/carrier/events`,
      customerUrl: `ws://127.0.0.1:${(customer.address() as AddressInfo).port}/audio`,
    },
    media: sim.media,
    async close() {
      for (const client of customer.clients) client.terminate();
      await new Promise<void>((resolve) => customer.close(() => resolve()));
      await closeServer(sim.server);
      await events.close();
    },
  };
}

/**
 * Makes every caller talk for `seconds` (a stamped tone, a different pitch per call, the callers
 * starting spread evenly over one 20 ms period, as real callers are not in phase), then waits
 * until every frame is back (or DRAIN_TIMEOUT_MS) and reports.
 */
export async function talk(media: MediaSimulatorState, callIds: string[], seconds: number, warmupMs: number): Promise<TalkResult> {
  const roundTrips: number[] = [];
  const firstSent = new Map<string, number>();
  let lastReceipt = 0;
  media.onFrameReceived = (frame) => {
    lastReceipt = frame.receivedAt;
    if (frame.sentAt === null) return;
    const first = firstSent.get(frame.callId);
    if (first === undefined) firstSent.set(frame.callId, frame.sentAt);
    else if (frame.sentAt - first >= warmupMs) roundTrips.push(frame.receivedAt - frame.sentAt);
  };
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    callIds.map(async (callId, i) => {
      await sleep((i * 20) / callIds.length);
      const said = await media.speak(callId, { toneHz: 300 + (i % 500), durationMs: seconds * 1000, stamp: true });
      if (typeof said === 'string') throw new Error(`caller audio refused for ${callId}: ${said}`);
    }),
  );
  await sleep(seconds * 1000);
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let reports: AudioReport[];
  for (;;) {
    reports = callIds.map((callId) => media.report(callId) as AudioReport);
    if (reports.every((r) => !r.sent.sending && r.echo.matched >= r.sent.frames) || Date.now() > deadline) break;
    await sleep(50);
  }
  const cpu = process.cpuUsage(cpu0);
  media.onFrameReceived = null;
  return { reports, roundTrips, windowMs: lastReceipt - start, cpuS: (cpu.user + cpu.system) / 1e6 };
}

/** Forked by bench/audio.ts: answers `talk` requests over IPC until told to stop. */
async function child(): Promise<void> {
  const peer = await startPeer();
  process.on('message', (message: { type: string; id?: number; callIds?: string[]; seconds?: number; warmupMs?: number }) => {
    if (message.type === 'talk') {
      talk(peer.media, message.callIds ?? [], message.seconds ?? 1, message.warmupMs ?? 0).then(
        (result) => process.send?.({ type: 'talked', id: message.id, result }),
        (err: Error) => process.send?.({ type: 'talked', id: message.id, error: err.message }),
      );
    } else if (message.type === 'stop') {
      void peer.close().finally(() => process.exit(0));
    }
  });
  process.send?.({ type: 'ready', info: peer.info });
}

if (require.main === module) {
  child().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
