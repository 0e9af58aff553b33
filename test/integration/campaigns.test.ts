import { createTenant, eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';
import { until } from '../support/waits';
import { calleeNumbers, campaignCalls as campaignCallsOf } from '../support/campaigns';
import { signalledCarrierEvents } from '../support/callWorkflow';

interface CampaignRecord {
  id: string;
  status: string;
  paused_reason: string | null;
  progress: Record<string, number>;
  line_ids: string[];
  max_concurrency: number;
  calls_per_minute: number;
}
interface ContactResult {
  id: string;
  row: number;
  to_number: string;
  status: string;
  outcome: string | null;
  skip_reason: string | null;
  attempts: number;
  call_ids: string[];
  duration_sec: number;
  charge_cents: number;
  metadata: Record<string, string>;
}

const VOICEMAIL = 'Hello, this is Dr. Lee’s office reminding you of your appointment tomorrow at nine. Call us back to change it.';

/** Numbers of this file's own, each handed out once (the simulator's outcomes are set per destination). */
const freshNumbers = calleeNumbers('+1415555');

/**
 * Campaigns through the public API on the carrier simulator (issue 31, items 2-3): the contacts'
 * callees answer, are busy, do not answer, or are machines, as the simulator is told per number;
 * the callees hang up answered calls (as people do) so the pool's lines free up.
 */
describe('campaigns', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant } = ctx;
  const { lines } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const sim = simulator(ctx);

  const post = (body: unknown, key = tenant.keys.test) => h.request('POST', '/api/v1/campaigns', { key, body });
  const get = (path: string, key = tenant.keys.test) => h.request('GET', path, { key });

  const campaignCalls = (campaignId: string) => campaignCallsOf(h.db, campaignId);

  /**
   * Plays the callees until the campaign ends: hangs up each answered call (answering machines listen
   * on), and calls `onEnded` for each call that ended. Answers once the campaign's status is one of `statuses`.
   */
  async function playCallees(
    campaignId: string,
    statuses: string[],
    { onEnded = () => {}, machines = [] }: { onEnded?: (call: { to_number: string; status: string }) => void; machines?: string[] } = {},
  ) {
    const seen = new Set<string>();
    let progress = '';
    await until(
      async () => {
        for (const call of await campaignCalls(campaignId)) {
          if (call.status === 'in_progress' && !machines.includes(call.to_number)) h.simulator.state.calls.hangUpByCaller(call.id);
          else if (!['initiated', 'ringing'].includes(call.status) && !seen.has(call.id)) {
            seen.add(call.id);
            onEnded(call);
          }
        }
        const row = await h.db('campaigns').where({ id: campaignId }).first('status');
        progress = JSON.stringify(
          await h
            .db('campaign_contacts')
            .where({ campaign_id: campaignId })
            .groupBy('status', 'outcome')
            .select('status', 'outcome')
            .count(),
        );
        return statuses.includes(row.status);
      },
      `campaign ${campaignId} to reach ${statuses.join('/')}`,
      { timeoutMs: 150_000, intervalMs: 100, detail: () => progress },
    );
  }

  async function allResults(campaignId: string): Promise<ContactResult[]> {
    const results: ContactResult[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/v1/campaigns/${campaignId}/results?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      results.push(...res.body.results);
      cursor = res.body.next_cursor;
    } while (cursor);
    return results;
  }

  it('a campaign of 50 contacts ends with each contact’s outcome as its callee made it, none called twice, skips recorded', async () => {
    const pool = await Promise.all([lines.create(), lines.create(), lines.create(), lines.create(), lines.create()]);
    const numbers = freshNumbers(48);
    const busyThenAnswer = numbers.slice(0, 3);
    const neverAnswer = numbers.slice(3, 6);
    const machines = numbers.slice(6, 8);
    const optedOut = numbers[8];
    const answering = numbers.slice(8);
    for (const to of busyThenAnswer) await sim.calls.setOutcome(to, 'busy');
    for (const to of neverAnswer) await sim.calls.setOutcome(to, 'no_answer');
    for (const to of machines) await sim.calls.setOutcome(to, 'answer', undefined, 'machine');
    // The callee texted STOP to the first pool line: the workspace's opt-out list has them.
    await sim.messages.inbound(optedOut, pool[0].phone_number, 'STOP');
    await eventually(
      async () => (await h.db('opt_outs').where({ workspace_id: tenant.workspaceId, phone_number: optedOut }).first()) ?? undefined,
    );

    const contacts = [
      ...numbers.map((to, index) => ({ to_number: to, metadata: { ref: `c${index}` } })),
      { to_number: 'not a number' },
      { to_number: numbers[10] },
    ];
    const created = await post({
      name: 'Appointment reminders',
      line_ids: pool.map((line) => line.id),
      contacts,
      answering_machine: { action: 'voicemail', voicemail_message: VOICEMAIL },
      calls_per_minute: 600,
      retry: { max_attempts: 2, backoff_seconds: 1, on: ['busy', 'no_answer'] },
    });
    expect(created.status).toBe(201);
    const campaign = created.body.campaign as CampaignRecord;
    expect(campaign).toMatchObject({ status: expect.stringMatching(/^(scheduled|running)$/), max_concurrency: 5, calls_per_minute: 600 });
    expect(campaign.progress.total).toBe(50);

    await playCallees(campaign.id, ['completed'], {
      machines,
      // The busy callees pick up when called again.
      onEnded: (call) => {
        if (call.status === 'busy' && busyThenAnswer.includes(call.to_number)) void sim.calls.setOutcome(call.to_number, 'answer');
      },
    });

    const results = await allResults(campaign.id);
    expect(results.map((r) => r.row)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const byNumber = (to: string) => results.filter((r) => r.to_number === to);
    for (const to of busyThenAnswer) expect(byNumber(to)[0]).toMatchObject({ status: 'done', outcome: 'answered', attempts: 2 });
    for (const to of neverAnswer) expect(byNumber(to)[0]).toMatchObject({ status: 'done', outcome: 'no_answer', attempts: 2 });
    // The machines heard the voicemail message to its end, and nothing else, from the end of their greeting (the
    // beep) on, so they recorded it whole; then the call was hung up.
    for (const to of machines) {
      const [result] = byNumber(to);
      expect(result).toMatchObject({ status: 'done', outcome: 'voicemail', attempts: 1 });
      const heard = await sim.calls.speech(result.call_ids[0]);
      expect(heard.map((s) => [s.text, s.state])).toEqual([[VOICEMAIL, 'done']]);
      const { greeting_ended_at: greetingEndedAt } = (await sim.calls.find(result.call_ids[0]))!;
      expect(Date.parse(heard[0].started_at!)).toBeGreaterThanOrEqual(Date.parse(greetingEndedAt!));
      const call = await get(`/api/v1/calls/${result.call_ids[0]}`);
      expect(call.body.call.transcript).toEqual([expect.objectContaining({ role: 'assistant', text: VOICEMAIL })]);
      expect((await campaignCalls(campaign.id)).find((c) => c.id === result.call_ids[0])).toMatchObject({
        status: 'completed',
        answered_by: 'machine',
        end_cause: 'answering_machine',
      });
    }
    expect(byNumber(optedOut)[0]).toMatchObject({ outcome: 'skipped', skip_reason: 'opted_out', attempts: 0, call_ids: [] });
    expect(results[48]).toMatchObject({
      row: 49,
      to_number: 'not a number',
      outcome: 'skipped',
      skip_reason: 'invalid_number',
      attempts: 0,
    });
    expect(results[49]).toMatchObject({ row: 50, outcome: 'skipped', skip_reason: 'duplicate_number', attempts: 0 });
    for (const to of answering.slice(1)) {
      const [result] = byNumber(to);
      expect(result).toMatchObject({ status: 'done', outcome: 'answered', attempts: 1 });
      expect(result.metadata).toEqual({ ref: `c${numbers.indexOf(to)}` });
    }

    // Exactly one call per attempt, each its own, and the carrier saw exactly those dials.
    const calls = await campaignCalls(campaign.id);
    const attempts = results.reduce((sum, r) => sum + r.attempts, 0);
    expect(calls).toHaveLength(attempts);
    expect(new Set(results.flatMap((r) => r.call_ids)).size).toBe(attempts);
    const dialled = (await sim.calls.list()).filter((c) => c.call_id && calls.some((call) => call.id === c.call_id));
    expect(dialled).toHaveLength(attempts);
    for (const result of results)
      expect(calls.filter((c) => c.to_number === result.to_number && result.attempts > 0)).toHaveLength(result.attempts);

    const final = (await get(`/api/v1/campaigns/${campaign.id}`)).body.campaign as CampaignRecord;
    expect(final.status).toBe('completed');
    expect(final.progress).toMatchObject({
      total: 50,
      pending: 0,
      dialing: 0,
      done: 50,
      answered: 42,
      no_answer: 3,
      voicemail: 2,
      skipped: 3,
    });
  }, 180_000);

  it('a voicemail campaign’s call that a fax answers hangs up at once: no message, no wait for a greeting, outcome machine', async () => {
    const line = await lines.create();
    const [fax] = freshNumbers(1);
    await sim.calls.setOutcome(fax, 'answer', undefined, 'fax');
    const created = await post({
      line_ids: [line.id],
      contacts: [{ to_number: fax }],
      answering_machine: { action: 'voicemail', voicemail_message: VOICEMAIL },
    });
    expect(created.status).toBe(201);
    const campaignId = created.body.campaign.id as string;
    // No callee is played: the call must end on its own.
    await until(
      async () => (await h.db('campaigns').where({ id: campaignId }).first('status')).status === 'completed',
      'the campaign to complete',
      {
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );

    // A fax takes no message: the contact's outcome is a machine's, not a voicemail left (docs/decisions/campaigns.md).
    const [result] = await allResults(campaignId);
    expect(result).toMatchObject({ status: 'done', outcome: 'machine', attempts: 1 });
    const callId = result.call_ids[0];
    const call = (await get(`/api/v1/calls/${callId}`)).body.call;
    expect(call).toMatchObject({ status: 'completed', answered_by: 'machine', end_cause: 'answering_machine', transcript: null });
    // Nothing was said to it, and it was hung up well within the 30 s a machine's greeting end is waited for.
    expect(await sim.calls.speech(callId)).toEqual([]);
    const carrierCall = (await sim.calls.find(callId))!;
    expect(carrierCall).toMatchObject({ answered_by: 'machine', machine_kind: 'fax', greeting_ended_at: null, state: 'ended' });
    expect(Date.parse(carrierCall.ended_at!) - Date.parse(carrierCall.answered_at!)).toBeLessThan(10_000);
    expect(call.duration_sec).toBeLessThan(10);
    expect((await get(`/api/v1/campaigns/${campaignId}`)).body.campaign.progress).toMatchObject({
      total: 1,
      done: 1,
      machine: 1,
      voicemail: 0,
    });
  }, 90_000);

  it('a worker stopped mid-campaign and started again: every contact called exactly once, none lost', async () => {
    const pool = await Promise.all([lines.create(), lines.create()]);
    const numbers = freshNumbers(12);
    const created = await post({
      line_ids: pool.map((line) => line.id),
      contacts: numbers.map((to) => ({ to_number: to })),
      calls_per_minute: 600,
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as string;
    // Stopped while calls of the campaign are in flight (some answered, more to come).
    await eventually(async () => {
      const calls = await campaignCalls(id);
      for (const call of calls) if (call.status === 'in_progress') h.simulator.state.calls.hangUpByCaller(call.id);
      return calls.length >= 4 ? true : undefined;
    });
    await h.stopWorker();
    await h.startWorker();
    await playCallees(id, ['completed']);

    const results = await allResults(id);
    // A contact not answered says why (seen once in a loaded full run, as `no_answer`): its call's end as Switchboard
    // recorded it, the carrier's record of it, and the carrier events its workflow was signalled, in order.
    const unanswered = await Promise.all(
      results
        .filter((r) => r.outcome !== 'answered')
        .flatMap((r) => r.call_ids)
        .map(async (callId: string) => ({
          call: await h.db('calls').where({ id: callId }).first('status', 'end_cause', 'created_at', 'answered_at', 'ended_at'),
          carrier: await sim.calls.find(callId),
          signalled: await signalledCarrierEvents(h.temporal, callId),
        })),
    );
    expect({ outcomes: results.map((r) => [r.outcome, r.attempts]), unanswered }).toEqual({
      outcomes: numbers.map(() => ['answered', 1]),
      unanswered: [],
    });
    const calls = await campaignCalls(id);
    expect(calls.map((c) => c.to_number).sort()).toEqual([...numbers].sort());
    const dialled = (await sim.calls.list()).filter((c) => calls.some((call) => call.id === c.call_id));
    expect(dialled).toHaveLength(numbers.length);
  }, 120_000);

  it('pause stops new dials until resumed; cancel ends the waiting contacts as cancelled', async () => {
    const line = await lines.create();
    const numbers = freshNumbers(6);
    const created = await post({ line_ids: [line.id], contacts: numbers.map((to) => ({ to_number: to })), calls_per_minute: 600 });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as string;

    // The first call is answered and held while the campaign is paused.
    const first = await eventually(async () => (await campaignCalls(id)).find((c) => c.status === 'in_progress'));
    const paused = await h.request('POST', `/api/v1/campaigns/${id}/pause`, { key: tenant.keys.test });
    expect(paused.status).toBe(200);
    expect(paused.body.campaign.status).toBe('paused');
    h.simulator.state.calls.hangUpByCaller(first.id);
    await eventually(async () =>
      (await h.db('campaign_contacts').where({ campaign_id: id, status: 'dialing' })).length === 0 ? true : undefined,
    );
    // Paused: the ended call's contact is done and no other was claimed (the dispatcher was woken by the call's end and saw the pause).
    const afterPause = await campaignCalls(id);
    expect(afterPause).toHaveLength(1);

    expect((await h.request('POST', `/api/v1/campaigns/${id}/resume`, { key: tenant.keys.test })).body.campaign.status).toBe('running');
    const second = await eventually(async () => (await campaignCalls(id)).find((c) => c.id !== first.id && c.status === 'in_progress'));
    const cancelled = await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key: tenant.keys.test });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.campaign.status).toBe('cancelled');
    h.simulator.state.calls.hangUpByCaller(second.id);
    await eventually(async () =>
      (await h.db('campaign_contacts').where({ campaign_id: id }).whereNot({ status: 'done' })).length === 0 ? true : undefined,
    );
    await h.temporal.workflow.getHandle(`campaign:${id}`).result();

    const results = await allResults(id);
    expect(results.map((r) => r.outcome)).toEqual(['answered', 'answered', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect(await campaignCalls(id)).toHaveLength(2);
    // The same results as CSV, one record per contact in list order.
    const csv = await get(`/api/v1/campaigns/${id}/results.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const records = csv.text.trimEnd().split('\r\n');
    expect(records[0]).toBe(
      'row,to_number,status,outcome,skip_reason,attempts,next_attempt_at,duration_sec,charge_cents,call_ids,variables,metadata',
    );
    expect(records.slice(1).map((record) => record.split(',').slice(0, 4))).toEqual(
      // A number starts with +, which a spreadsheet would read as a formula: the shared export rule prefixes an apostrophe.
      results.map((r) => [String(r.row), `'${r.to_number}`, 'done', r.outcome]),
    );
    expect(records[1].split(',')[9]).toBe(results[0].call_ids[0]);
    const again = await h.request('POST', `/api/v1/campaigns/${id}/resume`, { key: tenant.keys.test });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('campaign_ended');
  });

  it('a contact whose calling window is closed waits for it to open: no call, no attempt used', async () => {
    const line = await lines.create();
    // Tomorrow 03:30 UTC: 22:30 or 23:30 in New York, past the federal 21:00. Judged later than the worker's clock, so
    // the window's opening (that morning, Eastern) is still ahead and the contact waits for it.
    const night = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1, 3, 30));
    h.clock.callingHoursAt(night);
    try {
      const created = await post({ line_ids: [line.id], contacts: [{ to_number: '+12125550123' }], calls_per_minute: 600 });
      expect(created.status).toBe(201);
      const id = created.body.campaign.id as string;
      const waiting = await eventually(async () => {
        const contact = await h.db('campaign_contacts').where({ campaign_id: id }).first();
        return contact.status === 'pending' && contact.next_attempt_at > night ? contact : undefined;
      });
      expect(waiting.attempts).toBe(0);
      expect(waiting.next_attempt_at.getTime()).toBeLessThanOrEqual(night.getTime() + 24 * 3600_000);
      expect(await campaignCalls(id)).toEqual([]);
      expect((await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key: tenant.keys.test })).status).toBe(200);
    } finally {
      h.clock.callingHoursAt(null);
    }
  });

  it('another workspace’s campaign is 404 everywhere; settings beyond the limits are refused naming the field', async () => {
    const line = await lines.create();
    const created = await post({ line_ids: [line.id], contacts: [{ to_number: freshNumbers(1)[0] }], start_at: '2999-01-01T00:00:00Z' });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as string;
    expect(created.body.campaign.status).toBe('scheduled');

    const other = await createTenant(h.db);
    for (const path of [`/api/v1/campaigns/${id}`, `/api/v1/campaigns/${id}/results`]) {
      const res = await get(path, other.keys.test);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
    for (const action of ['pause', 'resume', 'cancel']) {
      const res = await h.request('POST', `/api/v1/campaigns/${id}/${action}`, { key: other.keys.test });
      expect({ action, status: res.status }).toEqual({ action, status: 404 });
    }
    expect((await get('/api/v1/campaigns', other.keys.test)).body.campaigns).toEqual([]);
    // Nor can it dial from this tenant's line.
    const foreign = await post({ line_ids: [line.id], contacts: [{ to_number: '+14155550100' }] }, other.keys.test);
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.details).toEqual([{ field: 'line_ids.0', message: expect.any(String) }]);

    const tooConcurrent = await post({ line_ids: [line.id], contacts: [{ to_number: '+14155550100' }], max_concurrency: 2 });
    expect(tooConcurrent.status).toBe(422);
    expect(tooConcurrent.body.error.details.map((d: { field: string }) => d.field)).toEqual(['max_concurrency']);
    // The scheduled campaign holds 60 of the workspace's 600 dials a minute.
    const tooFast = await post({ line_ids: [line.id], contacts: [{ to_number: '+14155550100' }], calls_per_minute: 600 });
    expect(tooFast.status).toBe(422);
    expect(tooFast.body.error.details).toEqual([{ field: 'calls_per_minute', message: expect.stringContaining('At most 540') }]);
    const badContact = await post({ line_ids: [line.id], contacts: [{ to_number: '+14155550100' }, { number: '+14155550101' }] });
    expect(badContact.status).toBe(422);
    expect(badContact.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'contacts.1.number',
      'contacts.1.to_number',
    ]);
    // A voicemail message goes with `voicemail` only, and `voicemail` needs one (stated in the document as if/then/else).
    for (const answering_machine of [{ action: 'voicemail' }, { action: 'hang_up', voicemail_message: 'Call us back.' }]) {
      const refused = await post({ line_ids: [line.id], contacts: [{ to_number: '+14155550100' }], answering_machine });
      expect({
        answering_machine,
        status: refused.status,
        fields: refused.body.error.details.map((d: { field: string }) => d.field),
      }).toEqual({
        answering_machine,
        status: 422,
        fields: ['answering_machine.voicemail_message'],
      });
    }

    expect((await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key: tenant.keys.test })).status).toBe(200);
  });
});
