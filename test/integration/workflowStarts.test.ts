import { eventually, webhookLine, type Harness, type Tenant } from '../support/harness';
import { useHarnessWithReceiver, callsApi } from '../support/callSuite';
import type { Receiver } from '../support/receiver';
import { GRPC, TemporalFaults } from '../support/temporalFaults';

/**
 * What the API does when Temporal misbehaves (security review M2, L4, L11): a start the server
 * accepted but whose answer was lost is not compensated; a start that never happened leaves no
 * active row and no hold; overload on live control is "retry later", never a 500.
 */
describe('workflow starts and Temporal failures, as the customer sees them', () => {
  const faults = new TemporalFaults();
  const ctx = useHarnessWithReceiver({ apiTemporal: (client) => faults.wrap(client) });
  let h: Harness;
  let tenant: Tenant;
  let receiver: Receiver;
  beforeEach(() => {
    ({ h, tenant, receiver } = ctx);
    faults.reset();
  });
  const { place, getCall, untilStatus } = callsApi(ctx, 30_000);
  afterEach(async () => {
    faults.reset();
    await h.startWorker();
  });

  const makeLine = async (overrides: Record<string, unknown> = {}) =>
    (await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine({ webhook_url: receiver.url, ...overrides }) })).body.line as { id: string; phone_number: string };
  const hold = async (reference: string) => h.db('spend_holds').where({ reference }).first();
  const expectLineFree = async (lineId: string) => {
    const next = await place(lineId, '+14155552699');
    expect(next.status).toBe(201);
    await h.request('POST', `/api/v1/calls/${next.body.call.id}/hangup`, { key: tenant.keys.test });
  };

  describe('outbound calls', () => {
    it('a start the server accepted, whose answer was lost, is not compensated: the call goes on and settles once', async () => {
      const line = await makeLine();
      faults.loseStartAnswer('callWorkflow');
      const placed = await place(line.id);
      expect(placed.status).toBe(201);
      const id = placed.body.call.id as string;
      await untilStatus(id, ['in_progress']);
      expect((await hold(`call:${id}`)).status).toBe('active');
      const ended = (await h.request('POST', `/api/v1/calls/${id}/hangup`, { key: tenant.keys.test })).body.call;
      expect(ended).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
      const charges = await h.db('ledger_transactions').where({ idempotency_ref: `call:${id}:settle` });
      expect(charges).toHaveLength(1);
      expect((await hold(`call:${id}`)).status).toBe('settled');
    });

    it('a start that never reached Temporal: 503, the call failed, its hold released, the line free', async () => {
      const line = await makeLine();
      faults.failStarts('callWorkflow');
      const placed = await place(line.id);
      expect(placed.status).toBe(503);
      expect(placed.body.error.code).toBe('service_unavailable');
      expect(placed.headers.get('retry-after')).toBe('1');
      const [row] = await h.db('calls').where({ line_id: line.id });
      expect(row).toMatchObject({ status: 'failed', end_cause: 'service_error' });
      expect((await hold(`call:${row.id}`)).status).toBe('released');
      faults.reset();
      await expectLineFree(line.id);
    });

    it('a workflow that starts after the API failed its call does not dial it', async () => {
      const line = await makeLine();
      // Temporal accepts the start but no answer comes back, and nothing can be confirmed; no
      // worker takes the workflow before the API gives up on it.
      await h.stopWorker();
      faults.loseStartAnswer('callWorkflow', 'unreachable');
      faults.failDescribes();
      const placed = await place(line.id);
      expect(placed.status).toBe(503);
      const [row] = await h.db('calls').where({ line_id: line.id });
      expect(row.status).toBe('failed');
      // The workflow is there (the first start went through) but finds the call failed.
      await h.startWorker();
      const result = await h.temporal.workflow.getHandle(row.id).result();
      expect(result).toMatchObject({ status: 'failed', endCause: 'service_error', chargeCents: 0 });
      expect(h.simulator.state.calls.get(row.id)).toBeUndefined();
      expect((await getCall(row.id)).status).toBe('failed');
      expect((await hold(`call:${row.id}`)).status).toBe('released');
    });
  });

  it('an inbound call whose workflow cannot be started is failed and the carrier told so: the line stays free', async () => {
    const line = await makeLine();
    faults.failStarts('callWorkflow');
    const rang = await h.simulator.control('POST', '/control/calls/inbound', { from: '+14155553434', to: line.phone_number, events_url: `${h.apiUrl}/carrier/events` });
    const { carrier_call_id: carrierCallId } = (await rang.json()) as { carrier_call_id: string };
    const row = await eventually(async () => {
      const found = await h.db('calls').where({ line_id: line.id, direction: 'inbound' }).first();
      return found?.status === 'failed' ? found : undefined;
    }, 20_000, 'the inbound call to be failed');
    expect(row.end_cause).toBe('service_error');
    // The carrier got a non-2xx and declined the call.
    await eventually(async () => (h.simulator.state.calls.list().find((c) => c.carrier_call_id === carrierCallId)?.state === 'ended' ? true : undefined));
    faults.reset();
    await expectLineFree(line.id);
  });

  describe('messages', () => {
    const inbound = (from: string, to: string) =>
      h.simulator.control('POST', '/control/messages/inbound', { from, to, text: 'Hello?', events_url: `${h.apiUrl}/carrier/messages` });

    it('a start whose answer was lost: 201, and the message is delivered and charged once (not marked failed)', async () => {
      const line = await makeLine();
      const peer = '+14155550142';
      await inbound(peer, line.phone_number);
      faults.loseStartAnswer('sendMessageWorkflow');
      const sent = await h.request('POST', '/api/v1/messages', { key: tenant.keys.test, body: { line_id: line.id, to: peer, text: 'Ready for pickup.' } });
      expect(sent.status).toBe(201);
      const row = await eventually(async () => {
        const current = await h.db('messages').where({ id: sent.body.id }).first();
        return current.status === 'delivered' ? current : undefined;
      }, 30_000, 'the message to be delivered');
      expect(row.error_code).toBeNull();
      await eventually(async () => ((await h.db('ledger_transactions').where({ idempotency_ref: `sms:${sent.body.id}:settle` })).length === 1 ? true : undefined), 20_000, 'the charge');
      await h.temporal.workflow.getHandle(`message-send:${sent.body.id}`).result();
      expect(await h.db('ledger_transactions').where({ idempotency_ref: `sms:${sent.body.id}:settle` })).toHaveLength(1);
      expect((await hold(`sms:${sent.body.id}`)).status).toBe('settled');
    });

    it('a start that cannot be confirmed either way: 201 queued, held; the sweeper fails it later if it never got a workflow', async () => {
      const line = await makeLine();
      const peer = '+14155550144';
      await inbound(peer, line.phone_number);
      faults.failStarts('sendMessageWorkflow');
      faults.failDescribes();
      const sent = await h.request('POST', '/api/v1/messages', { key: tenant.keys.test, body: { line_id: line.id, to: peer, text: 'Ready for pickup.' } });
      expect(sent.status).toBe(201);
      expect(sent.body.status).toBe('queued');
      expect((await hold(`sms:${sent.body.id}`)).status).toBe('active');
      faults.reset();
      // Ten minutes on, still queued and with no workflow: never sent.
      await h.db('messages').where({ id: sent.body.id }).update({ created_at: h.db.raw("now() - interval '11 minutes'") });
      await h.temporal.workflow.execute('recoverOrphansWorkflow', { taskQueue: h.config.taskQueue, workflowId: `sweep-${sent.body.id}`, args: [{}] });
      expect(await h.db('messages').where({ id: sent.body.id }).first()).toMatchObject({ status: 'failed', error_code: 'not_sent' });
      expect((await hold(`sms:${sent.body.id}`)).status).toBe('released');
    });

    it('a start that never happened: 503, the message failed and its hold released', async () => {
      const line = await makeLine();
      const peer = '+14155550143';
      await inbound(peer, line.phone_number);
      faults.failStarts('sendMessageWorkflow');
      const sent = await h.request('POST', '/api/v1/messages', { key: tenant.keys.test, body: { line_id: line.id, to: peer, text: 'Ready for pickup.' } });
      expect(sent.status).toBe(503);
      const [row] = await h.db('messages').where({ line_id: line.id, direction: 'outbound' });
      expect(row).toMatchObject({ status: 'failed', error_code: 'not_sent' });
      expect((await hold(`sms:${row.id}`)).status).toBe('released');
    });
  });

  describe('live control when Temporal is overloaded (L4)', () => {
    it.each([
      ['speak', { text: 'Hello' }],
      ['wait', { timeout_seconds: 1 }],
      ['press', { digits: '1' }],
    ])('%s: RESOURCE_EXHAUSTED is 429 rate_limited, UNAVAILABLE is 503, both with Retry-After and nothing changed', async (path, body) => {
      const line = await makeLine();
      const id = (await place(line.id)).body.call.id as string;
      await untilStatus(id, ['in_progress']);
      faults.failUpdates(GRPC.RESOURCE_EXHAUSTED, GRPC.UNAVAILABLE);
      const limited = await h.request('POST', `/api/v1/calls/${id}/${path}`, { key: tenant.keys.test, body });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toBe('1');
      const unavailable = await h.request('POST', `/api/v1/calls/${id}/${path}`, { key: tenant.keys.test, body });
      expect(unavailable.status).toBe(503);
      expect(unavailable.body.error.code).toBe('service_unavailable');
      expect(unavailable.headers.get('retry-after')).toBe('1');
      expect((await getCall(id)).status).toBe('in_progress');
      // Once Temporal answers again, the same request works.
      expect((await h.request('POST', `/api/v1/calls/${id}/${path}`, { key: tenant.keys.test, body })).status).toBe(200);
      await h.request('POST', `/api/v1/calls/${id}/hangup`, { key: tenant.keys.test });
    });

    it('hang-up: RESOURCE_EXHAUSTED is 429 with Retry-After; the retry ends the call', async () => {
      const line = await makeLine();
      const id = (await place(line.id)).body.call.id as string;
      await untilStatus(id, ['in_progress']);
      faults.failSignals(GRPC.RESOURCE_EXHAUSTED);
      const limited = await h.request('POST', `/api/v1/calls/${id}/hangup`, { key: tenant.keys.test });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toBe('1');
      expect((await h.request('POST', `/api/v1/calls/${id}/hangup`, { key: tenant.keys.test })).body.call).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
    });
  });

  it('line_no_webhook for a webhook line without its own webhook_url, even with a workspace default_webhook_url (D9)', async () => {
    await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { default_webhook_url: 'https://hooks.example.test/all' } });
    const line = await makeLine();
    await h.request('PATCH', `/api/v1/lines/${line.id}`, { key: tenant.keys.test, body: { webhook_url: null } });
    const refused = await place(line.id);
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('line_no_webhook');
    expect(await h.db('calls').where({ line_id: line.id })).toHaveLength(0);
  });
});
