import { eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * The carrier refuses a command because the call is gone (the caller hung up, gave up while it
 * rang, or the carrier forgot it) or refuses the destination: each call still ends, is settled
 * once and frees its line (security review H1).
 */
describe('calls the carrier refuses', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, receiver } = ctx;
  beforeEach(() => {
    receiver.respondWith(undefined);
  });
  const { lines, calls } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }), untilMs: 30_000 });
  const sim = simulator(ctx);

  const settlements = (id: string) => h.db('ledger_transactions').where({ idempotency_ref: `call:${id}:settle` });
  const hold = async (id: string) =>
    h
      .db('spend_holds')
      .where({ reference: `call:${id}` })
      .first();

  it('the caller hangs up while the agent’s reply is being spoken: the call ends, is settled once, call_ended once, and the line is free', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id as string;
    // The caller says goodbye and hangs up before the receiver's answer is spoken.
    receiver.respondWith((req) => {
      if (req.body.event !== 'message') return undefined;
      h.simulator.state.calls.hangUpByCaller(id);
      return { status: 200, body: JSON.stringify({ text: 'Goodbye!' }) };
    });
    await calls.untilStatus(id, ['in_progress']);
    expect((await sim.calls.say(id, 'Thanks, bye')).status).toBe(202);

    const call = await calls.untilStatus(id, ['completed', 'failed', 'canceled']);
    expect(call).toMatchObject({ status: 'completed', end_cause: 'caller_hangup' });
    const charges = await settlements(id);
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amount_cents)).toBe(-call.charge_cents!);
    expect(call.charge_cents).toBeGreaterThan(0);
    expect((await hold(id)).status).toBe('settled');
    // Nothing was said after the caller left, and the customer hears of the end once.
    expect((h.simulator.state.calls.speechFor(id) ?? []).map((s) => s.text)).not.toContain('Goodbye!');
    await eventually(async () =>
      receiver.requests.some((r) => r.body.event === 'call_ended' && r.body.call_id === id) ? true : undefined,
    );
    await h.temporal.workflow.getHandle(id).result();
    expect(receiver.requests.filter((r) => r.body.event === 'call_ended' && r.body.call_id === id)).toHaveLength(1);
    expect(call.transcript!.map((t) => [t.role, t.text])).toEqual([['user', 'Thanks, bye']]);
    await lines.expectFree(line.id);
  });

  it('a destination the carrier refuses fails the call, charges nothing and frees the line', async () => {
    const line = await lines.create();
    const to = '+14155552688';
    expect((await sim.calls.setOutcome(to, 'reject')).status).toBe(200);
    const id = (await calls.place(line.id, to)).body.call.id as string;
    const call = await calls.untilStatus(id, ['failed', 'completed', 'canceled']);
    expect(call).toMatchObject({ status: 'failed', end_cause: 'carrier_failed', charge_cents: 0, duration_sec: 0 });
    expect(await settlements(id)).toHaveLength(0);
    expect((await hold(id)).status).toBe('settled');
    await lines.expectFree(line.id);
  });

  it('an inbound caller who gives up before the answer: the call ends unbilled and frees the line', async () => {
    const line = await lines.create();
    // No worker for a moment, so the caller gives up before Switchboard answers.
    await h.stopWorker();
    try {
      const { carrier_call_id: carrierCallId } = (await sim.calls.ring('+14155553434', line.phone_number)).body;
      const row = await calls.untilInboundRow(line.id);
      expect(h.simulator.state.calls.abandon(carrierCallId)).toBe(true);
      await h.startWorker();
      const call = await calls.untilStatus(row.id, ['canceled', 'failed', 'completed']);
      expect(call).toMatchObject({ status: 'canceled', end_cause: 'caller_hangup', charge_cents: 0 });
      expect((await hold(row.id)).status).toBe('settled');
      expect(await settlements(row.id)).toHaveLength(0);
      await lines.expectFree(line.id);
    } finally {
      await h.startWorker();
    }
  });

  it('a control speak on a call the carrier has forgotten answers call_ended, and the call still ends and settles', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id as string;
    await calls.untilStatus(id, ['in_progress']);
    // The carrier loses the call (a restart): it refuses every command on it and reports nothing.
    await sim.calls.reset();
    const spoke = await calls.speak(id, { text: 'Are you still there?' });
    expect(spoke.status).toBe(200);
    expect(spoke.body).toMatchObject({ spoke: false, interrupted: true, interruption_reason: 'call_ended' });
    const result = await h.temporal.workflow.getHandle(id).result();
    expect(result).toMatchObject({ status: 'completed', endCause: 'carrier_failed' });
    const call = await calls.get(id);
    expect(call.status).toBe('completed');
    expect(await settlements(id)).toHaveLength(call.charge_cents! > 0 ? 1 : 0);
    expect((await hold(id)).status).toBe('settled');
    await lines.expectFree(line.id);
  });
});
