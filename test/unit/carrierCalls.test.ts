import crypto from 'node:crypto';
import http from 'node:http';
import { CarrierRejectedError, type CarrierCallEvent } from '../../activities/carrier/adapter';
import { SimulatorCarrier } from '../../activities/carrier/simulatorCarrier';
import { startCarrierSimulator } from '../../src/simulator/carrierSimulator';

describe('carrier simulator: outbound calls', () => {
  const secret = crypto.randomBytes(16).toString('hex');
  const from = '+12025552001';
  let simulator: http.Server;
  let url: string;
  let carrier: SimulatorCarrier;

  // The events receiver: plays Switchboard's carrier events endpoint.
  let receiver: http.Server;
  let eventsUrl: string;
  let events: CarrierCallEvent[] = [];
  let badAuth = 0;
  /** call_id -> how many more POSTs for it to answer 503 before accepting. */
  const failNext = new Map<string, number>();

  beforeAll(async () => {
    const sim = await startCarrierSimulator({ host: '127.0.0.1', port: 0, secret });
    simulator = sim.server;
    url = sim.url;
    carrier = new SimulatorCarrier(url, secret);

    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.headers.authorization !== `Bearer ${secret}` || req.headers['content-type'] !== 'application/json') {
          badAuth += 1;
          res.writeHead(401).end();
          return;
        }
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CarrierCallEvent;
        const failures = failNext.get(event.call_id) ?? 0;
        if (failures > 0) {
          failNext.set(event.call_id, failures - 1);
          res.writeHead(503).end();
          return;
        }
        events.push(event);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address() as { port: number };
    eventsUrl = `http://127.0.0.1:${address.port}/carrier/events`;
  });

  afterEach(async () => {
    expect((await fetch(`${url}/control/calls/reset`, { method: 'POST' })).status).toBe(200);
    expect(badAuth).toBe(0);
    events = [];
    failNext.clear();
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => simulator.close(() => resolve()));
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  async function control(method: string, path: string, body?: object) {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, body: (await response.json()) as any };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const eventsFor = (callId: string) => events.filter((event) => event.call_id === callId);
  const typesFor = (callId: string) => eventsFor(callId).map((event) => event.type);

  async function waitForEvents(callId: string, count: number, timeoutMs = 3_000): Promise<CarrierCallEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (eventsFor(callId).length < count) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} events for ${callId}; got ${JSON.stringify(eventsFor(callId))}`);
      await sleep(10);
    }
    return eventsFor(callId);
  }

  async function callRecord(callId: string) {
    const { body } = await control('GET', '/control/calls');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (body.calls as any[]).find((call) => call.call_id === callId);
  }

  const place = (to: string, callId: string = crypto.randomUUID()) => carrier.placeCall({ callId, from, to, eventsUrl }).then((result) => ({ ...result, callId }));

  it('rings, then answers after ring_ms, with events in order', async () => {
    const { callId, carrierCallId } = await place('+14155552345');
    expect(carrierCallId).toMatch(/^CA[0-9a-f]{32}$/);
    const [ringing, answered] = await waitForEvents(callId, 2);
    expect(ringing).toEqual({ type: 'call.ringing', call_id: callId, carrier_call_id: carrierCallId, at: expect.any(Number) });
    expect(answered).toEqual({ type: 'call.answered', call_id: callId, carrier_call_id: carrierCallId, at: expect.any(Number) });
    expect(Number.isInteger(ringing.at)).toBe(true);
    expect(answered.at - ringing.at).toBeGreaterThanOrEqual(150);
    expect(await callRecord(callId)).toEqual({
      call_id: callId,
      carrier_call_id: carrierCallId,
      from,
      to: '+14155552345',
      state: 'answered',
      outcome: 'answer',
      requests: 1,
      created_at: expect.any(String),
      answered_at: expect.any(String),
      ended_at: null,
    });
  });

  it('is idempotent on call_id', async () => {
    const first = await place('+14155552346', 'call-idem');
    const second = await place('+14155552346', 'call-idem');
    expect(second.carrierCallId).toBe(first.carrierCallId);
    await waitForEvents('call-idem', 2);
    await sleep(400);
    expect(typesFor('call-idem')).toEqual(['call.ringing', 'call.answered']);
    const { body } = await control('GET', '/control/calls');
    expect(body.calls).toHaveLength(1);
    expect(body.calls[0]).toMatchObject({ carrier_call_id: first.carrierCallId, requests: 2 });
    // The same call_id for a different call is refused.
    await expect(place('+14155552347', 'call-idem')).rejects.toBeInstanceOf(CarrierRejectedError);
  });

  it('never connects a call to the reserved range; a hangup then completes it unanswered', async () => {
    const { callId, carrierCallId } = await place('+13125550142');
    await waitForEvents(callId, 1);
    await sleep(500);
    expect(typesFor(callId)).toEqual(['call.ringing']);
    expect(await callRecord(callId)).toMatchObject({ state: 'ringing', outcome: 'never_connect' });
    await carrier.hangUp({ carrierCallId });
    const [, completed] = await waitForEvents(callId, 2);
    expect(completed).toEqual({ type: 'call.completed', call_id: callId, carrier_call_id: carrierCallId, at: expect.any(Number), ended_by: 'switchboard', answered: false });
    expect(await callRecord(callId)).toMatchObject({ state: 'ended', answered_at: null, ended_at: expect.any(String) });
  });

  it('plays configured busy, no_answer and fail outcomes', async () => {
    expect((await control('POST', '/control/calls/outcomes', { to: '+16175552001', outcome: 'busy', ring_ms: 0 })).body).toEqual({ to: '+16175552001', outcome: 'busy', ring_ms: 0 });
    expect((await control('POST', '/control/calls/outcomes', { to: '+16175552002', outcome: 'no_answer', ring_ms: 300 })).status).toBe(200);
    expect((await control('POST', '/control/calls/outcomes', { to: '+16175552003', outcome: 'fail' })).status).toBe(200);
    expect((await control('POST', '/control/calls/outcomes', { to: '+16175552004', outcome: 'maybe' })).status).toBe(400);

    const busy = await place('+16175552001');
    const noAnswer = await place('+16175552002');
    const failed = await place('+16175552003');

    await waitForEvents(busy.callId, 2);
    expect(typesFor(busy.callId)).toEqual(['call.ringing', 'call.busy']);
    const [ringing, noAnswerEvent] = await waitForEvents(noAnswer.callId, 2);
    expect(typesFor(noAnswer.callId)).toEqual(['call.ringing', 'call.no_answer']);
    expect(noAnswerEvent.at - ringing.at).toBeGreaterThanOrEqual(250);
    const [failedEvent] = await waitForEvents(failed.callId, 1);
    expect(failedEvent).toEqual({ type: 'call.failed', call_id: failed.callId, carrier_call_id: failed.carrierCallId, at: expect.any(Number) });
    await sleep(100);
    expect(typesFor(failed.callId)).toEqual(['call.failed']);
    for (const call of [busy, noAnswer, failed]) expect(await callRecord(call.callId)).toMatchObject({ state: 'ended' });

    // Reset: the destination answers again.
    expect((await control('DELETE', '/control/calls/outcomes')).status).toBe(200);
    const again = await place('+16175552001');
    await waitForEvents(again.callId, 2);
    expect(typesFor(again.callId)).toEqual(['call.ringing', 'call.answered']);
  });

  it('completes an answered call that Switchboard hangs up', async () => {
    const { callId, carrierCallId } = await place('+15125552010');
    await waitForEvents(callId, 2);
    await carrier.hangUp({ carrierCallId });
    const [, answered, completed] = await waitForEvents(callId, 3);
    expect(completed).toEqual({ type: 'call.completed', call_id: callId, carrier_call_id: carrierCallId, at: expect.any(Number), ended_by: 'switchboard', answered: true });
    expect(completed.at).toBeGreaterThanOrEqual(answered.at);
    // Hanging up an ended call succeeds and sends nothing more.
    await carrier.hangUp({ carrierCallId });
    await sleep(100);
    expect(typesFor(callId)).toEqual(['call.ringing', 'call.answered', 'call.completed']);
  });

  it('completes an answered call that the remote party hangs up', async () => {
    const { callId, carrierCallId } = await place('+15125552011');
    await waitForEvents(callId, 1);
    expect((await control('POST', `/control/calls/${callId}/hangup`)).status).toBe(409); // still ringing
    await waitForEvents(callId, 2);
    const hangup = await control('POST', `/control/calls/${callId}/hangup`);
    expect(hangup.status).toBe(200);
    expect(hangup.body).toMatchObject({ call_id: callId, state: 'ended' });
    const [, , completed] = await waitForEvents(callId, 3);
    expect(completed).toEqual({ type: 'call.completed', call_id: callId, carrier_call_id: carrierCallId, at: expect.any(Number), ended_by: 'caller', answered: true });
    expect((await control('POST', `/control/calls/${callId}/hangup`)).status).toBe(409); // already ended
    expect((await control('POST', '/control/calls/nope/hangup')).status).toBe(404);
    await carrier.hangUp({ carrierCallId }); // Switchboard's own hangup afterwards still succeeds
    await sleep(100);
    expect(typesFor(callId)).toHaveLength(3);
  });

  it('retries an event the receiver fails, keeping the order', async () => {
    failNext.set('call-retry', 2);
    await place('+15125552012', 'call-retry');
    await waitForEvents('call-retry', 2);
    expect(typesFor('call-retry')).toEqual(['call.ringing', 'call.answered']);
  });

  it('refuses bad requests and bad credentials', async () => {
    const wrong = new SimulatorCarrier(url, 'not-the-secret');
    await expect(wrong.placeCall({ callId: 'x', from, to: '+14155552345', eventsUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(wrong.hangUp({ carrierCallId: 'CA00' })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.placeCall({ callId: 'y', from, to: '555', eventsUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.placeCall({ callId: 'z', from, to: '+14155552345', eventsUrl: 'ftp://nope' })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.hangUp({ carrierCallId: 'CA-unknown' })).rejects.toBeInstanceOf(CarrierRejectedError);
    expect((await control('GET', '/control/calls')).body.calls).toEqual([]);
  });

  it('stops ringing calls when the server closes', async () => {
    const sim = await startCarrierSimulator({ host: '127.0.0.1', port: 0, secret });
    const other = new SimulatorCarrier(sim.url, secret);
    sim.state.calls.setOutcome('+14155552399', 'answer', 1_000);
    await other.placeCall({ callId: 'call-closing', from, to: '+14155552399', eventsUrl });
    await waitForEvents('call-closing', 1);
    await new Promise<void>((resolve) => sim.server.close(() => resolve()));
    await sleep(1_200);
    expect(typesFor('call-closing')).toEqual(['call.ringing']);
  });
});
