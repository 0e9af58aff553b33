import crypto from 'node:crypto';
import http from 'node:http';
import {
  CarrierAuthError,
  CarrierRejectedError,
  type CarrierCallEvent,
  type CarrierIncomingCallEvent,
  type CarrierPlaybackEvent,
  type CarrierUtteranceEvent,
} from '../../../src/adapters/carrier/port';
import { SimulatorCarrier } from '../../../src/adapters/carrier/simulatorCarrier';
import { verifyCarrierCallback } from '../../../src/adapters/carrier/callbacks/signature';
import { SimulatorState, startSimulator } from '../../../simulator/app';
import { CallSimulatorState, MACHINE_GREETING_MS } from '../../../simulator/carrier/calls';
import { eventually } from '../../support/eventually';
import { until } from '../../support/waits';
import { randomSimulatorCredentials, simulatorControl } from '../../../dev/simulator';

/** Events about a call that has a call_id (everything but `call.incoming`). */
type CallEvent = Exclude<CarrierCallEvent, CarrierIncomingCallEvent>;

describe('carrier simulator: outbound calls', () => {
  const credentials = randomSimulatorCredentials();
  const from = '+12025552001';
  let simulator: http.Server;
  let url: string;
  let carrier: SimulatorCarrier;

  // The events receiver: plays Switchboard's carrier events endpoint.
  let receiver: http.Server;
  let eventsUrl: string;
  /** The receiver's origin: the simulator's callback base. */
  let callbackBase: string;
  let events: CallEvent[] = [];
  let incoming: CarrierIncomingCallEvent[] = [];
  /** What the receiver answers to `call.incoming`. */
  let incomingStatus = 204;
  let badAuth = 0;
  /** Every signature received: a retry must carry a new one. */
  const signatures = new Set<string>();
  /** call_id -> how many more POSTs for it to answer 503 before accepting. */
  const failNext = new Map<string, number>();

  beforeAll(async () => {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
    simulator = sim.server;
    url = sim.url;
    carrier = new SimulatorCarrier(url, credentials.carrierApiKey);

    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks);
        const verdict = verifyCarrierCallback({ secret: credentials.webhookSecret, headers: req.headers, rawBody });
        // Signed, never carrying a secret, and no signature twice (a retry is signed afresh).
        if (
          !verdict.valid ||
          req.headers.authorization !== undefined ||
          signatures.has(verdict.signature) ||
          req.headers['content-type'] !== 'application/json'
        ) {
          badAuth += 1;
          res.writeHead(401).end();
          return;
        }
        signatures.add(verdict.signature);
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CarrierCallEvent;
        if (parsed.type === 'call.incoming') {
          incoming.push(parsed);
          res.writeHead(incomingStatus).end();
          return;
        }
        const event = parsed;
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
    callbackBase = `http://127.0.0.1:${address.port}`;
    eventsUrl = `${callbackBase}/carrier/events`;
    sim.callbacks.setBaseUrl(callbackBase);
  });

  afterEach(async () => {
    expect((await control('POST', '/control/calls/reset')).status).toBe(200);
    expect(badAuth).toBe(0);
    events = [];
    incoming = [];
    incomingStatus = 204;
    failNext.clear();
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => simulator.close(() => resolve()));
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  async function control(method: string, path: string, body?: object) {
    const response = await simulatorControl(url, credentials.controlToken)(method, path, body);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, body: (await response.json()) as any };
  }

  const fetchRecording = (recordingUrl: string) =>
    fetch(recordingUrl, { headers: { authorization: `Bearer ${credentials.controlToken}` } });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const eventsFor = (callId: string) => events.filter((event) => event.call_id === callId);
  const typesFor = (callId: string) => eventsFor(callId).map((event) => event.type);
  /** The `call.completed` event for a call, field for field. */
  const completedEvent = (
    callId: string,
    carrierCallId: string,
    endedBy: 'switchboard' | 'caller',
    answered: boolean,
    more: { recording_url?: string } = {},
  ) => ({
    type: 'call.completed',
    call_id: callId,
    carrier_call_id: carrierCallId,
    at: expect.any(Number),
    ended_by: endedBy,
    answered,
    ...more,
  });

  async function waitForEvents(callId: string, count: number, timeoutMs = 3_000): Promise<CallEvent[]> {
    await until(() => eventsFor(callId).length >= count, `${count} events for ${callId}`, {
      timeoutMs,
      detail: () => `got ${JSON.stringify(eventsFor(callId))}`,
    });
    return eventsFor(callId);
  }

  async function callRecord(callId: string) {
    const { body } = await control('GET', '/control/calls');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (body.calls as any[]).find((call) => call.call_id === callId);
  }

  const place = (to: string, callId: string = crypto.randomUUID()) =>
    carrier.placeCall({ callId, from, to, eventsUrl }).then((result) => ({ ...result, callId }));

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
      direction: 'outbound',
      from,
      to: '+14155552345',
      state: 'answered',
      outcome: 'answer',
      requests: 1,
      created_at: expect.any(String),
      answered_at: expect.any(String),
      ended_at: null,
      machine_detection: false,
      answered_by: null,
      machine_kind: null,
      greeting_end_detection: false,
      greeting_ended_at: null,
      transfer: null,
    });
  });

  it('machine detection: the answer says who answered (the destination’s configured answered_by, else human)', async () => {
    expect(
      (await control('POST', '/control/calls/outcomes', { to: '+16175552011', outcome: 'answer', ring_ms: 0, answered_by: 'machine' }))
        .body,
    ).toEqual({ to: '+16175552011', outcome: 'answer', ring_ms: 0, answered_by: 'machine', hang_up_after_ms: null });
    expect((await control('POST', '/control/calls/outcomes', { to: '+16175552012', outcome: 'answer', answered_by: 'robot' })).status).toBe(
      400,
    );
    const detected = crypto.randomUUID();
    await carrier.placeCall({ callId: detected, from, to: '+16175552011', eventsUrl, machineDetection: true });
    const [, answered] = await waitForEvents(detected, 2);
    expect(answered).toMatchObject({ type: 'call.answered', answered_by: 'machine' });
    const human = crypto.randomUUID();
    await carrier.placeCall({ callId: human, from, to: '+14155552360', eventsUrl, machineDetection: true });
    expect((await waitForEvents(human, 2))[1]).toMatchObject({ type: 'call.answered', answered_by: 'human' });
    expect(await callRecord(human)).toMatchObject({ machine_detection: true, answered_by: 'human' });
  });

  it('end-of-greeting detection: the answer, then who answered, then a machine’s greeting end (its beep) 1.5 s later', async () => {
    await control('POST', '/control/calls/outcomes', { to: '+16175552013', outcome: 'answer', ring_ms: 0, answered_by: 'machine' });
    const machine = crypto.randomUUID();
    await carrier.placeCall({ callId: machine, from, to: '+16175552013', eventsUrl, machineDetection: true, detectGreetingEnd: true });
    const [, answered, detection, greetingEnded] = await waitForEvents(machine, 4);
    expect(answered).toEqual({ type: 'call.answered', call_id: machine, carrier_call_id: expect.any(String), at: expect.any(Number) });
    expect(detection).toMatchObject({ type: 'call.machine_detection', answered_by: 'machine' });
    expect(greetingEnded).toMatchObject({ type: 'call.greeting_ended' });
    // Timers run on the monotonic clock: one may fire a millisecond or two before the wall clock reaches its time.
    expect(greetingEnded.at - answered.at).toBeGreaterThanOrEqual(MACHINE_GREETING_MS - 5);
    const record = await callRecord(machine);
    expect(record).toMatchObject({ greeting_end_detection: true, answered_by: 'machine' });
    expect(Date.parse(record.greeting_ended_at!)).toBeGreaterThanOrEqual(answered.at + MACHINE_GREETING_MS - 5);
    expect(Date.parse(record.greeting_ended_at!)).toBeLessThanOrEqual(greetingEnded.at);

    // A person: who answered follows the answer, and there is no greeting to end.
    const human = crypto.randomUUID();
    await carrier.placeCall({ callId: human, from, to: '+14155552363', eventsUrl, machineDetection: true, detectGreetingEnd: true });
    expect((await waitForEvents(human, 3)).slice(1)).toMatchObject([
      { type: 'call.answered' },
      { type: 'call.machine_detection', answered_by: 'human' },
    ]);
    expect(await callRecord(human)).toMatchObject({ greeting_end_detection: true, greeting_ended_at: null });
    // Asked without machine detection, it is refused.
    const refused = await fetch(`${url}/carrier/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.carrierApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ call_id: crypto.randomUUID(), from, to: '+14155552364', events_url: eventsUrl, greeting_end_detection: true }),
    });
    expect(refused.status).toBe(400);
  });

  it('a fax answers: a machine of kind fax, with the answer or after it, and no greeting to end', async () => {
    expect(
      (await control('POST', '/control/calls/outcomes', { to: '+16175552014', outcome: 'answer', ring_ms: 0, answered_by: 'fax' })).body,
    ).toMatchObject({ answered_by: 'fax' });
    await control('POST', '/control/calls/outcomes', { to: '+16175552015', outcome: 'answer', ring_ms: 0, answered_by: 'machine' });
    const detected = crypto.randomUUID();
    await carrier.placeCall({ callId: detected, from, to: '+16175552014', eventsUrl, machineDetection: true });
    expect((await waitForEvents(detected, 2))[1]).toMatchObject({ type: 'call.answered', answered_by: 'machine', machine_kind: 'fax' });
    expect(await callRecord(detected)).toMatchObject({ answered_by: 'machine', machine_kind: 'fax' });

    const fax = crypto.randomUUID();
    const machine = crypto.randomUUID();
    await carrier.placeCall({ callId: fax, from, to: '+16175552014', eventsUrl, machineDetection: true, detectGreetingEnd: true });
    await carrier.placeCall({ callId: machine, from, to: '+16175552015', eventsUrl, machineDetection: true, detectGreetingEnd: true });
    // The machine answered after the fax and its greeting has ended: the fax's never will.
    expect((await waitForEvents(machine, 4))[3]).toMatchObject({ type: 'call.greeting_ended' });
    expect(eventsFor(fax).slice(1)).toEqual([
      expect.objectContaining({ type: 'call.answered' }),
      expect.objectContaining({ type: 'call.machine_detection', answered_by: 'machine', machine_kind: 'fax' }),
    ]);
    expect(await callRecord(fax)).toMatchObject({ answered_by: 'machine', machine_kind: 'fax', greeting_ended_at: null });
    expect(await callRecord(machine)).toMatchObject({ answered_by: 'machine', machine_kind: null });
  });

  it('transfer: the destination answers (connected: no speech, no caller words) or not (back as before); idempotent on transfer_id', async () => {
    const { callId, carrierCallId } = await place('+14155552361');
    await waitForEvents(callId, 2);
    await control('POST', '/control/calls/outcomes', { to: '+16175552021', outcome: 'busy', ring_ms: 0 });
    const busy = { carrierCallId, callId, transferId: 't-busy', to: '+16175552021', from };
    await carrier.transferCall(busy);
    expect((await waitForEvents(callId, 3))[2]).toMatchObject({ type: 'call.transfer', answered: false });
    await carrier.speak({ carrierCallId, speakId: 'after-busy', text: 'Nobody there.' });

    const transfer = { carrierCallId, callId, transferId: 't-1', to: '+14155552362', from };
    await carrier.transferCall(transfer);
    await carrier.transferCall(transfer);
    const outcome = (await waitForEvents(callId, 4)).find((e) => e.type === 'call.transfer' && e.answered);
    expect(outcome).toMatchObject({ call_id: callId, answered: true });
    expect((await callRecord(callId)).transfer).toEqual({ transfer_id: 't-1', to: '+14155552362', from, state: 'connected' });
    await expect(carrier.speak({ carrierCallId, speakId: 'too-late', text: 'Hello?' })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.transferCall({ ...transfer, transferId: 't-2' })).rejects.toBeInstanceOf(CarrierRejectedError);
    expect((await control('POST', `/control/calls/${callId}/say`, { text: 'Hi, front desk?' })).status).toBe(409);
    expect((await control('POST', `/control/calls/${callId}/hangup`)).status).toBe(200);
    expect(typesFor(callId).filter((type) => type === 'call.transfer')).toHaveLength(2);
  });

  it('is idempotent on call_id', async () => {
    const first = await place('+14155552346', 'call-idem');
    const second = await place('+14155552346', 'call-idem');
    expect(second.carrierCallId).toBe(first.carrierCallId);
    await waitForEvents('call-idem', 2);
    await sleep(400); // waits out a second ring or answer for the repeated placement
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
    await sleep(500); // waits out an answer (the default ring_ms is shorter) that must never come
    expect(typesFor(callId)).toEqual(['call.ringing']);
    expect(await callRecord(callId)).toMatchObject({ state: 'ringing', outcome: 'never_connect' });
    await carrier.hangUp({ carrierCallId });
    const [, completed] = await waitForEvents(callId, 2);
    expect(completed).toEqual(completedEvent(callId, carrierCallId, 'switchboard', false));
    expect(await callRecord(callId)).toMatchObject({ state: 'ended', answered_at: null, ended_at: expect.any(String) });
  });

  it('plays configured busy, no_answer and fail outcomes', async () => {
    expect((await control('POST', '/control/calls/outcomes', { to: '+16175552001', outcome: 'busy', ring_ms: 0 })).body).toEqual({
      to: '+16175552001',
      outcome: 'busy',
      ring_ms: 0,
      answered_by: null,
      hang_up_after_ms: null,
    });
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
    expect(failedEvent).toEqual({
      type: 'call.failed',
      call_id: failed.callId,
      carrier_call_id: failed.carrierCallId,
      at: expect.any(Number),
    });
    await sleep(100); // waits out a further event after call.failed
    expect(typesFor(failed.callId)).toEqual(['call.failed']);
    for (const call of [busy, noAnswer, failed]) expect(await callRecord(call.callId)).toMatchObject({ state: 'ended' });

    // Reset: the destination answers again.
    expect((await control('DELETE', '/control/calls/outcomes')).status).toBe(200);
    const again = await place('+16175552001');
    await waitForEvents(again.callId, 2);
    expect(typesFor(again.callId)).toEqual(['call.ringing', 'call.answered']);
  });

  it('plays a destination’s script: busy once, then answering and hanging up by itself; a repeated placement does not advance it', async () => {
    const to = '+16175552031';
    const script = { to, outcome: 'busy', ring_ms: 0, then: { outcome: 'answer', ring_ms: 0, hang_up_after_ms: 50 } };
    expect((await control('POST', '/control/calls/outcomes', script)).body).toEqual({
      to,
      outcome: 'busy',
      ring_ms: 0,
      answered_by: null,
      hang_up_after_ms: null,
      then: { outcome: 'answer', ring_ms: 0, answered_by: null, hang_up_after_ms: 50 },
    });
    expect((await control('POST', '/control/calls/outcomes', { to, outcome: 'busy', then: { outcome: 'maybe' } })).body).toMatchObject({
      error: expect.stringContaining('then: outcome must be'),
    });
    expect((await control('POST', '/control/calls/outcomes', { to, outcome: 'answer', hang_up_after_ms: -1 })).status).toBe(400);

    const first = await place(to);
    // The carrier's retry of the same call (same call id) is the same call: the script stays where it was.
    await place(to, first.callId);
    await waitForEvents(first.callId, 2);
    expect(typesFor(first.callId)).toEqual(['call.ringing', 'call.busy']);
    const second = await place(to);
    const [, answered, completed] = await waitForEvents(second.callId, 3);
    expect(typesFor(second.callId)).toEqual(['call.ringing', 'call.answered', 'call.completed']);
    expect(completed).toEqual(completedEvent(second.callId, second.carrierCallId, 'caller', true));
    expect(completed.at - answered.at).toBeGreaterThanOrEqual(40);
    // The last setting stays: every later call answers and hangs up alike.
    const third = await place(to);
    await waitForEvents(third.callId, 3);
    expect(typesFor(third.callId)).toEqual(['call.ringing', 'call.answered', 'call.completed']);
  });

  it('completes an answered call that Switchboard hangs up', async () => {
    const { callId, carrierCallId } = await place('+15125552010');
    await waitForEvents(callId, 2);
    await carrier.hangUp({ carrierCallId });
    const [, answered, completed] = await waitForEvents(callId, 3);
    expect(completed).toEqual(completedEvent(callId, carrierCallId, 'switchboard', true));
    expect(completed.at).toBeGreaterThanOrEqual(answered.at);
    // Hanging up an ended call succeeds and sends nothing more.
    await carrier.hangUp({ carrierCallId });
    await sleep(100); // waits out a second call.completed for the repeated hang-up
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
    expect(completed).toEqual(completedEvent(callId, carrierCallId, 'caller', true));
    expect((await control('POST', `/control/calls/${callId}/hangup`)).status).toBe(409); // already ended
    expect((await control('POST', '/control/calls/nope/hangup')).status).toBe(404);
    await carrier.hangUp({ carrierCallId }); // Switchboard's own hangup afterwards still succeeds
    await sleep(100); // waits out an event for that late hang-up
    expect(typesFor(callId)).toHaveLength(3);
  });

  describe('recordings', () => {
    it('records a call placed with record: true and serves the recording as a WAV', async () => {
      const callId = crypto.randomUUID();
      const { carrierCallId } = await carrier.placeCall({ callId, from, to: '+15125552020', eventsUrl, record: true });
      const [, answered] = await waitForEvents(callId, 2);
      const recordingUrl = `${url}/recordings/${carrierCallId}.wav`;
      expect((await fetchRecording(recordingUrl)).status).toBe(404); // still live
      await sleep(300); // pacing: the call lasts long enough to record some audio
      await carrier.hangUp({ carrierCallId });
      const [, , completed] = await waitForEvents(callId, 3);
      expect(completed).toEqual(completedEvent(callId, carrierCallId, 'switchboard', true, { recording_url: recordingUrl }));

      expect((await fetch(recordingUrl)).status).toBe(401); // the media store wants the control token
      const response = await fetchRecording(recordingUrl);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('audio/wav');
      const wav = Buffer.from(await response.arrayBuffer());
      expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
      expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
      expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
      expect(wav.readUInt16LE(20)).toBe(1); // PCM
      expect(wav.readUInt16LE(22)).toBe(1); // mono
      expect(wav.readUInt32LE(24)).toBe(8000);
      expect(wav.readUInt16LE(34)).toBe(16);
      expect(wav.toString('ascii', 36, 40)).toBe('data');
      const dataBytes = wav.readUInt32LE(40);
      expect(dataBytes).toBe(wav.length - 44);
      const durationSeconds = (completed.at - answered.at) / 1000;
      expect(durationSeconds).toBeGreaterThanOrEqual(0.3);
      expect(Math.abs(dataBytes - durationSeconds * 16_000)).toBeLessThanOrEqual(1_600);
      // A quiet tone, not silence.
      let peak = 0;
      for (let offset = 44; offset < wav.length; offset += 2) peak = Math.max(peak, Math.abs(wav.readInt16LE(offset)));
      expect(peak).toBeGreaterThan(900);
      expect(peak).toBeLessThanOrEqual(1000);
    });

    it('deletes a recording for the carrier key: opening it is refused afterwards, a second delete succeeds', async () => {
      const callId = crypto.randomUUID();
      const { carrierCallId } = await carrier.placeCall({ callId, from, to: '+15125552022', eventsUrl, record: true });
      await waitForEvents(callId, 2);
      const recordingUrl = `${url}/recordings/${carrierCallId}.wav`;
      // Not stored while the call goes on: refused, and nothing is deleted.
      await expect(carrier.deleteRecording({ callId, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      await carrier.hangUp({ carrierCallId });
      const [, , completed] = await waitForEvents(callId, 3);
      expect(completed).toMatchObject({ recording_url: recordingUrl });

      const opened = await carrier.openRecording({ callId, recordingUrl });
      for await (const chunk of opened.body) void chunk;
      // Wrong credentials: the typed auth failure, and the recording stays.
      const stranger = new SimulatorCarrier(url, 'not-the-carrier-key');
      const refused = await stranger.deleteRecording({ callId, recordingUrl }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(CarrierAuthError);
      expect(refused).toMatchObject({ refusal: { provider: 'simulator', code: '401' } });
      expect((await fetchRecording(recordingUrl)).status).toBe(200);

      await carrier.deleteRecording({ callId, recordingUrl });
      expect((await fetchRecording(recordingUrl)).status).toBe(404);
      await expect(carrier.openRecording({ callId, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      // Gone already (the simulator answers 404): done, as every later retry of the delete.
      await carrier.deleteRecording({ callId, recordingUrl });
      await carrier.deleteRecording({ callId, recordingUrl: `${url}/recordings/CA-unknown.wav` });
      const answered = await fetch(recordingUrl, { method: 'DELETE', headers: { authorization: `Bearer ${credentials.carrierApiKey}` } });
      expect(answered.status).toBe(404);
    });

    it('deletes nothing off the simulator or outside its media store: refused before any request', async () => {
      const callId = crypto.randomUUID();
      const { carrierCallId } = await carrier.placeCall({ callId, from, to: '+15125552023', eventsUrl, record: true });
      await waitForEvents(callId, 2);
      await carrier.hangUp({ carrierCallId });
      await waitForEvents(callId, 3);
      const own = `${url}/recordings/${carrierCallId}.wav`;
      for (const recordingUrl of [
        `http://169.254.169.254/recordings/${carrierCallId}.wav`,
        own.replace('://', '://user:pass@'),
        `${url}/carrier/v1/numbers/%2B15125552023`,
        `${url}/recordings/${carrierCallId}.mp3`,
        'not a url',
      ])
        await expect(carrier.deleteRecording({ callId, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      expect((await fetchRecording(own)).status).toBe(200);
    });

    it('sends no recording_url for an unrecorded call, and 404s its recording and unknown ones', async () => {
      const { callId, carrierCallId } = await place('+15125552021');
      await waitForEvents(callId, 2);
      await control('POST', `/control/calls/${callId}/hangup`);
      const [, , completed] = await waitForEvents(callId, 3);
      expect(completed.type).toBe('call.completed');
      expect(completed).not.toHaveProperty('recording_url');
      expect((await fetchRecording(`${url}/recordings/${carrierCallId}.wav`)).status).toBe(404);
      expect((await fetchRecording(`${url}/recordings/CA-unknown.wav`)).status).toBe(404);
    });

    it('sends no recording_url for a recorded call hung up before it was answered', async () => {
      const callId = crypto.randomUUID();
      const { carrierCallId } = await carrier.placeCall({ callId, from, to: '+15125550150', eventsUrl, record: true }); // never connects
      await waitForEvents(callId, 1);
      await carrier.hangUp({ carrierCallId });
      const [, completed] = await waitForEvents(callId, 2);
      expect(completed).toEqual(completedEvent(callId, carrierCallId, 'switchboard', false));
      expect((await fetchRecording(`${url}/recordings/${carrierCallId}.wav`)).status).toBe(404);
    });
  });

  it('retries an event the receiver fails, keeping the order', async () => {
    failNext.set('call-retry', 2);
    await place('+15125552012', 'call-retry');
    await waitForEvents('call-retry', 2);
    expect(typesFor('call-retry')).toEqual(['call.ringing', 'call.answered']);
  });

  it('refuses bad requests and bad credentials', async () => {
    const wrong = new SimulatorCarrier(url, credentials.controlToken); // another credential is not the carrier key
    await expect(wrong.placeCall({ callId: 'x', from, to: '+14155552345', eventsUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(wrong.hangUp({ carrierCallId: 'CA00' })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.placeCall({ callId: 'y', from, to: '555', eventsUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
    await expect(carrier.placeCall({ callId: 'z', from, to: '+14155552345', eventsUrl: 'ftp://nope' })).rejects.toBeInstanceOf(
      CarrierRejectedError,
    );
    await expect(carrier.hangUp({ carrierCallId: 'CA-unknown' })).rejects.toBeInstanceOf(CarrierRejectedError);
    expect((await control('GET', '/control/calls')).body.calls).toEqual([]);
  });

  it('stops ringing calls when the server closes', async () => {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials, callbackBaseUrl: callbackBase });
    const other = new SimulatorCarrier(sim.url, credentials.carrierApiKey);
    sim.state.calls.setOutcome('+14155552399', 'answer', 1_000);
    await other.placeCall({ callId: 'call-closing', from, to: '+14155552399', eventsUrl });
    await waitForEvents('call-closing', 1);
    await new Promise<void>((resolve) => sim.server.close(() => resolve()));
    await sleep(1_200); // waits out the answer the 1 s ring would have sent had the server not closed
    expect(typesFor('call-closing')).toEqual(['call.ringing']);
  });

  describe('inbound calls', () => {
    const caller = '+19175552468';
    const ourNumber = '+12125553001';

    async function ring(to = ourNumber): Promise<string> {
      const { status, body } = await control('POST', '/control/calls/inbound', { from: caller, to, events_url: eventsUrl });
      expect(status).toBe(201);
      expect(body.carrier_call_id).toMatch(/^CA[0-9a-f]{32}$/);
      return body.carrier_call_id as string;
    }

    async function waitForIncoming(carrierCallId: string, timeoutMs = 3_000): Promise<CarrierIncomingCallEvent> {
      const find = () => incoming.find((event) => event.carrier_call_id === carrierCallId);
      await until(() => find() !== undefined, `call.incoming for ${carrierCallId}`, { timeoutMs });
      return find()!;
    }

    async function byCarrierId(carrierCallId: string) {
      const { body } = await control('GET', '/control/calls');
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (body.calls as any[]).find((call) => call.carrier_call_id === carrierCallId);
    }

    it('announces the call, binds the call_id on answer, and completes when the caller hangs up', async () => {
      const before = Date.now();
      const carrierCallId = await ring();
      const announced = await waitForIncoming(carrierCallId);
      expect(announced).toEqual({
        type: 'call.incoming',
        carrier_call_id: carrierCallId,
        from: caller,
        to: ourNumber,
        at: expect.any(Number),
      });
      expect(Number.isInteger(announced.at) && announced.at >= before).toBe(true);
      expect(await byCarrierId(carrierCallId)).toMatchObject({
        call_id: null,
        direction: 'inbound',
        from: caller,
        to: ourNumber,
        state: 'ringing',
        outcome: null,
      });

      await carrier.answerCall({ carrierCallId, callId: 'in-1' });
      const [answered] = await waitForEvents('in-1', 1);
      expect(answered).toEqual({ type: 'call.answered', call_id: 'in-1', carrier_call_id: carrierCallId, at: expect.any(Number) });
      expect(await callRecord('in-1')).toMatchObject({
        carrier_call_id: carrierCallId,
        direction: 'inbound',
        state: 'answered',
        outcome: 'answer',
        answered_at: expect.any(String),
      });

      const hangup = await control('POST', '/control/calls/in-1/hangup');
      expect(hangup.status).toBe(200);
      const [, completed] = await waitForEvents('in-1', 2);
      expect(completed).toEqual(completedEvent('in-1', carrierCallId, 'caller', true));
      expect(await callRecord('in-1')).toMatchObject({ state: 'ended', ended_at: expect.any(String) });
      expect(incoming).toHaveLength(1);
    });

    it('records an inbound call answered with record: true', async () => {
      const carrierCallId = await ring();
      await waitForIncoming(carrierCallId);
      await carrier.answerCall({ carrierCallId, callId: 'in-rec', record: true });
      await waitForEvents('in-rec', 1);
      await control('POST', '/control/calls/in-rec/hangup');
      const [, completed] = await waitForEvents('in-rec', 2);
      expect(completed).toMatchObject({ type: 'call.completed', answered: true, recording_url: `${url}/recordings/${carrierCallId}.wav` });
      const response = await fetchRecording(`${url}/recordings/${carrierCallId}.wav`);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).toString('ascii', 8, 12)).toBe('WAVE');
    });

    it('completes an answered inbound call that Switchboard hangs up', async () => {
      const carrierCallId = await ring();
      await waitForIncoming(carrierCallId);
      await carrier.answerCall({ carrierCallId, callId: 'in-2' });
      await waitForEvents('in-2', 1);
      await carrier.hangUp({ carrierCallId });
      const [, completed] = await waitForEvents('in-2', 2);
      expect(completed).toEqual(completedEvent('in-2', carrierCallId, 'switchboard', true));
      await sleep(100); // waits out a second call.completed
      expect(typesFor('in-2')).toEqual(['call.answered', 'call.completed']);
    });

    it('ends the call rejected when the receiver answers call.incoming with a non-2xx', async () => {
      incomingStatus = 404;
      const carrierCallId = await ring('+12125553999');
      await waitForIncoming(carrierCallId);
      // The simulator reads the 404 after the receiver has sent it.
      await eventually(async () => ((await byCarrierId(carrierCallId))?.state === 'ended' ? true : undefined), 5_000);
      expect(await byCarrierId(carrierCallId)).toMatchObject({
        call_id: null,
        direction: 'inbound',
        state: 'ended',
        outcome: 'rejected',
        ended_at: expect.any(String),
      });
      expect(incoming).toHaveLength(1); // not retried
      expect(events).toEqual([]);
      await expect(carrier.answerCall({ carrierCallId, callId: 'too-late' })).rejects.toBeInstanceOf(CarrierRejectedError);
    });

    it('ends a rejected call with no events', async () => {
      const carrierCallId = await ring();
      await waitForIncoming(carrierCallId);
      await carrier.rejectCall({ carrierCallId });
      expect(await byCarrierId(carrierCallId)).toMatchObject({ state: 'ended', outcome: 'rejected' });
      await carrier.rejectCall({ carrierCallId }); // rejecting again succeeds
      await expect(carrier.answerCall({ carrierCallId, callId: 'in-3' })).rejects.toBeInstanceOf(CarrierRejectedError);
      await expect(carrier.rejectCall({ carrierCallId: 'CA-unknown' })).rejects.toBeInstanceOf(CarrierRejectedError);
      await sleep(100); // waits out any event for a rejected call
      expect(events).toEqual([]);
    });

    it('answers idempotently for the same call_id and refuses a different one', async () => {
      const carrierCallId = await ring();
      await waitForIncoming(carrierCallId);
      await carrier.answerCall({ carrierCallId, callId: 'in-4' });
      await carrier.answerCall({ carrierCallId, callId: 'in-4' });
      await expect(carrier.answerCall({ carrierCallId, callId: 'in-other' })).rejects.toBeInstanceOf(CarrierRejectedError);
      await expect(carrier.rejectCall({ carrierCallId })).rejects.toBeInstanceOf(CarrierRejectedError); // answered
      await waitForEvents('in-4', 1);
      await sleep(100); // waits out a second call.answered for the repeated answer
      expect(typesFor('in-4')).toEqual(['call.answered']);
      expect(await callRecord('in-4')).toMatchObject({ state: 'answered', requests: 2 });
      expect(await callRecord('in-other')).toBeUndefined();
      // An outbound call cannot be answered, nor can a call_id already in use be bound again.
      const outbound = await place('+14155552360', 'out-1');
      await expect(carrier.answerCall({ carrierCallId: outbound.carrierCallId, callId: 'out-1' })).rejects.toBeInstanceOf(
        CarrierRejectedError,
      );
      const second = await ring();
      await waitForIncoming(second);
      await expect(carrier.answerCall({ carrierCallId: second, callId: 'out-1' })).rejects.toBeInstanceOf(CarrierRejectedError);
      await expect(place('+14155552361', 'in-4')).rejects.toBeInstanceOf(CarrierRejectedError);
    });

    it('lists inbound and outbound calls with their direction and validates the control request', async () => {
      const outbound = await place('+14155552362');
      const inbound = await ring();
      const { body } = await control('GET', '/control/calls');
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      expect(body.calls.map((call: any) => [call.carrier_call_id, call.direction])).toEqual([
        [outbound.carrierCallId, 'outbound'],
        [inbound, 'inbound'],
      ]);
      expect((await control('POST', '/control/calls/inbound', { from: 'x', to: ourNumber, events_url: eventsUrl })).status).toBe(400);
      expect((await control('POST', '/control/calls/inbound', { from: caller, to: ourNumber, events_url: 'ftp://x' })).status).toBe(400);
    });

    it('ends an inbound call nobody answers as unanswered, with no event', async () => {
      const state = new SimulatorState({ calls: new CallSimulatorState({ inboundRingTimeoutMs: 300 }) });
      const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials, callbackBaseUrl: callbackBase, state });
      try {
        const response = await simulatorControl(sim.url, credentials.controlToken)('POST', '/control/calls/inbound', {
          from: caller,
          to: ourNumber,
          events_url: eventsUrl,
        });
        expect(response.status).toBe(201);
        const { carrier_call_id: carrierCallId } = (await response.json()) as { carrier_call_id: string };
        await waitForIncoming(carrierCallId);
        expect(state.calls.list()[0]).toMatchObject({ state: 'ringing' });
        await until(() => state.calls.list()[0].state === 'ended', 'the 300 ms inbound ring to run out');
        await sleep(100); // waits out an event for the unanswered call
        expect(state.calls.list()[0]).toMatchObject({ carrier_call_id: carrierCallId, state: 'ended', outcome: 'unanswered' });
        await expect(
          new SimulatorCarrier(sim.url, credentials.carrierApiKey).answerCall({ carrierCallId, callId: 'in-late' }),
        ).rejects.toBeInstanceOf(CarrierRejectedError);
        expect(events).toEqual([]);
      } finally {
        await new Promise<void>((resolve) => sim.server.close(() => resolve()));
      }
    });
  });

  describe('speech', () => {
    /** 30 words: 750 ms at 40 words per second. */
    const LONG = Array.from({ length: 30 }, (_, i) => `w${i + 1}`).join(' ');

    beforeEach(async () => {
      expect((await control('POST', '/control/speech', { words_per_second: 40 })).body).toEqual({ words_per_second: 40 });
    });

    async function answeredCall(to = '+14155552370') {
      const call = await place(to);
      await waitForEvents(call.callId, 2);
      return call;
    }

    const playbacks = (callId: string, speakId?: string) =>
      eventsFor(callId).filter(
        (event): event is CarrierPlaybackEvent => event.type === 'call.playback' && (speakId === undefined || event.speak_id === speakId),
      );
    const utterances = (callId: string) =>
      eventsFor(callId).filter((event): event is CarrierUtteranceEvent => event.type === 'call.utterance');

    const waitUntil = (check: () => boolean, what: string, timeoutMs = 3_000) =>
      until(check, what, { timeoutMs, detail: () => `events: ${JSON.stringify(events)}` });
    const waitForDone = (callId: string, speakId: string) =>
      waitUntil(() => playbacks(callId, speakId).some((event) => event.done), `${speakId} done`);
    const isPrefix = (played: string, text: string) => played === '' || text === played || text.startsWith(`${played} `);

    it('reports what the caller says as call.utterance, with the language (default en)', async () => {
      const { callId, carrierCallId } = await answeredCall();
      const said = await control('POST', `/control/calls/${callId}/say`, { text: 'Olá, quero marcar uma consulta', language: 'pt-BR' });
      expect(said.status).toBe(202);
      expect((await control('POST', `/control/calls/${callId}/say`, { text: 'Hello there' })).status).toBe(202);
      const [, , first, second] = await waitForEvents(callId, 4);
      expect(first).toEqual({
        type: 'call.utterance',
        call_id: callId,
        carrier_call_id: carrierCallId,
        text: 'Olá, quero marcar uma consulta',
        language: 'pt-BR',
        at: expect.any(Number),
      });
      expect(second).toEqual({
        type: 'call.utterance',
        call_id: callId,
        carrier_call_id: carrierCallId,
        text: 'Hello there',
        language: 'en',
        at: expect.any(Number),
      });
      expect((await control('POST', `/control/calls/${callId}/say`, { text: '  ' })).status).toBe(400);
      expect((await control('POST', `/control/calls/${callId}/say`, { text: 'hi', language: 'not a tag!' })).status).toBe(400);
    });

    it('refuses caller speech on a call that is not answered', async () => {
      const ringing = await place('+13125550150'); // reserved range: rings forever
      await waitForEvents(ringing.callId, 1);
      expect((await control('POST', `/control/calls/${ringing.callId}/say`, { text: 'hello?' })).status).toBe(409);
      expect((await control('POST', `/control/calls/${ringing.callId}/barge-in`, { text: 'hello?' })).status).toBe(409);
      await expect(carrier.speak({ carrierCallId: ringing.carrierCallId, speakId: 's-ringing', text: 'hi' })).rejects.toBeInstanceOf(
        CarrierRejectedError,
      );

      const ended = await answeredCall();
      await carrier.hangUp({ carrierCallId: ended.carrierCallId });
      await waitForEvents(ended.callId, 3);
      expect((await control('POST', `/control/calls/${ended.callId}/say`, { text: 'hello?' })).status).toBe(409);
      await expect(carrier.speak({ carrierCallId: ended.carrierCallId, speakId: 's-ended', text: 'hi' })).rejects.toBeInstanceOf(
        CarrierRejectedError,
      );
      expect((await control('POST', '/control/calls/nope/say', { text: 'hello?' })).status).toBe(404);
      await sleep(100); // waits out an utterance on a call that is not answered
      expect(utterances(ringing.callId)).toEqual([]);
      expect(utterances(ended.callId)).toEqual([]);
    });

    it('speaks word by word: playback progress with growing prefixes, then done with the full text', async () => {
      const { callId, carrierCallId } = await answeredCall();
      const asked = Date.now();
      const response = await fetch(`${url}/carrier/v1/calls/${carrierCallId}/speak`, {
        method: 'POST',
        headers: { authorization: `Bearer ${credentials.carrierApiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: LONG, speak_id: 's-1' }),
      });
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ speak_id: 's-1' });
      await waitForDone(callId, 's-1');
      const all = playbacks(callId, 's-1');
      const progress = all.slice(0, -1);
      const last = all[all.length - 1];
      expect(progress.length).toBeGreaterThanOrEqual(2);
      let words = 0;
      for (const event of progress) {
        expect(event).toEqual({
          type: 'call.playback',
          call_id: callId,
          carrier_call_id: carrierCallId,
          speak_id: 's-1',
          played_text: expect.any(String),
          done: false,
          at: expect.any(Number),
        });
        expect(isPrefix(event.played_text, LONG)).toBe(true);
        const count = event.played_text.split(' ').length;
        expect(count).toBeGreaterThan(words);
        expect(count).toBeLessThan(30);
        words = count;
      }
      // Reports keep to the speech's 250 ms clock, not one per word: 750 ms of speech has boundaries at 250 and 500 ms
      // (a late timer skips to the next boundary, so a loaded machine sees no more than that, never a burst).
      expect(progress.length).toBeLessThanOrEqual(2);
      expect(last).toEqual({
        type: 'call.playback',
        call_id: callId,
        carrier_call_id: carrierCallId,
        speak_id: 's-1',
        played_text: LONG,
        done: true,
        at: expect.any(Number),
      });
      expect(last.at - asked).toBeGreaterThanOrEqual(750); // 30 words at 40 a second: never done early
      expect((await control('GET', `/control/calls/${callId}/speech`)).body).toEqual({
        speech: [{ speak_id: 's-1', text: LONG, played_text: LONG, state: 'done', voice: null, started_at: expect.any(String) }],
      });
      // A retried speak (same speak_id and text) is accepted and speaks nothing twice; other text is refused.
      await carrier.speak({ carrierCallId, speakId: 's-1', text: LONG });
      await expect(carrier.speak({ carrierCallId, speakId: 's-1', text: 'something else' })).rejects.toBeInstanceOf(CarrierRejectedError);
      await sleep(300); // waits out playback events for the retried speak
      expect(playbacks(callId, 's-1')).toHaveLength(all.length);
    });

    it('queues a second speak until the first is done', async () => {
      const { callId, carrierCallId } = await answeredCall();
      await carrier.speak({ carrierCallId, speakId: 's-a', text: 'one two three four five six seven eight nine ten eleven twelve' });
      await carrier.speak({ carrierCallId, speakId: 's-b', text: 'thirteen fourteen' });
      const listed = (await control('GET', `/control/calls/${callId}/speech`)).body.speech;
      expect(listed.map((item: { speak_id: string; state: string }) => [item.speak_id, item.state])).toEqual([
        ['s-a', 'speaking'],
        ['s-b', 'queued'],
      ]);
      await waitForDone(callId, 's-b');
      const order = playbacks(callId).map((event) => [event.speak_id, event.done]);
      const firstB = order.findIndex(([speakId]) => speakId === 's-b');
      expect(order[firstB - 1]).toEqual(['s-a', true]);
      expect(order.slice(0, firstB).every(([speakId]) => speakId === 's-a')).toBe(true);
      expect(order.slice(firstB).every(([speakId]) => speakId === 's-b')).toBe(true);
      expect(playbacks(callId, 's-b').pop()).toMatchObject({ played_text: 'thirteen fourteen', done: true });
      expect((await control('GET', `/control/calls/${callId}/speech`)).body.speech.map((item: { state: string }) => item.state)).toEqual([
        'done',
        'done',
      ]);
    });

    it('stops the current playback with what was played, and drops the queued ones', async () => {
      const { callId, carrierCallId } = await answeredCall();
      await carrier.speak({ carrierCallId, speakId: 's-long', text: LONG });
      await carrier.speak({ carrierCallId, speakId: 's-next', text: 'never heard' });
      await waitUntil(() => playbacks(callId, 's-long').length >= 1, 'first progress');
      await carrier.stopSpeaking({ carrierCallId });
      await waitForDone(callId, 's-long');
      const last = playbacks(callId, 's-long').pop()!;
      expect(last).toEqual({
        type: 'call.playback',
        call_id: callId,
        carrier_call_id: carrierCallId,
        speak_id: 's-long',
        played_text: expect.any(String),
        done: true,
        stopped: true,
        at: expect.any(Number),
      });
      expect(isPrefix(last.played_text, LONG)).toBe(true);
      expect(last.played_text.split(' ').length).toBeGreaterThanOrEqual(10);
      expect(last.played_text.split(' ').length).toBeLessThan(30);
      await sleep(300); // waits out a playback of the stopped queue
      expect(playbacks(callId, 's-next')).toEqual([]);
      expect((await control('GET', `/control/calls/${callId}/speech`)).body).toEqual({
        speech: [
          { speak_id: 's-long', text: LONG, played_text: last.played_text, state: 'stopped', voice: null, started_at: expect.any(String) },
          { speak_id: 's-next', text: 'never heard', played_text: '', state: 'stopped', voice: null, started_at: null },
        ],
      });
      // Stopping when nothing plays succeeds and sends nothing.
      const before = eventsFor(callId).length;
      await carrier.stopSpeaking({ carrierCallId });
      await sleep(100); // waits out an event for stopping silence
      expect(eventsFor(callId)).toHaveLength(before);
      await expect(carrier.stopSpeaking({ carrierCallId: 'CA-unknown' })).rejects.toBeInstanceOf(CarrierRejectedError);
    });

    it('barge-in stops the playback (stopped event first), then reports the utterance', async () => {
      const { callId, carrierCallId } = await answeredCall();
      await carrier.speak({ carrierCallId, speakId: 's-barge', text: LONG });
      await waitUntil(() => playbacks(callId, 's-barge').length >= 1, 'first progress');
      expect((await control('POST', `/control/calls/${callId}/barge-in`, { text: 'Sorry, can I stop you there?' })).status).toBe(202);
      await waitUntil(() => utterances(callId).length === 1, 'the utterance');
      const types = eventsFor(callId).map((event) =>
        event.type === 'call.playback' ? `playback:${event.done ? (event.stopped ? 'stopped' : 'done') : 'progress'}` : event.type,
      );
      expect(types.slice(-2)).toEqual(['playback:stopped', 'call.utterance']);
      expect(eventsFor(callId).pop()).toEqual({
        type: 'call.utterance',
        call_id: callId,
        carrier_call_id: carrierCallId,
        text: 'Sorry, can I stop you there?',
        language: 'en',
        at: expect.any(Number),
      });
      expect((await control('GET', `/control/calls/${callId}/speech`)).body.speech).toEqual([
        { speak_id: 's-barge', text: LONG, played_text: expect.any(String), state: 'stopped', voice: null, started_at: expect.any(String) },
      ]);

      // Not speaking: just the utterance.
      const count = eventsFor(callId).length;
      expect((await control('POST', `/control/calls/${callId}/barge-in`, { text: 'Hello?', language: 'fr' })).status).toBe(202);
      await waitForEvents(callId, count + 1);
      await sleep(100); // waits out a playback event: nothing was playing
      expect(eventsFor(callId).slice(count)).toEqual([
        { type: 'call.utterance', call_id: callId, carrier_call_id: carrierCallId, text: 'Hello?', language: 'fr', at: expect.any(Number) },
      ]);
    });

    it('lists speech per call, and a hang-up stops speech silently', async () => {
      const { callId, carrierCallId } = await answeredCall();
      expect((await control('GET', `/control/calls/${callId}/speech`)).body).toEqual({ speech: [] });
      expect((await control('GET', '/control/calls/nope/speech')).status).toBe(404);
      await carrier.speak({ carrierCallId, speakId: 's-cut', text: LONG });
      await carrier.speak({ carrierCallId, speakId: 's-queued', text: 'not yet' });
      await waitUntil(() => playbacks(callId, 's-cut').length >= 1, 'first progress');
      const live = (await control('GET', `/control/calls/${callId}/speech`)).body.speech;
      expect(live[0]).toMatchObject({ speak_id: 's-cut', state: 'speaking' });
      expect(isPrefix(live[0].played_text, LONG) && live[0].played_text !== '').toBe(true);
      expect(live[1]).toEqual({ speak_id: 's-queued', text: 'not yet', played_text: '', state: 'queued', voice: null, started_at: null });
      await control('POST', `/control/calls/${callId}/hangup`);
      await waitUntil(() => typesFor(callId).includes('call.completed'), 'call.completed');
      await sleep(400); // waits out a playback event after the hang-up
      expect(playbacks(callId).every((event) => !event.done)).toBe(true);
      expect(typesFor(callId).pop()).toBe('call.completed');
      expect((await control('GET', `/control/calls/${callId}/speech`)).body.speech.map((item: { state: string }) => item.state)).toEqual([
        'stopped',
        'stopped',
      ]);
    });

    it('speaks in the voice asked for, and plays DTMF digits in order once answered', async () => {
      const { callId, carrierCallId } = await answeredCall();
      await carrier.speak({ carrierCallId, speakId: 's-voice', text: 'Bonjour', voice: 'french-louis' });
      expect((await control('GET', `/control/calls/${callId}/speech`)).body.speech[0]).toMatchObject({
        speak_id: 's-voice',
        voice: 'french-louis',
      });
      const started = Date.now();
      await carrier.sendDigits({ carrierCallId, digits: '12#' });
      await carrier.sendDigits({ carrierCallId, digits: 'w9' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(750); // 3 tones, a pause and a tone
      expect((await control('GET', `/control/calls/${callId}/dtmf`)).body.dtmf.map((d: { digits: string }) => d.digits)).toEqual([
        '12#',
        'w9',
      ]);
      await expect(carrier.sendDigits({ carrierCallId, digits: '12x' })).rejects.toBeInstanceOf(CarrierRejectedError);
      await control('POST', `/control/calls/${callId}/hangup`);
      await expect(carrier.sendDigits({ carrierCallId, digits: '1' })).rejects.toBeInstanceOf(CarrierRejectedError);
    });

    it('sets the speech speed through the control API', async () => {
      expect((await control('GET', '/control/speech')).body).toEqual({ words_per_second: 40 });
      expect((await control('POST', '/control/speech', { words_per_second: 0 })).status).toBe(400);
      expect((await control('POST', '/control/speech', { words_per_second: '5' })).status).toBe(400);
      await control('POST', '/control/calls/reset');
      expect((await control('GET', '/control/speech')).body).toEqual({ words_per_second: 20 });
    });
  });
});
