import crypto from 'node:crypto';
import { computeCarrierSignature } from '../../src/adapters/carrier/callbacks/signature';
import { encodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import { reachRefusals, startLoggingApi, type LoggingApi } from '../support/loggingApi';
import { customer, type Line } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useTelnyxLiveSuite } from '../support/telnyxHarness';
import { telnyxEventBody } from '../support/telnyxStubWebhooks';

/**
 * Test keys on a Telnyx deployment (issue 26 item 6): Telnyx has no test mode, so the live
 * environment runs on Telnyx (the contract stub) and the test environment on the simulator
 * (CARRIER_PROVIDER_LIVE=telnyx, CARRIER_PROVIDER_TEST=simulator). A customer's sk_test_ key gets a
 * line, a call and a text end to end without Telnyx seeing any of it, and no callback verified for
 * one carrier can act on a row of the other's environment.
 */
describe('Telnyx deployment: the test environment on the simulator, the environments apart', () => {
  const { ctx, stub, receiver } = useTelnyxLiveSuite();
  const line = () => webhookLine({ webhook_url: receiver.url });
  const test = customer(ctx, { key: () => ctx.tenant.keys.test, line });
  const live = customer(ctx, { key: () => ctx.tenant.keys.live, line });
  const sim = simulator(ctx);
  /** Every request the worker or the API sent to Telnyx. */
  const telnyxRequests = () => stub.requests.filter((r) => r.path.startsWith('/v2/'));

  it('an sk_test_ key creates a line, calls and texts through the simulator; Telnyx sees none of it, while sk_live_ buys from Telnyx', async () => {
    const before = telnyxRequests().length;
    const testLine = await test.lines.create();
    expect(testLine).toMatchObject({ status: 'active', environment: 'test' });
    expect(testLine.phone_number).toMatch(/^\+1\d{10}$/);

    const id = (await test.calls.dial(testLine.id)).id;
    await test.calls.untilStatus(id, ['in_progress']);
    expect((await sim.calls.find(id))?.from).toBe(testLine.phone_number);
    expect((await sim.calls.say(id, 'Is anyone there?')).status).toBe(202);
    await eventually(async () => receiver.requests.find((r) => r.body.event === 'message' && r.body.call_id === id));
    expect((await test.calls.hangUp(id)).body.call).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });

    const to = '+14155550161';
    expect((await test.consent.record(testLine.id, to, 'explicit_outbound', 'api')).status).toBe(201);
    const sent = await test.messages.send({ line_id: testLine.id, to, text: 'Test traffic' });
    expect(sent.status).toBe(201);
    await test.messages.untilStatus(testLine.id, to, sent.body.id, 'delivered');
    expect((await sim.messages.list()).some((m) => m.to === to && m.from === testLine.phone_number)).toBe(true);
    expect(telnyxRequests()).toHaveLength(before);

    const liveLine = await live.lines.create();
    const order = stub.requests.find((r) => r.path === '/v2/number_orders' && r.method === 'POST' && r.body.phone_numbers);
    expect(order?.body).toMatchObject({ customer_reference: expect.stringContaining(liveLine.id) });
    expect(stub.numbers.map((n) => n.phone_number)).toContain(liveLine.phone_number);
  });

  describe('a callback verified for one carrier acts only on its own environment', () => {
    /** A second API on the harness's configuration whose log lines are kept (the refusals are logged). */
    let api: LoggingApi;
    beforeAll(async () => {
      api = await startLoggingApi(ctx.h);
    });
    afterAll(async () => api?.close());

    const post = (path: string, raw: string, headers: Record<string, string>) =>
      fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
    /** Signed as the simulator signs its callbacks (CARRIER_WEBHOOK_SECRET): a carrier the test environment runs on. */
    const asSimulator = (path: string, body: Record<string, unknown>) => {
      const raw = JSON.stringify({ at: Date.now(), ...body });
      const timestamp = Math.floor(Date.now() / 1000);
      return post(path, raw, {
        'x-carrier-timestamp': String(timestamp),
        'x-carrier-signature': computeCarrierSignature(ctx.h.config.carrierWebhookSecret!, timestamp, raw),
      });
    };
    /**
     * Signed by Telnyx (the stub's Ed25519 key): the carrier the live environment runs on. Answered 200 once stored
     * in the inbox; what became of it is its inbox row once processed.
     */
    const asTelnyx = async (eventType: string, payload: Record<string, unknown>) => {
      const body = telnyxEventBody(eventType, payload);
      const raw = JSON.stringify(body);
      const response = await post('/carrier/telnyx/events', raw, stub.sign(raw));
      expect([response.status, await response.json()]).toEqual([200, { received: true }]);
      return eventually(async () => {
        const row = await ctx.h.db('telnyx_inbox').where({ event_id: body.data.id }).first();
        return row?.processed_at ? (row as { outcome: string; reason: string | null }) : undefined;
      });
    };
    const refusals = (about: Record<string, unknown>) => reachRefusals(api, about);
    const inbound = (lineId: string) => ctx.h.db('calls').where({ line_id: lineId, direction: 'inbound' });
    const messagesOf = (lineId: string) => ctx.h.db('messages').where({ line_id: lineId });

    it('the simulator’s signature cannot end, ring, text or receipt anything of the live (Telnyx) environment', async () => {
      const liveLine: Line = await live.lines.create();
      const id = (await live.calls.dial(liveLine.id)).id;
      const call = await eventually(async () => [...stub.calls.values()].find((c) => c.commands[0]?.body.command_id === id));
      await stub.answer(call.id);
      await live.calls.untilStatus(id, ['in_progress']);

      const ended = await asSimulator('/carrier/events', {
        type: 'call.completed',
        call_id: id,
        carrier_call_id: call.id,
        ended_by: 'caller',
        answered: true,
      });
      expect(ended.status).toBe(404);
      expect(refusals({ call_id: id, environment: 'live' })).not.toHaveLength(0);
      const rang = await asSimulator('/carrier/events', {
        type: 'call.incoming',
        carrier_call_id: `sim-${crypto.randomUUID()}`,
        from: '+14155550162',
        to: liveLine.phone_number,
      });
      expect(rang.status).toBe(404);
      expect(await inbound(liveLine.id)).toHaveLength(0);
      const texted = await asSimulator('/carrier/messages', {
        type: 'sms.received',
        carrier_message_id: `sim-${crypto.randomUUID()}`,
        from: '+14155550162',
        to: liveLine.phone_number,
        text: 'STOP',
      });
      expect(texted.status).toBe(404);
      expect(await messagesOf(liveLine.id)).toHaveLength(0);
      expect(refusals({ line_id: liveLine.id, environment: 'live' })).toHaveLength(2);

      const to = '+14155550163';
      expect((await live.consent.record(liveLine.id, to, 'explicit_outbound', 'api')).status).toBe(201);
      const sent = await live.messages.send({ line_id: liveLine.id, to, text: 'Live text' });
      await live.messages.untilStatus(liveLine.id, to, sent.body.id, 'delivered');
      const receipt = await asSimulator('/carrier/messages', {
        type: 'sms.status',
        message_id: sent.body.id,
        status: 'failed',
        error_code: 'forged',
      });
      expect(receipt.status).toBe(404);
      expect((await live.messages.get(liveLine.id, to, sent.body.id))?.status).toBe('delivered');

      // The live call carries on, untouched: it ends when Telnyx says so.
      expect((await live.calls.get(id)).status).toBe('in_progress');
      await stub.hangUpRemote(call.id);
      expect((await live.calls.untilStatus(id, ['completed'])).end_cause).toBe('caller_hangup');
    });

    it('a Telnyx webhook cannot hang up, ring or text anything of the test (simulator) environment', async () => {
      const testLine: Line = await test.lines.create();
      const id = (await test.calls.dial(testLine.id)).id;
      await test.calls.untilStatus(id, ['in_progress']);
      const carrierCallId = (await ctx.h.db('calls').where({ id }).first()).carrier_call_id as string;

      const leg = { call_control_id: carrierCallId, call_leg_id: carrierCallId, call_session_id: carrierCallId };
      const hangup = { ...leg, hangup_cause: 'normal_clearing', hangup_source: 'callee' };
      // Naming the test call in client_state, as Telnyx echoes ours: refused by the call's environment.
      const named = await asTelnyx('call.hangup', { ...hangup, client_state: encodeClientState({ c: id, d: 'o' }) });
      expect(named.outcome).toBe('no_call');
      expect(refusals({ call_id: id, environment: 'test' })).toHaveLength(1);
      // Found by its carrier id alone: not a call of Telnyx's, dropped.
      const unnamed = await asTelnyx('call.hangup', hangup);
      expect(unnamed).toMatchObject({ outcome: 'ignored', reason: `no call for ${carrierCallId}` });
      expect(refusals({ carrier_call_id: carrierCallId, environment: 'test' })).toHaveLength(1);
      const incoming = `v3:${crypto.randomBytes(12).toString('base64url')}`;
      const rang = await asTelnyx('call.initiated', {
        call_control_id: incoming,
        call_leg_id: incoming,
        call_session_id: incoming,
        connection_id: 'stub-connection',
        direction: 'incoming',
        from: '+14155550164',
        to: testLine.phone_number,
        state: 'parked',
      });
      expect(rang).toMatchObject({ outcome: 'declined', reason: 'no_line_for_number' });
      expect(await inbound(testLine.id)).toHaveLength(0);
      const texted = await asTelnyx('message.received', {
        record_type: 'message',
        id: crypto.randomUUID(),
        direction: 'inbound',
        type: 'SMS',
        from: { phone_number: '+14155550164' },
        to: [{ phone_number: testLine.phone_number, status: 'webhook_delivered' }],
        text: 'STOP',
        errors: [],
      });
      expect(texted.outcome).toBe('no_line');
      expect(await messagesOf(testLine.id)).toHaveLength(0);
      expect(refusals({ line_id: testLine.id, environment: 'test' })).toHaveLength(2);

      expect((await test.calls.get(id)).status).toBe('in_progress');
      expect((await test.calls.hangUp(id)).body.call).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
    });
  });
});
