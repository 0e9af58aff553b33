import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { campaignWebhooks } from '../../api/openapi/campaignRecords';
import { componentSchemas } from '../../api/openapi/schemas';
import { LazyTemporal, runCommand } from '../../src/main/cli';
import { dispatchCampaign } from '../../src/domain/campaigns/dispatch';
import { FUNDS_RECHECK_MS } from '../../src/domain/campaigns/rules';
import { sealingKeyOf } from '../../src/domain/lines/secrets';
import { verifySignature } from '../../src/domain/webhooks/signature';
import { createLogger } from '../../src/platform/logger';
import { egressPolicyFor } from '../../src/platform/net/egress';
import { eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { spendOnCalls } from '../support/ledger';
import type { ReceivedRequest } from '../support/receiver';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';
import { until, untilWorkflowSettled } from '../support/waits';
import { calleeNumbers, campaignCalls as campaignCallsOf } from '../support/campaigns';

/** Numbers of this file's own, each handed out once (the simulator's outcomes are set per destination). */
const freshNumbers = calleeNumbers('+1415556');

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
/** Each event's body as the OpenAPI document's `webhooks` states it. */
function expectDocumented(body: Record<string, unknown>) {
  const documented = campaignWebhooks[String(body.event)] as {
    post: { requestBody: { content: { 'application/json': { schema: object } } } };
  };
  const validate = ajv.compile({
    ...documented.post.requestBody.content['application/json'].schema,
    components: { schemas: componentSchemas },
  });
  expect({ event: body.event, valid: validate(body), errors: ajv.errorsText(validate.errors) }).toEqual({
    event: body.event,
    valid: true,
    errors: 'No errors',
  });
}

/**
 * A campaign's `campaign.*` webhook events, as its customer's endpoint receives them (issue 31):
 * one per change of its status and one per contact done, each once, in order, signed with the
 * first pool line's secret; a campaign that paused itself for funds resumes by itself once a payment
 * brings them back; and a machine answering a campaign's call that hangs up on machines.
 */
describe('campaign events', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant } = ctx;
  const { lines, settings } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const sim = simulator(ctx);
  const temporal = new LazyTemporal();
  afterAll(() => temporal.close());

  const post = (path: string, body?: unknown) => h.request('POST', path, { key: tenant.keys.test, body });

  /** The campaign's events received so far, in arrival order. */
  const eventsOf = (campaignId: string): ReceivedRequest[] =>
    ctx.receiver.requests.filter((r) => String(r.body.event).startsWith('campaign.') && r.body.campaign_id === campaignId);

  const campaignCalls = (campaignId: string) => campaignCallsOf(h.db, campaignId);

  /** As the callees: hangs up each answered call of the campaign (machines listen on) until `done`. */
  async function playCallees(campaignId: string, done: () => Promise<boolean>, machines: string[] = []) {
    await until(
      async () => {
        for (const call of await campaignCalls(campaignId))
          if (call.status === 'in_progress' && !machines.includes(call.to_number)) h.simulator.state.calls.hangUpByCaller(call.id);
        return done();
      },
      `campaign ${campaignId} to play out`,
      {
        timeoutMs: 60_000,
        intervalMs: 100,
        detail: () =>
          eventsOf(campaignId)
            .map((r) => r.body.event)
            .join(', '),
      },
    );
  }

  it('a small campaign: started, each contact done, completed, each once, in order and signed; a machine is hung up on, nothing spoken', async () => {
    const { line, webhookSecret } = await lines.createWithSecret();
    const [person, machine] = freshNumbers(2);
    await sim.calls.setOutcome(machine, 'answer', undefined, 'machine');
    const created = await post('/api/v1/campaigns', {
      name: 'Events',
      line_ids: [line.id],
      contacts: [
        { to_number: person, metadata: { ref: 'p' } },
        { to_number: machine, metadata: { ref: 'm' } },
        { to_number: 'not a number' },
      ],
      answering_machine: { action: 'hang_up' },
      calls_per_minute: 600,
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as string;
    await playCallees(id, async () => eventsOf(id).some((r) => r.body.event === 'campaign.completed'), [machine]);

    const events = eventsOf(id);
    expect(events.map((r) => r.body.event)).toEqual([
      'campaign.started',
      'campaign.contact_completed',
      'campaign.contact_completed',
      'campaign.completed',
    ]);
    // Each once: four events, four ids, each delivered once (the receiver answered 200).
    expect(new Set(events.map((r) => r.body.event_id)).size).toBe(4);
    for (const event of events) {
      expect(verifySignature({ secret: webhookSecret, headers: event.headers as Record<string, string>, rawBody: event.rawBody })).toEqual({
        valid: true,
      });
      expect(event.body).toMatchObject({ line_id: line.id, campaign_id: id, timestamp: expect.any(Number) });
      expectDocumented(event.body);
    }
    expect(events[0].body).toMatchObject({ name: 'Events', status: 'running', sequence: 1 });
    expect(events[3].body).toMatchObject({
      status: 'completed',
      sequence: 2,
      progress: { total: 3, done: 3, answered: 1, machine: 1, skipped: 1 },
    });
    const contacts = events.slice(1, 3).map((r) => r.body);
    const byRef = (ref: string) => contacts.find((c) => (c.metadata as Record<string, string>).ref === ref)!;
    const calls = await campaignCalls(id);
    expect(byRef('p')).toMatchObject({ to_number: person, status: 'done', outcome: 'answered', attempts: 1, skip_reason: null });
    expect(byRef('p').call_ids).toEqual([calls.find((c) => c.to_number === person)!.id]);
    // Item (c): the machine's call ended at once as answering_machine, and nothing was spoken to it.
    expect(byRef('m')).toMatchObject({ to_number: machine, outcome: 'machine', attempts: 1 });
    const machineCall = calls.find((c) => c.to_number === machine)!;
    expect(machineCall).toMatchObject({ status: 'completed', answered_by: 'machine', end_cause: 'answering_machine' });
    expect(await sim.calls.speech(machineCall.id)).toEqual([]);
    // The contact skipped at creation is in the results and the progress, not an event.
    expect(contacts.map((c) => c.row).sort()).toEqual([1, 2]);

    // The events of the other transitions, from an operator, on a campaign not yet started.
    const later = await post('/api/v1/campaigns', {
      line_ids: [line.id],
      contacts: [{ to_number: person }],
      start_at: '2999-01-01T00:00:00Z',
    });
    expect(later.status).toBe(201);
    const laterId = later.body.campaign.id as string;
    for (const action of ['pause', 'pause', 'resume', 'cancel'])
      expect((await post(`/api/v1/campaigns/${laterId}/${action}`)).status).toBe(200);
    await until(async () => eventsOf(laterId).length >= 3, 'the operator’s events');
    expect(eventsOf(laterId).map((r) => [r.body.event, r.body.sequence, r.body.paused_reason, r.body.resumed_by])).toEqual([
      ['campaign.paused', 1, null, undefined],
      ['campaign.resumed', 2, null, 'operator'],
      ['campaign.cancelled', 3, null, undefined],
    ]);
    expect(eventsOf(laterId)[2].body).toMatchObject({ status: 'cancelled', progress: { total: 1, cancelled: 1 } });
  }, 90_000);

  it('funds run out mid-campaign: it pauses itself, a payment brings them back, it resumes by itself and calls the rest', async () => {
    const pool = await Promise.all([lines.create(), lines.create()]);
    const numbers = freshNumbers(3);
    const account = { workspaceId: tenant.workspaceId, environment: 'test' as const };
    expect((await settings.update({ auto_recharge_enabled: true })).status).toBe(200);
    // Exactly one Zone A webhook call's one-minute reserve (13 cents) is left: the first dial holds it, the second is refused.
    const { balance_cents: balance } = await h
      .db('billing_accounts')
      .where({ workspace_id: tenant.workspaceId, environment: 'test' })
      .first();
    await spendOnCalls(h.db, account, Number(balance) - 13);

    const created = await post('/api/v1/campaigns', {
      line_ids: pool.map((line) => line.id),
      contacts: numbers.map((to) => ({ to_number: to })),
      calls_per_minute: 600,
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as string;
    const paused = await eventually(async () => eventsOf(id).find((r) => r.body.event === 'campaign.paused'));
    expect(paused.body).toMatchObject({ status: 'paused', paused_reason: 'insufficient_credits' });
    expect((await h.request('GET', `/api/v1/campaigns/${id}`, { key: tenant.keys.test })).body.campaign).toMatchObject({
      status: 'paused',
      paused_reason: 'insufficient_credits',
    });
    // The workspace's other spending takes what the call under way would leave; the call ends and its contact is done.
    await spendOnCalls(h.db, account, 13);
    await playCallees(id, async () => eventsOf(id).some((r) => r.body.event === 'campaign.contact_completed'));
    // The call that ended has woken the dispatcher (the refusals came in its own step) and it has handled it: no funds, still paused.
    const dispatcher = h.temporal.workflow.getHandle(`campaign:${id}`);
    await until(async () => {
      const { events } = await dispatcher.fetchHistory();
      return (events ?? []).some((event) => event.workflowExecutionSignaledEventAttributes);
    }, 'the ended call to wake the dispatcher');
    await untilWorkflowSettled(dispatcher);
    expect(await campaignCalls(id)).toHaveLength(1);
    expect((await h.db('campaigns').where({ id }).first()).status).toBe('paused');

    // A payment: a card saved for the account; its auto-charge credits the balance and the campaign resumes by itself.
    await runCommand(
      h.db,
      ['payment-method', 'add'],
      { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40', default: true, env: 'test' },
      temporal,
      h.config,
    );
    await playCallees(id, async () => eventsOf(id).some((r) => r.body.event === 'campaign.completed'));

    const events = eventsOf(id).map((r) => r.body);
    events.forEach(expectDocumented);
    const campaignLevel = events.filter((e) => e.event !== 'campaign.contact_completed');
    expect(campaignLevel.map((e) => [e.event, e.sequence, e.paused_reason ?? null, e.resumed_by ?? null])).toEqual([
      ['campaign.started', 1, null, null],
      ['campaign.paused', 2, 'insufficient_credits', null],
      ['campaign.resumed', 3, null, 'funds_returned'],
      ['campaign.completed', 4, null, null],
    ]);
    // Every contact done once, answered on its first attempt; the two called after the payment were told after the resume.
    const done = events.filter((e) => e.event === 'campaign.contact_completed');
    expect(done.map((e) => e.to_number).sort()).toEqual([...numbers].sort());
    expect(done.every((e) => e.outcome === 'answered' && e.attempts === 1)).toBe(true);
    const resumedAt = events.findIndex((e) => e.event === 'campaign.resumed');
    expect(events.slice(resumedAt).filter((e) => e.event === 'campaign.contact_completed')).toHaveLength(2);
    expect((await campaignCalls(id)).map((c) => c.to_number).sort()).toEqual([...numbers].sort());
    expect(
      await h.db('payment_attempts').where({ workspace_id: tenant.workspaceId, environment: 'test', status: 'succeeded' }),
    ).toHaveLength(1);
  }, 90_000);

  it('a change’s event is recorded with the change, once: the dispatcher’s step run again (a retried activity after a kill -9) records and sends nothing more', async () => {
    const line = await lines.create();
    // Nobody to call: its first step starts and completes it. Held until 2999, then made due here, outside its workflow.
    const created = await post('/api/v1/campaigns', {
      line_ids: [line.id],
      contacts: [{ to_number: 'not a number' }],
      start_at: '2999-01-01T00:00:00Z',
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as string;
    // Its workflow's first step must have read 2999 and be asleep on that timer first: a step of its own that read the
    // new start_at would dispatch beside the test's, and its attempt of an event would arrive after the test looks.
    await untilWorkflowSettled(h.temporal.workflow.getHandle(`campaign:${id}`));
    expect(await h.db('webhook_events').whereRaw("payload->>'campaign_id' = ?", [id])).toHaveLength(0);
    await h.db('campaigns').where({ id }).update({ start_at: new Date() });
    const deps = {
      db: h.db,
      temporal: () => h.temporal,
      taskQueue: h.config.taskQueue,
      egress: egressPolicyFor(h.config),
      secretsKey: () => sealingKeyOf(h.config),
      now: () => new Date(),
      log: createLogger('test'),
    };
    expect(await dispatchCampaign(deps, id, 'run:0')).toEqual({ kind: 'ended' });
    expect(await dispatchCampaign(deps, id, 'run:0')).toEqual({ kind: 'ended' });
    const recorded = await h.db('webhook_events').whereRaw("payload->>'campaign_id' = ?", [id]).orderBy('created_at');
    expect(recorded.map((e) => e.event_type).sort()).toEqual(['campaign.completed', 'campaign.started']);
    expect(eventsOf(id).map((r) => r.body.event)).toEqual(['campaign.started', 'campaign.completed']);
    expect(recorded.every((e) => e.awaiting_dispatch === false)).toBe(true);
    // Its workflow, woken, finds it ended and adds nothing.
    expect((await post(`/api/v1/campaigns/${id}/pause`)).status).toBe(409);
    expect(await h.db('webhook_events').whereRaw("payload->>'campaign_id' = ?", [id])).toHaveLength(2);
  });

  it('paused for a key’s cap: it waits for the cap’s reset or its own recheck, and resumes once the cap allows a call again', async () => {
    const line = await lines.create();
    const created = await post('/api/v1/campaigns', {
      line_ids: [line.id],
      contacts: [{ to_number: 'not a number' }],
      start_at: '2999-01-01T00:00:00Z',
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as string;
    // As if its key's monthly cap had refused a dial's 13-cent reserve. Its steps are run here: its workflow is ended
    // first, so that no wake (an auto-charge of the file's earlier tests wakes the tenant's paused campaigns) runs one too.
    await h.temporal.workflow.getHandle(`campaign:${id}`).terminate('the test runs its steps');
    const { actor_key_id: keyId } = await h.db('campaigns').where({ id }).first();
    await h
      .db('campaigns')
      .where({ id })
      .update({ status: 'paused', paused_reason: 'agent_cap_exceeded', paused_need_cents: 13, start_at: new Date() });
    const deps = {
      db: h.db,
      temporal: () => h.temporal,
      taskQueue: h.config.taskQueue,
      egress: egressPolicyFor(h.config),
      secretsKey: () => sealingKeyOf(h.config),
      now: () => new Date(),
      log: createLogger('test'),
    };
    const { monthly_cap_cents: cap } = await h.db('api_keys').where({ id: keyId }).first();
    await h.db('api_keys').where({ id: keyId }).update({ monthly_cap_cents: 1 });
    try {
      const before = Date.now();
      const waiting = await dispatchCampaign(deps, id, 'run:0');
      expect(waiting).toMatchObject({ kind: 'wait', untilMs: expect.any(Number) });
      expect((waiting as { untilMs: number }).untilMs).toBeLessThanOrEqual(Date.now() + FUNDS_RECHECK_MS);
      expect((waiting as { untilMs: number }).untilMs).toBeGreaterThan(before);
      expect((await h.db('campaigns').where({ id }).first()).status).toBe('paused');
      // The owner lifts the cap: the next look resumes it (and, nobody being left to call, completes it).
      await h.db('api_keys').where({ id: keyId }).update({ monthly_cap_cents: null });
      expect(await dispatchCampaign(deps, id, 'run:1')).toEqual({ kind: 'ended' });
    } finally {
      await h.db('api_keys').where({ id: keyId }).update({ monthly_cap_cents: cap });
    }
    // Delivered after the commit, by the delivery workflow when the step's own attempt did not get through at once.
    await until(async () => eventsOf(id).length >= 2, 'the resumed and completed events');
    expect(eventsOf(id).map((r) => [r.body.event, r.body.sequence, r.body.resumed_by ?? null])).toEqual([
      ['campaign.resumed', 1, 'funds_returned'],
      ['campaign.completed', 2, null],
    ]);
  });
});
