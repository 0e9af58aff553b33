import { customer } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * A line takes one call at a time. A call that rings just after the line's previous call ended is
 * answered (the previous call may still be settling); a call to a line that really is on a call is
 * refused, and leaves a record and an event (issue 29, from the MCP walk: it used to vanish).
 */
describe('inbound calls to a line that is, or was just, on a call', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const sim = simulator(ctx);

  it('a call ringing right after the caller hung up the previous one is answered', async () => {
    const line = await lines.create();
    const first = (await sim.calls.ring('+14155553301', line.phone_number)).body.carrier_call_id;
    const firstRow = await calls.untilInboundRow(line.id);
    await calls.untilStatus(firstRow.id, ['in_progress']);
    // The caller hangs up and calls straight back, while the first call is still being settled.
    await sim.calls.hangUp(firstRow.id);
    const second = (await sim.calls.ring('+14155553301', line.phone_number)).body.carrier_call_id;
    const secondRow = await eventually(async () => (await h.db('calls').where({ carrier_call_id: second }).first()) ?? undefined);
    expect(await calls.untilStatus(secondRow.id, ['in_progress'])).toMatchObject({ direction: 'inbound', status: 'in_progress' });
    expect((await sim.calls.findByCarrierId(second))?.outcome).not.toBe('rejected');
    expect((await calls.get(firstRow.id)).status).toBe('completed');
    expect(first).not.toBe(second);
    await sim.calls.hangUp(secondRow.id);
  });

  it('a call to a line that is on a call is refused, and is recorded as missed with a call_missed event', async () => {
    const line = await lines.create();
    await sim.calls.ring('+14155553302', line.phone_number);
    const busy = await calls.untilInboundRow(line.id);
    await calls.untilStatus(busy.id, ['in_progress']);

    const missed = (await sim.calls.ring('+14155553303', line.phone_number)).body.carrier_call_id;
    const carrierRecord = await eventually(async () => {
      const record = await sim.calls.findByCarrierId(missed);
      return record?.state === 'ended' ? record : undefined;
    });
    expect(carrierRecord).toMatchObject({ outcome: 'rejected', answered_at: null });
    const row = await h.db('calls').where({ carrier_call_id: missed }).first();
    const record = await calls.get(row.id);
    expect(record).toMatchObject({
      direction: 'inbound',
      from_number: '+14155553303',
      to_number: line.phone_number,
      status: 'busy',
      end_cause: 'line_busy',
      duration_sec: 0,
      charge_cents: 0,
      started_at: null,
    });
    const event = await eventually(async () => receiver.requests.find((r) => r.body.event === 'call_missed'));
    expect(event.body).toMatchObject({
      call_id: row.id,
      from_number: '+14155553303',
      to_number: line.phone_number,
      reason: 'line_busy',
      active_call_id: busy.id,
    });
    // Nothing held or charged for it, and the call in progress goes on.
    expect(await h.db('spend_holds').where({ reference: `call:${row.id}` })).toHaveLength(0);
    expect((await calls.get(busy.id)).status).toBe('in_progress');
    await sim.calls.hangUp(busy.id);
  });
});
