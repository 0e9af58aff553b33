import crypto from 'node:crypto';
import { callHold, spendOnCalls } from '../support/ledger';
import { ratePerMinuteCents } from '../../src/domain/billing/pricing';
import { runCommand } from '../../src/main/cli';
import { eventually, webhookLine } from '../support/harness';
import { CALLEE as TO, customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/** Outbound calls through the API, the call workflow and the carrier simulator. */
describe('calls', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  const { lines, calls, consent, agentKeys } = customer(ctx, {
    line: () => webhookLine({ webhook_url: ctx.receiver.url, status_callback_url: ctx.receiver.url }),
  });
  const sim = simulator(ctx);

  it('dials, connects, and on hang-up settles the exact per-second charge once', async () => {
    const line = await lines.create();
    const placed = await calls.place(line.id);
    expect(placed.status).toBe(201);
    expect(placed.body.call).toMatchObject({
      line_id: line.id,
      direction: 'outbound',
      from_number: line.phone_number,
      to_number: TO,
      status: 'initiated',
    });
    const id = placed.body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    // pacing: the one wall-clock charge (exact charges by length are in callWorkflowTimeSkipping.test.ts)
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const hung = await calls.hangUp(id);
    expect(hung.status).toBe(200);
    expect(hung.body.call).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });
    const call = hung.body.call;
    expect(call.duration_sec).toBeGreaterThanOrEqual(1);
    // Zone A webhook: ceil(13 * seconds / 60) cents, one rounding per call.
    expect(call.charge_cents).toBe(Math.ceil((13 * call.duration_sec!) / 60));
    const charges = await h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, type: 'call_charge' });
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amount_cents)).toBe(-call.charge_cents!);
    expect(await callHold(h.db, id)).toMatchObject({ status: 'settled' });

    // The customer hears about it: status callback, call_started and call_ended, each signed, once.
    const types = async () => receiver.requests.map((r) => r.body.event);
    await eventually(async () => ((await types()).includes('call_ended') ? true : undefined));
    expect((await types()).sort()).toEqual(['call_ended', 'call_outgoing', 'call_started']);
    const ended = receiver.requests.find((r) => r.body.event === 'call_ended')!;
    expect(ended.body).toMatchObject({ call_id: id, line_id: line.id, duration_sec: call.duration_sec, cause: 'api_hangup' });
    const outgoing = receiver.requests.find((r) => r.body.event === 'call_outgoing')!;
    expect(outgoing.body).toMatchObject({ call_id: id, to_number: TO });
  });

  it('a recording line gets a recording URL for its call; others do not', async () => {
    const recorded = await lines.create({ recording_enabled: true });
    const id = (await calls.place(recorded.id)).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // pacing: the recording holds over half a second of audio
    const call = (await calls.hangUp(id)).body.call;
    // Switchboard's own URL, read with the key (the carrier's stays behind it).
    expect(call.recording_url).toBe(`${h.apiUrl}/api/v1/calls/${id}/recording`);
    expect((await h.db('calls').where({ id }).first()).recording_url).toMatch(/\/recordings\/.+\.wav$/);
    const wav = Buffer.from(
      await (await fetch(call.recording_url!, { headers: { authorization: `Bearer ${tenant.keys.test}` } })).arrayBuffer(),
    );
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect(wav.subarray(8, 12).toString()).toBe('WAVE');
    expect(wav.length).toBeGreaterThan(8000); // over half a second of 8 kHz 16-bit audio

    const plain = await lines.create();
    const other = (await calls.place(plain.id, '+14155552676')).body.call.id;
    await calls.untilStatus(other, ['in_progress']);
    expect((await calls.hangUp(other)).body.call.recording_url).toBeNull();
  });

  it.each([
    // A British mobile: zone B, and open at the suite's calling-hours instant (20:30 in Paris is past France's 20:00).
    ['hosted', 'B', '+447400123456', 52],
    ['audio', 'C', '+5511912345678', 27],
  ] as const)('settles a %s call to zone %s (%s) at %i cents a minute, per second', async (mode, zone, to, rate) => {
    const fields =
      mode === 'hosted'
        ? { mode, system_prompt: 'Be brief', webhook_url: null }
        : { mode, audio_handler_url: 'wss://audio.example.test/stream', webhook_url: null };
    const line = await lines.create(fields);
    const id = (await calls.place(line.id, to)).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    const call = (await calls.hangUp(id)).body.call;
    expect(call.status).toBe('completed');
    // The destination's zone reached billing: the first minute held is the zone's rate (the exact
    // charge of a call's length at each rate: callWorkflowTimeSkipping.test.ts).
    expect(ratePerMinuteCents(mode, zone)).toBe(rate);
    expect(await callHold(h.db, id)).toEqual({ status: 'settled', amountCents: rate });
    expect(call.charge_cents).toBe(Math.ceil((rate * call.duration_sec!) / 60));
    const [charge] = await h.db('ledger_transactions').where({ idempotency_ref: `call:${id}:settle` });
    expect(Number(charge.amount_cents)).toBe(-call.charge_cents!);
  });

  it('ends when the callee hangs up', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    const res = await sim.calls.hangUp(id);
    expect(res.status).toBe(200);
    const call = await calls.untilStatus(id, ['completed']);
    expect(call.end_cause).toBe('caller_hangup');
  });

  it.each([
    ['busy', 'busy'],
    ['no_answer', 'no_answer'],
    ['fail', 'failed'],
  ] as const)('a %s destination ends %s, with nothing charged and the hold released', async (outcome, status) => {
    const line = await lines.create();
    const to = `+1415555${3000 + Math.floor(Math.random() * 999)}`;
    await sim.calls.setOutcome(to, outcome, 100);
    const id = (await calls.place(line.id, to)).body.call.id;
    const call = await calls.untilStatus(id, [status]);
    expect(call).toMatchObject({ duration_sec: 0, charge_cents: 0 });
    expect(await callHold(h.db, id)).toMatchObject({ status: 'settled' });
    expect(await h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, type: 'call_charge' })).toHaveLength(0);
  });

  it('releasing the line hangs up its active call', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    expect((await lines.release(line.id)).status).toBe(200);
    const call = await calls.untilStatus(id, ['completed']);
    expect(call.end_cause).toBe('api_hangup');
  });

  // The ring timeout (30 s unanswered: hung up, no_answer, free) and a next minute the balance cannot
  // hold (insufficient_funds, charged no more than held) are timed in callWorkflowTimeSkipping.test.ts;
  // callLimits.test.ts runs out a real balance end to end.
  it('a hang-up while ringing cancels the call, and the carrier ends it', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id, '+14155550142')).body.call.id; // reserved range: never connects
    await calls.untilStatus(id, ['ringing']);
    const hung = await calls.hangUp(id);
    expect(hung.body.call).toMatchObject({ status: 'canceled', charge_cents: 0 });
    await eventually(async () => ((await sim.calls.find(id))?.state === 'ended' ? true : undefined), 20_000, 'the carrier to end it');
  });

  describe('inbound', () => {
    const CALLER = '+14155553333';

    it('a call to a line is answered, announced, and settled when the caller hangs up', async () => {
      const line = await lines.create();
      expect((await sim.calls.ring(CALLER, line.phone_number)).status).toBe(201);
      const row = await calls.untilInboundRow(line.id);
      const call = await calls.untilStatus(row.id, ['in_progress']);
      expect(call).toMatchObject({ direction: 'inbound', from_number: '+14155553333', to_number: line.phone_number });
      await sim.calls.hangUp(row.id);
      const ended = await calls.untilStatus(row.id, ['completed']);
      expect(ended.end_cause).toBe('caller_hangup');
      // Held and charged at the inbound zone A webhook rate.
      expect(await callHold(h.db, row.id)).toEqual({ status: 'settled', amountCents: 13 });
      expect(ended.charge_cents).toBe(Math.ceil((13 * ended.duration_sec!) / 60));
      await eventually(async () => (receiver.requests.some((r) => r.body.event === 'call_ended') ? true : undefined));
      expect(receiver.requests.map((r) => r.body.event).sort()).toEqual(['call_ended', 'call_incoming', 'call_started']);
      expect(receiver.requests.find((r) => r.body.event === 'call_incoming')!.body).toMatchObject({
        call_id: row.id,
        from_number: '+14155553333',
        relay_url: null,
      });
      // Carrier-initiated: no actor key, so it never appears in an agent's audit feed.
      expect(row.actor_key_id).toBeNull();
    });

    it('a call to a number no active line owns is rejected by the carrier', async () => {
      const nobodys = '+16505559876'; // area code 650: the simulator never gives it to a line
      const rang = await sim.calls.ring(CALLER, nobodys);
      expect(rang.status).toBe(201);
      const carrierCallId = rang.body.carrier_call_id;
      const call = await eventually(async () => {
        const current = await sim.calls.findByCarrierId(carrierCallId);
        return current?.state === 'ended' ? current : undefined;
      });
      // Declined at once (Switchboard answered the announcement 404), never answered, and not
      // given up after the 30 s ring ("unanswered"), which the wait above is too short to reach.
      expect(call).toMatchObject({
        direction: 'inbound',
        from: CALLER,
        to: nobodys,
        state: 'ended',
        outcome: 'rejected',
        call_id: null,
        answered_at: null,
        requests: 0,
      });
      // Nobody's call: no row for it in any workspace.
      expect(await h.db('calls').where({ carrier_call_id: carrierCallId })).toHaveLength(0);
      expect(await h.db('calls').where({ to_number: nobodys })).toHaveLength(0);
    });

    it('a workspace that cannot cover the first minute does not answer', async () => {
      const line = await lines.create();
      await spendOnCalls(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, 495);
      await sim.calls.ring(CALLER, line.phone_number);
      const row = await calls.untilInboundRow(line.id);
      const call = await calls.untilStatus(row.id, ['failed']);
      expect(call).toMatchObject({ end_cause: 'insufficient_funds', charge_cents: 0 });
    });
  });

  describe('refusals, in order', () => {
    it('422 for a bad number, 404 for an unknown line', async () => {
      const line = await lines.create();
      expect((await calls.place(line.id, 'not-a-number')).status).toBe(422);
      expect((await calls.place(crypto.randomUUID())).status).toBe(404);
    });

    it('line_no_webhook for a webhook line without a URL', async () => {
      const line = await lines.create();
      await lines.update(line.id, { webhook_url: null });
      const res = await calls.place(line.id);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('line_no_webhook');
    });

    it('number_opted_out before consent_required', async () => {
      const line = await lines.create({ compliance_enabled: true });
      await runCommand(h.db, ['opt-out', 'add'], { workspace: tenant.workspaceId, env: 'test', number: TO });
      const res = await calls.place(line.id);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('number_opted_out');
    });

    it('consent_required only on compliance-enabled lines; an explicit consent lets the call through', async () => {
      const strict = await lines.create({ compliance_enabled: true });
      const refused = await calls.place(strict.id);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('consent_required');
      await consent.record(strict.id, TO, 'implied_inbound');
      expect((await calls.place(strict.id)).body.error.code).toBe('consent_required');
      await consent.record(strict.id, TO, 'explicit_outbound');
      const allowed = await calls.place(strict.id);
      expect(allowed.status).toBe(201);
      await calls.hangUp(allowed.body.call.id);
      // compliance_enabled false: nothing is checked.
      const lax = await lines.create();
      const lenient = await calls.place(lax.id, '+14155552672');
      expect(lenient.status).toBe(201);
      await calls.hangUp(lenient.body.call.id);
    });

    it('call_in_progress: one active call per line', async () => {
      const line = await lines.create();
      const first = await calls.place(line.id);
      const [second, third] = await Promise.all([calls.place(line.id, '+14155552673'), calls.place(line.id, '+14155552674')]);
      expect([second.status, third.status]).toEqual([409, 409]);
      expect(second.body.error.code).toBe('call_in_progress');
      await calls.hangUp(first.body.call.id);
      expect((await calls.place(line.id, '+14155552675')).status).toBe(201);
    });

    it('m3_fraud_block for a premium-rate destination without a payment method, with no details', async () => {
      const line = await lines.create();
      const res = await calls.place(line.id, '+19005550123');
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'm3_fraud_block', message: expect.any(String) });
      expect(await h.db('calls').where({ line_id: line.id })).toHaveLength(0);
    });

    it('agent_cap_exceeded when the key’s cap cannot cover the one-minute reserve', async () => {
      const line = await lines.create();
      const agent = (await agentKeys.create({ name: 'a', monthly_cap_cents: 10 })).body.key;
      const res = await calls.place(line.id, TO, agent.plaintext_key);
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('agent_cap_exceeded');
      expect(res.body.error.details!.map((d) => d.field)).toEqual(['spent_cents', 'cap_cents', 'cycle_reset_at']);
    });

    it('insufficient_credits below the one-minute reserve (zone C hosted costs 78 cents)', async () => {
      const line = await lines.create({ mode: 'hosted', system_prompt: 'Be kind', webhook_url: null });
      await spendOnCalls(h.db, { workspaceId: tenant.workspaceId, environment: 'test' }, 450);
      const res = await calls.place(line.id, '+5511912345678');
      expect(res.status).toBe(402);
      expect(res.body.error).toMatchObject({
        code: 'insufficient_credits',
        details: [
          { field: 'available_cents', message: '50' },
          { field: 'required_cents', message: '78' },
        ],
      });
      // The cheaper zone A reserve (26 cents hosted) still fits.
      expect((await calls.place(line.id)).status).toBe(201);
    });

    it('a call_only key may place calls; a read_only key may not', async () => {
      const line = await lines.create();
      const readOnly = (await agentKeys.create({ name: 'r', permissions: 'read_only' })).body.key;
      const res = await calls.place(line.id, TO, readOnly.plaintext_key);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'agent_permission_denied',
        details: [
          { field: 'tier', message: 'read_only' },
          { field: 'verb', message: 'call' },
        ],
      });
      expect(await h.db('calls').where({ line_id: line.id })).toHaveLength(0);

      const callOnly = await agentKeys.create({ name: 'c', permissions: 'call_only' });
      expect(callOnly.status).toBe(201);
      expect(callOnly.body.key.permissions).toBe('call_only');
      const placed = await calls.place(line.id, TO, callOnly.body.key.plaintext_key);
      expect(placed.status).toBe(201);
      expect(placed.body.call).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        line_id: line.id,
        direction: 'outbound',
        to_number: TO,
        status: 'initiated',
      });
      // The call is the key's: it is recorded as its actor, and it can be read back.
      expect(await h.db('calls').where({ id: placed.body.call.id }).first()).toMatchObject({ actor_key_id: callOnly.body.key.id });
      expect((await calls.get(placed.body.call.id)).id).toBe(placed.body.call.id);
      await calls.hangUp(placed.body.call.id);
    });
  });

  it('lists calls with filters, 404s across tenants, and shows calls in the agent audit feed', async () => {
    const line = await lines.create();
    const agent = (await agentKeys.create({ name: 'a' })).body.key;
    const id = (await calls.place(line.id, TO, agent.plaintext_key)).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    await calls.hangUp(id);
    const list = await calls.list(`?line_id=${line.id}&status=completed`);
    expect(list.body).toMatchObject({ total: 1, calls: [{ id }] });
    expect((await calls.list('?status=ringing')).body.total).toBe(0);
    const other = await calls.fetch(id, tenant.keys.live);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('call_not_found');
    const feed = await h.request('GET', '/api/v1/audit?event_types=call', { key: agent.plaintext_key });
    expect(feed.body.events).toMatchObject([{ type: 'call', id, data: { to_number: TO, line_id: line.id, status: 'completed' } }]);
  });
});
