import crypto from 'node:crypto';
import { createTenant, eventually } from '../support/harness';
import { customer, type Call } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import type { TransferResult } from '../../workflows/definitions/callControl';
import { useSuite } from '../support/suite';

/**
 * Call transfer (`POST /calls/{id}/transfer`) and answering-machine detection
 * (`machine_detection: detect`) as a customer sees them, on the carrier simulator.
 */
describe('call transfer and machine detection (simulator)', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  const sim = simulator(ctx);
  const { lines, calls } = customer(ctx);
  afterEach(async () => {
    await sim.calls.reset();
  });

  const transfer = (id: string, body: Record<string, unknown>, options: { key?: string; headers?: Record<string, string> } = {}) =>
    h.request('POST', `/api/v1/calls/${id}/transfer`, { key: options.key ?? tenant.keys.test, body, headers: options.headers });
  const events = (callId: string, type: string) => receiver.requests.filter((r) => r.body.event === type && r.body.call_id === callId);
  const live = async (to = '+14155552671', fields: Record<string, unknown> = {}): Promise<Call> => {
    const line = await lines.create({ webhook_url: receiver.url, ...fields });
    const call = await calls.dial(line.id, to);
    return calls.untilStatus(call.id, ['in_progress']);
  };

  it('a transfer the destination answers: connected, recorded, announced, billed until the caller hangs up', async () => {
    const call = await live();
    const answered = await transfer(call.id, { to_number: '+14155552688' });
    expect(answered.status).toBe(200);
    expect(answered.body as TransferResult).toEqual({
      call_id: call.id,
      to_number: '+14155552688',
      transferred: true,
      failure_reason: null,
    });

    const record = await calls.get(call.id);
    expect(record).toMatchObject({ status: 'in_progress', transferred_to: '+14155552688' });
    expect((await sim.calls.find(call.id))?.transfer).toMatchObject({ to: '+14155552688', from: call.from_number, state: 'connected' });
    const announced = await eventually(async () => events(call.id, 'call_transferred')[0], 20_000, 'call_transferred');
    expect(announced.body).toMatchObject({ event: 'call_transferred', call_id: call.id, to_number: '+14155552688' });

    // Switchboard is out of the media path: no live control, and the caller's words never reach the customer.
    expect((await calls.speak(call.id, { text: 'Still there?' })).body.error.code).toBe('call_not_active');
    expect((await transfer(call.id, { to_number: '+14155552689' })).status).toBe(409);
    expect((await sim.calls.say(call.id, 'Hello, is this the front desk?')).status).toBe(409);

    await sim.calls.hangUp(call.id);
    const ended = await calls.untilStatus(call.id, ['completed']);
    expect(ended.end_cause).toBe('transferred');
    // Billed per second from the answer to the end, transfer or not (the exact charge of a transferred
    // call's length: callWorkflowTimeSkipping.test.ts).
    expect(ended.charge_cents).toBe(Math.ceil((13 * ended.duration_sec!) / 60));
    const callEnded = await eventually(async () => events(call.id, 'call_ended')[0], 20_000, 'call_ended');
    expect(callEnded.body).toMatchObject({ cause: 'transferred', status: 'completed' });
    expect(events(call.id, 'message')).toEqual([]);
  });

  it('a transfer nobody answers leaves the call with the agent; a transferred call can still be hung up', async () => {
    await sim.calls.setOutcome('+14155550177', 'busy', 100);
    const call = await live();
    const busy = await transfer(call.id, { to_number: '+14155550177' });
    expect(busy.body as TransferResult).toMatchObject({ transferred: false, failure_reason: 'not_answered' });
    expect((await calls.get(call.id)).transferred_to).toBeNull();
    const spoken = await calls.speak(call.id, { text: 'Sorry, nobody picks up.' });
    expect(spoken.status).toBe(200);
    expect(spoken.body.spoke).toBe(true);

    // The call is still the agent's to transfer again.
    await sim.calls.setOutcome('+14155550176', 'answer', 100);
    expect((await transfer(call.id, { to_number: '+14155550176' })).body.transferred).toBe(true);
    expect((await calls.hangUp(call.id)).status).toBe(200);
    const ended = await calls.untilStatus(call.id, ['completed']);
    expect(ended.end_cause).toBe('api_hangup');
    expect(events(call.id, 'call_transferred')).toHaveLength(1);
  });

  it('refuses bad input: not a number, a party of the call, an ended call, another tenant’s call, an opted-out or dearer destination', async () => {
    const call = await live();
    const invalid = await transfer(call.id, { to_number: 'front desk' });
    expect([invalid.status, invalid.body.error.code]).toEqual([422, 'validation_error']);
    expect((await transfer(call.id, {})).status).toBe(422);
    expect((await transfer(call.id, { to_number: call.to_number })).status).toBe(422);
    expect((await transfer(call.id, { to_number: call.from_number })).status).toBe(422);

    await h.db('opt_outs').insert({
      workspace_id: tenant.workspaceId,
      environment: 'test',
      phone_number: '+14155550166',
      source: 'test',
      opted_out_at: new Date(),
    });
    const optedOut = await transfer(call.id, { to_number: '+14155550166' });
    expect([optedOut.status, optedOut.body.error.code]).toEqual([403, 'number_opted_out']);
    const dearer = await transfer(call.id, { to_number: '+442071838750' });
    expect([dearer.status, dearer.body.error.code]).toEqual([403, 'transfer_zone_not_allowed']);
    const premium = await transfer(call.id, { to_number: '+19005550123' });
    expect([premium.status, premium.body.error.code]).toEqual([403, 'm3_fraud_block']);

    const other = await createTenant(h.db);
    const foreign = await transfer(call.id, { to_number: '+14155550155' }, { key: other.keys.test });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'call_not_found']);
    expect((await transfer(crypto.randomUUID(), { to_number: '+14155550155' })).status).toBe(404);
    // Nothing was dialled by any of these.
    expect((await sim.calls.find(call.id))?.transfer).toBeNull();

    await calls.hangUp(call.id);
    await calls.untilStatus(call.id, ['completed']);
    const ended = await transfer(call.id, { to_number: '+14155550155' });
    expect([ended.status, ended.body.error.code]).toEqual([409, 'call_not_active']);
  });

  it('a transfer retried with its Idempotency-Key dials once and answers the same', async () => {
    const call = await live();
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await transfer(call.id, { to_number: '+14155552644' }, { headers });
    const again = await transfer(call.id, { to_number: '+14155552644' }, { headers });
    expect(first.body).toMatchObject({ transferred: true });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(events(call.id, 'call_transferred')).toHaveLength(1);
    await calls.hangUp(call.id);
  });

  it('machine detection: who answered is on the call record and in call_started; without it, answered_by is null', async () => {
    await sim.calls.setOutcome('+14155550133', 'answer', 100, 'machine');
    const line = await lines.create({ webhook_url: receiver.url });
    const placed = await h.request('POST', '/api/v1/calls', {
      key: tenant.keys.test,
      body: { line_id: line.id, to_number: '+14155550133', machine_detection: 'detect' },
    });
    expect(placed.status).toBe(201);
    const id = placed.body.call.id as string;
    expect(placed.body.call.answered_by).toBeNull();
    expect((await calls.untilStatus(id, ['in_progress'])).answered_by).toBe('machine');
    const started = await eventually(async () => events(id, 'call_started')[0], 20_000, 'call_started');
    expect(started.body).toMatchObject({ call_id: id, answered_by: 'machine' });
    // A machine answer is reported, not acted on: the agent decides (here it leaves a message).
    expect((await calls.speak(id, { text: 'Please call us back.' })).body.spoke).toBe(true);
    await calls.hangUp(id);
    await calls.untilStatus(id, ['completed']);

    const plain = await calls.dial(line.id, '+14155550133');
    expect((await calls.untilStatus(plain.id, ['in_progress'])).answered_by).toBeNull();
    expect((await eventually(async () => events(plain.id, 'call_started')[0])).body.answered_by).toBeNull();
    await calls.hangUp(plain.id);

    const conversation = await calls.placeConversation({
      line_id: line.id,
      to_number: '+14155552671',
      topic: 'a table for two',
      machine_detection: 'detect',
    });
    expect(conversation.status).toBe(201);
    expect((await calls.untilStatus(conversation.body.call.id, ['in_progress'])).answered_by).toBe('human');
    await calls.hangUp(conversation.body.call.id);
    const bad = await calls.placeConversation({ line_id: line.id, to_number: '+14155552671', topic: 'x', machine_detection: 'yes' });
    expect(bad.status).toBe(422);
  });
});
