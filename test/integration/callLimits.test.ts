import { spendOnCalls } from '../support/ledger';
import { customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { decryptedHistory } from '../../dev/temporalHistory';
import { useSuite } from '../support/suite';

/**
 * Holds and the maximum duration are enforced while a turn is in progress (security review M1):
 * a caller who talks every half second on a hosted line, with a model slow enough that a turn
 * is always pending when the next sentence arrives, is still cut at the maximum duration and at
 * a refused extension, and is never charged more than was held.
 */
describe('call limits while the caller keeps talking', () => {
  const ctx = useSuite({ worker: true });
  const { h, tenant } = ctx;
  beforeEach(async () => {
    await sim.model.reset();
    // Every reply streams slowly: each turn is still being answered when the next sentence comes.
    await sim.model.setTokenDelay(400);
  });
  afterEach(async () => {
    await sim.model.setTokenDelay(0);
  });

  const { lines, calls, settings } = customer(ctx, { line: () => ({ name: 'Desk', mode: 'hosted', system_prompt: 'You are a desk.' }) });
  const sim = simulator(ctx);

  /** The caller says something every ~500 ms until the carrier says the call is no longer answered. */
  async function chatter(id: string, giveUpAfter: number): Promise<number> {
    await calls.untilStatus(id, ['in_progress'], 20_000);
    let said = 0;
    for (; said < giveUpAfter; said += 1) {
      const res = await sim.calls.say(id, `Tell me more, part ${said}`);
      if (res.status !== 202) break;
      await new Promise((resolve) => setTimeout(resolve, 500)); // pacing: a caller who talks every half second
    }
    return said;
  }

  async function expectSettledWithinHold(id: string) {
    const call = await calls.untilStatus(id, ['completed'], 30_000);
    const hold = await h
      .db('spend_holds')
      .where({ reference: `call:${id}` })
      .first();
    expect(hold.status).toBe('settled');
    expect(call.charge_cents).toBeLessThanOrEqual(Number(hold.amount_cents));
    const charges = await h.db('ledger_transactions').where({ idempotency_ref: `call:${id}:settle` });
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amount_cents)).toBe(-call.charge_cents!);
    return call;
  }

  it('is cut at the maximum duration', async () => {
    const line = await lines.create();
    const placed = await calls.placeConversation({
      line_id: line.id,
      to_number: '+14155552671',
      topic: 'the weather',
      max_duration_seconds: 10,
    });
    expect(placed.status).toBe(201);
    const id = placed.body.call.id as string;
    const said = await chatter(id, 120);
    expect(said).toBeLessThan(120);
    const call = await expectSettledWithinHold(id);
    expect(call.end_cause).toBe('max_duration');
    // The model was still being asked when the next sentence came: turns were pending throughout. How many turns fit in
    // the 10 s depends on the machine's load (3 on a loaded CI runner, many more on a quiet one).
    const requests = await sim.model.requests();
    expect(requests.filter((r) => r.disconnected).length).toBeGreaterThan(1);

    // The history grows by each turn's own entries: no whole transcript, no system prompt per turn.
    const history = await decryptedHistory(h.temporal, id);
    const scheduled = history.events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    const inputs = (attributes: (typeof scheduled)[number]) =>
      (attributes.input?.payloads ?? []).map((payload) => JSON.parse(Buffer.from(payload.data!).toString()));
    expect(scheduled.map((a) => a.activityType?.name)).not.toContain('recordTranscript');
    const hostedTurns = scheduled.filter((a) => a.activityType?.name === 'takeHostedTurn');
    expect(hostedTurns.length).toBeGreaterThan(1);
    for (const turn of hostedTurns) expect(JSON.stringify(inputs(turn))).not.toContain('courteous voice agent');
    for (const append of scheduled.filter((a) => a.activityType?.name === 'appendTranscript'))
      expect(inputs(append)[1].length).toBeLessThanOrEqual(2);
  }, 90_000);

  it('is cut when the next minute cannot be held, and charged no more than the minute held', async () => {
    await settings.update({ auto_recharge_enabled: false });
    // 40 cents: the first hosted minute (26) is held, the second (52 in all) is not.
    await spendOnCalls(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, 460);
    const line = await lines.create();
    const placed = await calls.place(line.id, '+14155552672');
    expect(placed.status).toBe(201);
    const id = placed.body.call.id as string;
    const said = await chatter(id, 300);
    expect(said).toBeLessThan(300);
    const call = await expectSettledWithinHold(id);
    expect(call.end_cause).toBe('insufficient_funds');
    expect(call.charge_cents).toBeLessThanOrEqual(26);
  }, 150_000);
});
