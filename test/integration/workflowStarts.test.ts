import { workflowIds } from '../../workflows/definitions/ids';
import { eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { GRPC, TemporalFaults } from '../support/temporalFaults';
import { useSuite } from '../support/suite';

/**
 * What the API does when Temporal misbehaves (security review M2, L4, L11): a start the server
 * accepted but whose answer was lost is not compensated; a call whose start never happened leaves no
 * active row and no hold; an accepted SMS is sent once Temporal is back (or failed past its validity);
 * overload on live control is "retry later", never a 500.
 */
describe('workflow starts and Temporal failures, as the customer sees them', () => {
  const faults = new TemporalFaults();
  const ctx = useSuite({ worker: true, receiver: true, apiTemporal: (client) => faults.wrap(client) });
  const { h } = ctx;
  beforeEach(() => {
    faults.reset();
  });
  const { lines, calls, messages, settings } = customer(ctx, {
    line: () => webhookLine({ webhook_url: ctx.receiver.url }),
    untilMs: 30_000,
  });
  const sim = simulator(ctx);
  afterEach(async () => {
    faults.reset();
    await h.startWorker();
  });

  const hold = async (reference: string) => h.db('spend_holds').where({ reference }).first();

  describe('outbound calls', () => {
    it('a start the server accepted, whose answer was lost, is not compensated: the call goes on and settles once', async () => {
      const line = await lines.create();
      faults.loseStartAnswer('callWorkflow');
      const placed = await calls.place(line.id);
      expect(placed.status).toBe(201);
      const id = placed.body.call.id as string;
      await calls.untilStatus(id, ['in_progress']);
      expect((await hold(`call:${id}`)).status).toBe('active');
      const ended = (await calls.hangUp(id)).body.call;
      expect(ended).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
      const charges = await h.db('ledger_transactions').where({ idempotency_ref: `call:${id}:settle` });
      expect(charges).toHaveLength(1);
      expect((await hold(`call:${id}`)).status).toBe('settled');
    });

    it('the idempotent answer commits with the call: a retry while its workflow is still starting replays it', async () => {
      const line = await lines.create();
      const start = faults.holdNextStart('callWorkflow');
      const place = () =>
        h.request('POST', '/api/v1/calls', {
          key: ctx.tenant.keys.test,
          body: { line_id: line.id, to_number: '+14155552698' },
          headers: { 'idempotency-key': 'committed-with-the-call' },
        });
      const first = place();
      // The API is between recording the call and starting its workflow (where a crash would stop it).
      await start.held;
      const retry = await place();
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      start.release();
      const placed = await first;
      expect(placed.status).toBe(201);
      expect(retry.body.call.id).toBe(placed.body.call.id);
      expect(await h.db('calls').where({ line_id: line.id })).toHaveLength(1);
      await calls.untilStatus(placed.body.call.id, ['in_progress']);
      await calls.hangUp(placed.body.call.id);
    });

    it('a start that never reached Temporal: 503, the call failed, its hold released, the line free', async () => {
      const line = await lines.create();
      faults.failStarts('callWorkflow');
      const placed = await h.request('POST', '/api/v1/calls', {
        key: ctx.tenant.keys.test,
        body: { line_id: line.id, to_number: '+14155552697' },
        headers: { 'idempotency-key': 'compensated-start' },
      });
      expect(placed.status).toBe(503);
      expect(placed.body.error.code).toBe('service_unavailable');
      expect(placed.headers.get('retry-after')).toBe('1');
      const [row] = await h.db('calls').where({ line_id: line.id });
      expect(row).toMatchObject({ status: 'failed', end_cause: 'service_error' });
      expect((await hold(`call:${row.id}`)).status).toBe('released');
      faults.reset();
      await lines.expectFree(line.id);
      // Nothing was dialled, so the answer stored with the call is forgotten: the retry places a new call.
      const retried = await h.request('POST', '/api/v1/calls', {
        key: ctx.tenant.keys.test,
        body: { line_id: line.id, to_number: '+14155552697' },
        headers: { 'idempotency-key': 'compensated-start' },
      });
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expect(retried.body.call.id).not.toBe(row.id);
      await calls.hangUp(retried.body.call.id);
    });

    it('a workflow that starts after the API failed its call does not dial it', async () => {
      const line = await lines.create();
      // Temporal accepts the start but no answer comes back, and nothing can be confirmed; no
      // worker takes the workflow before the API gives up on it.
      await h.stopWorker();
      faults.loseStartAnswer('callWorkflow', 'unreachable');
      faults.failDescribes();
      const placed = await calls.place(line.id);
      expect(placed.status).toBe(503);
      const [row] = await h.db('calls').where({ line_id: line.id });
      expect(row.status).toBe('failed');
      // The workflow is there (the first start went through) but finds the call failed.
      await h.startWorker();
      const result = await h.temporal.workflow.getHandle(row.id).result();
      expect(result).toMatchObject({ status: 'failed', endCause: 'service_error', chargeCents: 0 });
      expect(h.simulator.state.calls.get(row.id)).toBeUndefined();
      expect((await calls.get(row.id)).status).toBe('failed');
      expect((await hold(`call:${row.id}`)).status).toBe('released');
    });
  });

  it('an inbound call whose workflow cannot be started is failed and the carrier told so: the line stays free', async () => {
    const line = await lines.create();
    faults.failStarts('callWorkflow');
    const { carrier_call_id: carrierCallId } = (await sim.calls.ring('+14155553434', line.phone_number)).body;
    const row = await eventually(
      async () => {
        const found = await h.db('calls').where({ line_id: line.id, direction: 'inbound' }).first();
        return found?.status === 'failed' ? found : undefined;
      },
      20_000,
      'the inbound call to be failed',
    );
    expect(row.end_cause).toBe('service_error');
    // The carrier got a non-2xx and declined the call.
    await eventually(async () =>
      h.simulator.state.calls.list().find((c) => c.carrier_call_id === carrierCallId)?.state === 'ended' ? true : undefined,
    );
    faults.reset();
    await lines.expectFree(line.id);
  });

  describe('messages', () => {
    const inbound = (from: string, to: string) => sim.messages.inbound(from, to, 'Hello?');

    it('a start whose answer was lost: 201, and the message is delivered and charged once (not marked failed)', async () => {
      const line = await lines.create();
      const peer = '+14155550142';
      await inbound(peer, line.phone_number);
      faults.loseStartAnswer('sendMessageBatchWorkflow');
      const sent = await messages.send({ line_id: line.id, to: peer, text: 'Ready for pickup.' });
      expect(sent.status).toBe(201);
      const row = await eventually(
        async () => {
          const current = await h.db('messages').where({ id: sent.body.id }).first();
          return current.status === 'delivered' ? current : undefined;
        },
        30_000,
        'the message to be delivered',
      );
      expect(row.error_code).toBeNull();
      await eventually(
        async () =>
          (await h.db('ledger_transactions').where({ idempotency_ref: `sms:${sent.body.id}:settle` })).length === 1 ? true : undefined,
        20_000,
        'the charge',
      );
      const { dispatch_batch_id: batchId } = await h.db('messages').where({ id: sent.body.id }).first();
      await h.temporal.workflow.getHandle(workflowIds.sendMessageBatch(batchId)).result();
      expect(await h.db('ledger_transactions').where({ idempotency_ref: `sms:${sent.body.id}:settle` })).toHaveLength(1);
      expect((await hold(`sms:${sent.body.id}`)).status).toBe('settled');
    });

    it('Temporal unreachable when the message is accepted: 201 queued and held; the dispatch sweep sends it once Temporal is back', async () => {
      const line = await lines.create();
      const peer = '+14155550144';
      await inbound(peer, line.phone_number);
      faults.failStarts('sendMessageBatchWorkflow');
      faults.failDescribes();
      const sent = await messages.send({ line_id: line.id, to: peer, text: 'Ready for pickup.' });
      expect(sent.status).toBe(201);
      expect(sent.body.status).toBe('queued');
      await h.messagesHandedOver();
      expect(await h.db('messages').where({ id: sent.body.id }).first()).toMatchObject({ status: 'queued', dispatched_at: null });
      expect((await hold(`sms:${sent.body.id}`)).status).toBe('active');
      faults.reset();
      // Past the grace the accepting process has for its own start.
      await h
        .db('messages')
        .where({ id: sent.body.id })
        .update({ created_at: h.db.raw("now() - interval '1 minute'") });
      const sweep = await h.temporal.workflow.execute('sweepUndispatchedMessagesWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `dispatch-sweep-${sent.body.id}`,
        args: [],
      });
      expect(sweep.dispatched).toBeGreaterThanOrEqual(1);
      expect((await h.db('messages').where({ id: sent.body.id }).first()).dispatched_at).not.toBeNull();
      await eventually(
        async () => ((await h.db('messages').where({ id: sent.body.id }).first()).status === 'delivered' ? true : undefined),
        30_000,
        'the message to be delivered',
      );
      await eventually(async () => ((await hold(`sms:${sent.body.id}`)).status === 'settled' ? true : undefined), 20_000, 'the charge');
      expect(await h.db('ledger_transactions').where({ idempotency_ref: `sms:${sent.body.id}:settle` })).toHaveLength(1);
    });

    it('a message that could not be handed over within 10 hours is never sent: failed `not_sent`, its hold released', async () => {
      const line = await lines.create();
      const peer = '+14155550143';
      await inbound(peer, line.phone_number);
      faults.failStarts('sendMessageBatchWorkflow');
      const sent = await messages.send({ line_id: line.id, to: peer, text: 'Ready for pickup.' });
      expect(sent.status).toBe(201);
      await h.messagesHandedOver();
      faults.reset();
      await h
        .db('messages')
        .where({ id: sent.body.id })
        .update({ created_at: h.db.raw("now() - interval '11 hours'") });
      await h.temporal.workflow.execute('recoverOrphansWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `sweep-${sent.body.id}`,
        args: [{}],
      });
      expect(await h.db('messages').where({ id: sent.body.id }).first()).toMatchObject({ status: 'failed', error_code: 'not_sent' });
      expect((await hold(`sms:${sent.body.id}`)).status).toBe('released');
      expect(h.simulator.state.messages.list().filter((m) => m.message_id === sent.body.id)).toEqual([]);
    });
  });

  describe('live control when Temporal is overloaded (L4)', () => {
    it.each([
      ['speak', { text: 'Hello' }],
      ['wait', { timeout_seconds: 1 }],
      ['press', { digits: '1' }],
      ['transfer', { to_number: '+14155552698' }],
    ] as const)(
      '%s: RESOURCE_EXHAUSTED is 429 rate_limited, UNAVAILABLE is 503, both with Retry-After and nothing changed',
      async (path, body) => {
        const line = await lines.create();
        const id = (await calls.place(line.id)).body.call.id as string;
        await calls.untilStatus(id, ['in_progress']);
        faults.failUpdates(GRPC.RESOURCE_EXHAUSTED, GRPC.UNAVAILABLE);
        const limited = await calls[path](id, body);
        expect(limited.status).toBe(429);
        expect(limited.body.error.code).toBe('rate_limited');
        expect(limited.headers.get('retry-after')).toBe('1');
        const unavailable = await calls[path](id, body);
        expect(unavailable.status).toBe(503);
        expect(unavailable.body.error.code).toBe('service_unavailable');
        expect(unavailable.headers.get('retry-after')).toBe('1');
        expect((await calls.get(id)).status).toBe('in_progress');
        // Once Temporal answers again, the same request works.
        expect((await calls[path](id, body)).status).toBe(200);
        await calls.hangUp(id);
      },
    );

    it('hang-up: RESOURCE_EXHAUSTED is 429 with Retry-After; the retry ends the call', async () => {
      const line = await lines.create();
      const id = (await calls.place(line.id)).body.call.id as string;
      await calls.untilStatus(id, ['in_progress']);
      faults.failSignals(GRPC.RESOURCE_EXHAUSTED);
      const limited = await calls.hangUp(id);
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toBe('1');
      expect((await calls.hangUp(id)).body.call).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
    });
  });

  it('line_no_webhook for a webhook line without its own webhook_url, even with a workspace default_webhook_url (D9)', async () => {
    await settings.update({ default_webhook_url: 'https://hooks.example.test/all' });
    const line = await lines.create();
    await lines.update(line.id, { webhook_url: null });
    const refused = await calls.place(line.id);
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('line_no_webhook');
    expect(await h.db('calls').where({ line_id: line.id })).toHaveLength(0);
  });
});
