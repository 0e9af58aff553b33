import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import WebSocket, { WebSocketServer } from 'ws';
import { createAudioActivities } from '../../activities/audio/activities';
import { relayAudio, type RelayAudioOptions } from '../../src/domain/calls/audioRelay';
import {
  CarrierRejectedError,
  type CarrierMediaEnd,
  type CarrierMediaEvent,
  type CarrierMediaFrame,
  type CarrierMediaStream,
} from '../../src/adapters/carrier/port';
import { SimulatorCarrier } from '../../src/adapters/carrier/simulatorCarrier';
import type { RelayMessage } from '../../src/platform/audio/framing';
import { startSimulator } from '../../simulator/app';
import { randomSimulatorCredentials, simulatorControl } from '../../dev/simulator';
import { until } from '../support/waits';
import type { AudioReport } from '../../simulator/media/mediaCall';
import { createLogger } from '../../src/platform/logger';
import { EgressPolicy, LOOPBACK_NETWORKS } from '../../src/platform/net/egress';

/**
 * The audio relay end to end without Temporal: the carrier simulator plays the caller (real
 * 20 ms µ-law frames paced in real time), a local `ws` server plays the customer's audio handler.
 */

interface CustomerConnection {
  ws: WebSocket;
  messages: RelayMessage[];
  streamId: string | null;
  closed: Promise<{ code: number }>;
}

describe('audio relay (carrier simulator ↔ relay ↔ customer socket)', () => {
  const credentials = randomSimulatorCredentials();
  const log = createLogger('test', 'silent');
  /** The customer's handler listens on loopback, which only an operator allow-list admits. */
  const egress = new EgressPolicy({ allowedNetworks: LOOPBACK_NETWORKS });
  let simulator: http.Server;
  let simUrl: string;
  let carrier: SimulatorCarrier;
  let control: ReturnType<typeof simulatorControl>;
  let events: http.Server;
  let eventsUrl: string;
  let customer: WebSocketServer;
  let customerUrl: string;
  let connections: CustomerConnection[] = [];
  /** What the customer does with each new connection (default: echo media back). */
  let onCustomer: (connection: CustomerConnection) => void = echo;

  function echo(connection: CustomerConnection): void {
    connection.ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as RelayMessage;
      if (message.event === 'media')
        connection.ws.send(JSON.stringify({ event: 'media', stream_id: message.stream_id, media: { payload: message.media.payload } }));
    });
  }

  beforeAll(async () => {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
    simulator = sim.server;
    simUrl = sim.url;
    control = simulatorControl(simUrl, credentials.controlToken);
    carrier = new SimulatorCarrier(simUrl, credentials.carrierApiKey);
    events = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => events.listen(0, '127.0.0.1', resolve));
    eventsUrl = `http://127.0.0.1:${(events.address() as AddressInfo).port}/carrier/events`;
    sim.callbacks.setBaseUrl(new URL(eventsUrl).origin);
    customer = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
    await new Promise<void>((resolve) => customer.once('listening', () => resolve()));
    customerUrl = `ws://127.0.0.1:${(customer.address() as AddressInfo).port}/audio`;
    customer.on('connection', (ws) => {
      const connection: CustomerConnection = {
        ws,
        messages: [],
        streamId: null,
        closed: new Promise((resolve) => ws.once('close', (code) => resolve({ code }))),
      };
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as RelayMessage;
        connection.messages.push(message);
        if (message.event === 'start') connection.streamId = message.stream_id;
      });
      connections.push(connection);
      onCustomer(connection);
    });
  });

  afterEach(async () => {
    onCustomer = echo;
    connections = [];
    await control('POST', '/control/calls/reset');
  });

  afterAll(async () => {
    for (const client of customer.clients) client.terminate();
    await new Promise<void>((resolve) => customer.close(() => resolve()));
    await new Promise<void>((resolve) => simulator.close(() => resolve()));
    await new Promise<void>((resolve) => events.close(() => resolve()));
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000): Promise<T> {
    let value: T | undefined;
    await until(async () => (value = await probe()) !== undefined, what, { timeoutMs, intervalMs: 20 });
    return value!;
  }

  /** Someone calls one of our numbers and Switchboard answers. */
  async function answeredCall(): Promise<{ callId: string; carrierCallId: string }> {
    const response = await control('POST', '/control/calls/inbound', {
      from: '+14155550142',
      to: `+1212555${2000 + crypto.randomInt(8000)}`,
      events_url: eventsUrl,
    });
    expect(response.status).toBe(201);
    const { carrier_call_id: carrierCallId } = (await response.json()) as { carrier_call_id: string };
    const callId = crypto.randomUUID();
    await carrier.answerCall({ carrierCallId, callId });
    return { callId, carrierCallId };
  }

  async function audioReport(callId: string): Promise<AudioReport> {
    const response = await control('GET', `/control/calls/${callId}/audio`);
    expect(response.status).toBe(200);
    return (await response.json()) as AudioReport;
  }

  async function callerSays(callId: string, body: object): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await control('POST', `/control/calls/${callId}/audio`, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** relayAudio of `call` over `stream` to the suite's customer (line-1, a fresh stream id, never aborted) unless `overrides` say otherwise. */
  const relay = (call: { callId: string }, stream: CarrierMediaStream, overrides: Partial<RelayAudioOptions> = {}) =>
    relayAudio({
      carrier: stream,
      handlerUrl: customerUrl,
      callId: call.callId,
      lineId: 'line-1',
      streamId: `MZ${crypto.randomBytes(4).toString('hex')}`,
      signal: new AbortController().signal,
      egress,
      log,
      ...overrides,
    });

  /** Starts a relay for an answered call; resolves once the simulator sees the media connection. */
  async function startRelay(call: { callId: string; carrierCallId: string }, overrides: Partial<RelayAudioOptions> = {}) {
    const controller = new AbortController();
    const stream = await carrier.openMediaStream({ carrierCallId: call.carrierCallId });
    const done = relay(call, stream, { signal: controller.signal, ...overrides });
    await waitFor('the media connection', async () => ((await audioReport(call.callId)).connected ? true : undefined));
    return { controller, done, stream };
  }

  const media = (connection: CustomerConnection) => connection.messages.filter((message) => message.event === 'media');

  it('relays every caller frame to the customer and every echoed frame back, in order; marks come back once played; abort sends stop', async () => {
    const call = await answeredCall();
    const { controller, done } = await startRelay(call);
    const connection = await waitFor('the customer connection', () => connections[0]);
    await waitFor('connected + start', () => (connection.messages.length >= 2 ? true : undefined));
    expect(connection.messages[0]).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    expect(connection.messages[1]).toMatchObject({
      event: 'start',
      sequence_number: 1,
      start: { call_id: call.callId, line_id: 'line-1', encoding: 'audio/x-mulaw', sample_rate: 8000, channels: 1 },
    });

    const said = await callerSays(call.callId, { tone_hz: 440, duration_ms: 1_000, stamp: true });
    expect(said).toEqual({ status: 202, body: { call_id: call.callId, source: 'tone', frames: 50, duration_ms: 1_000 } });
    const report = await waitFor('50 echoed frames', async () => {
      const current = await audioReport(call.callId);
      return current.received.frames >= 50 ? current : undefined;
    });
    expect(report.sent).toMatchObject({ frames: 50, bytes: 8_000, dropped: 0, sending: false });
    expect(report.received).toMatchObject({ frames: 50, bytes: 8_000, in_order: true, out_of_order: 0, malformed: 0 });
    expect(report.received.rms).toBeGreaterThan(4_000); // a real tone came back (amplitude 8000 → RMS ≈ 5657)
    expect(report.echo).toMatchObject({ matched: 50, in_order: true });
    // Its latency is bench:audio's to measure (with its baseline), not a timed assertion's: on a loaded machine it is anything.
    expect(report.echo.round_trip_ms?.p99).toEqual(expect.any(Number));

    // What the customer saw: 50 media messages, numbered in one sequence, chunks 1…50, 20 ms apart in media time.
    const frames = media(connection);
    expect(frames).toHaveLength(50);
    frames.forEach((message, i) => {
      expect(message).toMatchObject({ sequence_number: i + 2, stream_id: connection.streamId, media: { track: 'inbound', chunk: i + 1 } });
      expect(Buffer.from(message.media.payload, 'base64').readUInt32BE(0)).toBe(i); // the simulator's stamp: frame i
      if (i > 0) expect(message.media.timestamp - frames[i - 1].media.timestamp).toBe(20);
    });

    // A mark after the echoed audio comes back once that audio has played; a malformed message is ignored.
    connection.ws.send('{"event":"media","media":{"payload":"not base64!"}}');
    connection.ws.send(JSON.stringify({ event: 'mark', stream_id: connection.streamId, mark: { name: 'after-echo' } }));
    const mark = await waitFor('the mark back', () => connection.messages.find((message) => message.event === 'mark'));
    expect(mark).toMatchObject({ event: 'mark', stream_id: connection.streamId, mark: { name: 'after-echo' } });
    const marks = (await audioReport(call.callId)).marks;
    expect(marks).toEqual([{ name: 'after-echo', received_at: expect.any(String), played_at: expect.any(String) }]);
    expect(Date.parse(marks[0].played_at as string)).toBeGreaterThanOrEqual(Date.parse(report.received.last_received_at as string));

    controller.abort();
    const summary = await done;
    expect(summary).toEqual({
      framesToCustomer: 50,
      framesToCaller: 50,
      marksToCustomer: 1,
      malformed: 1,
      dropped: 0,
      reconnects: 0,
      streamIds: [connection.streamId],
      endedBy: 'call',
    });
    expect(connection.messages.at(-1)).toEqual({
      event: 'stop',
      sequence_number: 53,
      stream_id: connection.streamId,
      stop: { reason: 'call_ended' },
    });
    expect(await connection.closed).toEqual({ code: 1000 });
    // The relay ends the stream, not the call.
    expect((await audioReport(call.callId)).connected).toBe(false);
  });

  it('customer audio reaches the caller in order even in a burst; clear drops what has not played and reports pending marks at once', async () => {
    onCustomer = () => undefined;
    const call = await answeredCall();
    const { controller, done } = await startRelay(call);
    const connection = await waitFor('the customer connection', () => connections[0]);
    await waitFor('start', () => connection.streamId ?? undefined);
    // 5 s of audio at once (250 frames), a mark, then clear.
    for (let i = 0; i < 250; i += 1)
      connection.ws.send(JSON.stringify({ event: 'media', media: { payload: Buffer.alloc(160, i % 2 ? 0x10 : 0x90).toString('base64') } }));
    connection.ws.send(JSON.stringify({ event: 'mark', mark: { name: 'end-of-burst' } }));
    const received = await waitFor('250 frames at the caller', async () => {
      const current = await audioReport(call.callId);
      return current.received.frames >= 250 ? current : undefined;
    });
    expect(received.received).toMatchObject({ frames: 250, bytes: 40_000, in_order: true });
    expect(received.marks).toEqual([{ name: 'end-of-burst', received_at: expect.any(String), played_at: null }]);
    connection.ws.send(JSON.stringify({ event: 'clear' }));
    const mark = await waitFor(
      'the mark, reported by the clear',
      () => connection.messages.find((message) => message.event === 'mark'),
      1_000,
    );
    expect(mark).toMatchObject({ mark: { name: 'end-of-burst' } });
    const cleared = await audioReport(call.callId);
    expect(cleared.clears).toBe(1);
    expect(cleared.cleared_bytes).toBeGreaterThan(20_000); // most of the 5 s was still to play
    controller.abort();
    expect(await done).toMatchObject({ framesToCaller: 250, marksToCustomer: 1, endedBy: 'call' });
  });

  it('the customer closing its socket ends the relay with customer_closed (the call stays up for the workflow to hang up)', async () => {
    onCustomer = (connection) =>
      connection.ws.on('message', (data) => String(data).includes('"start"') && connection.ws.close(1000, 'bye'));
    const call = await answeredCall();
    const stream = await carrier.openMediaStream({ carrierCallId: call.carrierCallId });
    const summary = await relay(call, stream, { streamId: 'MZclosed' });
    expect(summary).toMatchObject({ endedBy: 'customer_closed', reconnects: 0, streamIds: ['MZclosed'] });
    expect(await stream.ended).toEqual({ reason: 'closed' });
    const calls = (await (await control('GET', '/control/calls')).json()) as { calls: Array<{ call_id: string; state: string }> };
    expect(calls.calls.find((c) => c.call_id === call.callId)?.state).toBe('answered');
  });

  it('an unreachable handler ends the relay with customer_unreachable after the attempts', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const call = await answeredCall();
    const stream = await carrier.openMediaStream({ carrierCallId: call.carrierCallId });
    const started = Date.now();
    const summary = await relay(call, stream, {
      handlerUrl: `ws://127.0.0.1:${port}/audio`,
      streamId: 'MZnope',
      connect: { attempts: 3, timeoutMs: 500, retryDelayMs: 50 },
    });
    expect(summary).toMatchObject({
      endedBy: 'customer_unreachable',
      framesToCustomer: 0,
      streamIds: [],
      detail: expect.stringContaining('ECONNREFUSED'),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150); // 50 + 100 ms between the three attempts
  });

  it('a handler that answers HTTP instead of upgrading is unreachable too', async () => {
    const plain = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const call = await answeredCall();
      const stream = await carrier.openMediaStream({ carrierCallId: call.carrierCallId });
      const summary = await relay(call, stream, {
        handlerUrl: `ws://127.0.0.1:${(plain.address() as AddressInfo).port}/audio`,
        streamId: 'MZ404',
        connect: { attempts: 2, timeoutMs: 500, retryDelayMs: 10 },
      });
      expect(summary).toMatchObject({ endedBy: 'customer_unreachable', detail: expect.stringContaining('404') });
    } finally {
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  it('the caller hanging up ends the relay (endedBy call) and the customer gets stop', async () => {
    const call = await answeredCall();
    const { done } = await startRelay(call);
    const connection = await waitFor('the customer connection', () => connections[0]);
    await waitFor('start', () => connection.streamId ?? undefined);
    expect((await control('POST', `/control/calls/${call.callId}/hangup`)).status).toBe(200);
    expect(await done).toMatchObject({ endedBy: 'call', reconnects: 0 });
    expect(connection.messages.at(-1)).toMatchObject({ event: 'stop', stop: { reason: 'call_ended' } });
    expect(await connection.closed).toEqual({ code: 1000 });
  });

  it('a customer socket failing mid-call is reconnected once with a new stream; a second failure ends it with customer_error', async () => {
    const call = await answeredCall();
    let streamNumber = 0;
    const { done } = await startRelay(call, { newStreamId: () => `MZretry${(streamNumber += 1)}` });
    const first = await waitFor('the first connection', () => connections[0]);
    await waitFor('start', () => first.streamId ?? undefined);
    first.ws.terminate(); // no close frame: 1006, a failure rather than a hang-up
    const second = await waitFor('the second connection', () => connections[1]);
    const start = await waitFor('the second start', () => second.messages.find((message) => message.event === 'start'));
    expect(start).toMatchObject({
      sequence_number: 1,
      stream_id: 'MZretry1',
      start: { call_id: call.callId, previous_stream_id: first.streamId },
    });
    // Audio flows on the new stream.
    await callerSays(call.callId, { duration_ms: 200 });
    await waitFor('10 echoed frames', async () => ((await audioReport(call.callId)).received.frames >= 10 ? true : undefined));
    second.ws.terminate();
    const summary = await done;
    expect(summary).toMatchObject({
      endedBy: 'customer_error',
      reconnects: 1,
      streamIds: [first.streamId, 'MZretry1'],
      framesToCaller: 10,
    });
    expect(connections).toHaveLength(2);
  });

  it('L8: customer marks and clears are held back like audio while the carrier has not taken them; none is lost or reordered', async () => {
    // A carrier whose transport has stalled: nothing it is handed is taken until `release`.
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    let end!: (value: CarrierMediaEnd) => void;
    const ended = new Promise<CarrierMediaEnd>((resolve) => (end = resolve));
    const handed: string[] = [];
    let pending = 0;
    let mostPending = 0;
    const handOver = (what: string) => {
      handed.push(what);
      mostPending = Math.max(mostPending, (pending += 1));
      return stalled.then(() => void (pending -= 1));
    };
    const stream: CarrierMediaStream = {
      format: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      send: () => handOver('media'),
      mark: (name) => handOver(name),
      clear: () => handOver('clear'),
      close: async () => end({ reason: 'closed' }),
      ended,
      stats: () => ({ framesReceived: 0, framesSent: 0, dropped: 0 }),
      [Symbol.asyncIterator]: () => ({
        next: () => ended.then((): IteratorResult<CarrierMediaEvent> => ({ done: true, value: undefined })),
      }),
    };
    const flood = 10_000;
    const names = Array.from({ length: flood }, (_, i) => (i % 500 === 499 ? 'clear' : `mark-${i}`));
    onCustomer = (connection) =>
      connection.ws.on('message', (data) => {
        if (!String(data).includes('"start"')) return;
        for (const name of names)
          connection.ws.send(JSON.stringify(name === 'clear' ? { event: 'clear' } : { event: 'mark', mark: { name } }));
      });
    const controller = new AbortController();
    const done = relay({ callId: 'call-l8' }, stream, { streamId: 'MZflood', signal: controller.signal });
    const connection = await waitFor('the customer connection', () => connections[0]);
    await waitFor('the flood to be written', () => (connection.ws.bufferedAmount === 0 && handed.length > 0 ? true : undefined));
    await sleep(300); // waits out more marks reaching the carrier while the relay is paused
    // Paused at the high-water mark (about 220 marks) plus what the socket had already read (one
    // 64 KiB read, about 1,400 marks): far from the whole flood.
    expect(handed.length).toBeLessThan(flood / 4);
    expect(mostPending).toBe(handed.length);
    release();
    await waitFor('every mark and clear to reach the carrier', () => (handed.length === flood ? true : undefined), 30_000);
    expect(handed).toEqual(names);
    controller.abort();
    expect(await done).toMatchObject({ endedBy: 'call', malformed: 0 });
  });

  it('the carrier keeps at most one second of caller audio for a consumer that is not reading, dropping the oldest', async () => {
    const call = await answeredCall();
    const stream = await carrier.openMediaStream({ carrierCallId: call.carrierCallId });
    try {
      await waitFor('the media connection', async () => ((await audioReport(call.callId)).connected ? true : undefined));
      await callerSays(call.callId, { duration_ms: 2_000, stamp: true });
      await waitFor('100 frames sent', async () => ((await audioReport(call.callId)).sent.frames >= 100 ? true : undefined));
      await waitFor('100 frames at the adapter', () => (stream.stats().framesReceived >= 100 ? true : undefined));
      const kept: CarrierMediaFrame[] = [];
      const iterator = stream[Symbol.asyncIterator]();
      for (let i = 0; i < 50; i += 1) {
        const next = await iterator.next();
        if (!next.done && next.value.type === 'media') kept.push(next.value);
      }
      expect(kept.map((frame) => frame.sequence)).toEqual(Array.from({ length: 50 }, (_, i) => 51 + i));
      expect(kept.map((frame) => frame.payload.readUInt32BE(0))).toEqual(Array.from({ length: 50 }, (_, i) => 50 + i));
      expect(kept[1].timestamp - kept[0].timestamp).toBe(20);
      expect(stream.stats()).toEqual({ framesReceived: 100, framesSent: 0, dropped: 50 });
    } finally {
      await stream.close();
    }
  });

  it('the media endpoint wants the carrier secret and an answered call', async () => {
    const wrong = new SimulatorCarrier(simUrl, credentials.paymentsApiKey); // not the carrier's key
    const call = await answeredCall();
    await expect(wrong.openMediaStream({ carrierCallId: call.carrierCallId })).rejects.toThrow(CarrierRejectedError);
    await expect(carrier.openMediaStream({ carrierCallId: 'CAunknown' })).rejects.toThrow(/404/);
    const ringing = await control('POST', '/control/calls/inbound', { from: '+14155550142', to: '+12125552999', events_url: eventsUrl });
    const { carrier_call_id: ringingId } = (await ringing.json()) as { carrier_call_id: string };
    await expect(carrier.openMediaStream({ carrierCallId: ringingId })).rejects.toThrow(/409/);
    // Other paths are not WebSocket endpoints.
    const other = new WebSocket(`${simUrl.replace(/^http/, 'ws')}/carrier/v1/numbers`, {
      headers: { authorization: `Bearer ${credentials.carrierApiKey}` },
    });
    const status = await new Promise<number>((resolve) => {
      other.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      other.once('open', () => resolve(101));
      other.once('error', () => undefined);
    });
    other.terminate();
    expect(status).toBe(404);
    // The control API refuses audio until a media stream is connected.
    expect(await callerSays(call.callId, { duration_ms: 100 })).toEqual({ status: 409, body: { error: 'no media stream is connected' } });
    expect((await callerSays(call.callId, { tone_hz: 5_000 })).status).toBe(400);
    expect((await callerSays('no-such-call', {})).status).toBe(404);
  });

  it('text without espeak-ng (or with it) is spoken as audio frames', async () => {
    const call = await answeredCall();
    const { controller, done } = await startRelay(call);
    const said = await callerSays(call.callId, { text: 'one two' });
    expect(said.status).toBe(202);
    expect(['tone', 'speech']).toContain(said.body.source);
    const frames = said.body.frames as number;
    expect(frames).toBeGreaterThan(0);
    if (said.body.source === 'tone') expect(frames).toBe(35); // 2 words × 350 ms
    await waitFor(
      'the spoken frames echoed',
      async () => ((await audioReport(call.callId)).received.frames >= frames ? true : undefined),
      frames * 20 + 5_000,
    );
    controller.abort();
    expect(await done).toMatchObject({ framesToCustomer: frames, framesToCaller: frames, endedBy: 'call' });
  });

  describe('relayCallAudio activity', () => {
    const quietEnvironment = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

    it('heartbeats while relaying and reports cancellation after sending stop', async () => {
      const call = await answeredCall();
      const activities = createAudioActivities({ carrier, egress, log, heartbeatMs: 50 });
      const env = quietEnvironment();
      const heartbeats: unknown[] = [];
      env.on('heartbeat', (details: unknown) => heartbeats.push(details));
      const running = env.run(activities.relayCallAudio, {
        callId: call.callId,
        lineId: 'line-1',
        carrierCallId: call.carrierCallId,
        handlerUrl: customerUrl,
      });
      const connection = await waitFor('the customer connection', () => connections[0]);
      await waitFor('start', () => connection.streamId ?? undefined);
      await callerSays(call.callId, { duration_ms: 100 });
      await waitFor('5 echoed frames', async () => ((await audioReport(call.callId)).received.frames >= 5 ? true : undefined));
      await waitFor('a heartbeat with progress', () =>
        heartbeats.find((details) => (details as { framesFromCarrier?: number } | undefined)?.framesFromCarrier === 5),
      );
      env.cancel();
      await expect(running).rejects.toBeInstanceOf(CancelledFailure);
      expect(connection.messages.at(-1)).toMatchObject({ event: 'stop', stop: { reason: 'call_ended' } });
    });

    it('returns the summary when the customer hangs up; a call that is not answered is a non-retryable CarrierRejected', async () => {
      onCustomer = (connection) => connection.ws.on('message', (data) => String(data).includes('"start"') && connection.ws.close());
      const call = await answeredCall();
      const activities = createAudioActivities({ carrier, egress, log });
      const env = quietEnvironment();
      const summary = await env.run(activities.relayCallAudio, {
        callId: call.callId,
        lineId: 'line-1',
        carrierCallId: call.carrierCallId,
        handlerUrl: customerUrl,
      });
      expect(summary).toMatchObject({ endedBy: 'customer_closed', streamIds: [expect.stringMatching(/^MZ[0-9a-f]{32}$/)] });
      await control('POST', `/control/calls/${call.callId}/hangup`);
      await expect(
        quietEnvironment().run(activities.relayCallAudio, {
          callId: call.callId,
          lineId: 'line-1',
          carrierCallId: call.carrierCallId,
          handlerUrl: customerUrl,
        }),
      ).rejects.toMatchObject({
        type: 'CarrierRejected',
        nonRetryable: true,
      });
    });
  });
});
