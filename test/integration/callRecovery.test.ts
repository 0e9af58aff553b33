import crypto from 'node:crypto';
import { createCallActivities } from '../../activities/calls';
import { workerRegistry } from '../../activities/metrics';
import { generateSecretsKey, parseSecretsKey } from '../../src/platform/crypto/secretBox';
import { EgressPolicy } from '../../src/platform/net/egress';
import type { CarrierAdapter } from '../../src/adapters/carrier/port';
import { placeHold } from '../../src/domain/billing/holds';
import { ensureSchedules, MESSAGE_DISPATCH_SCHEDULE_ID, RECOVERY_SCHEDULE_ID } from '../../src/main/schedules';
import { eventually, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { insertQueuedMessage } from '../support/messageRows';
import { useSuite } from '../support/suite';
import { workflowIds } from '../../workflows/definitions/ids';

/**
 * No active call row without a workflow that can finish it, and no hold left open (security
 * review M2, L11): a hang-up or a line release that finds the call's workflow gone ends the call
 * at once, and the durable sweeper ends calls past any possible length (workflow missing, closed
 * or stuck) and fails queued messages that never got a workflow.
 */
describe('recovering calls and messages whose workflow cannot finish them', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }), untilMs: 30_000 });

  const test = () => ({ workspaceId: tenant.workspaceId, environment: 'test' as const });
  const hold = async (reference: string) => h.db('spend_holds').where({ reference }).first();
  /** A call row as the API writes it, with its one-minute hold, but no workflow (its start was lost). */
  async function orphanCall(lineId: string, fields: { status: string; answeredSecondsAgo?: number; createdMinutesAgo?: number }) {
    const id = crypto.randomUUID();
    const line = await h.db('lines').where({ id: lineId }).first();
    const createdAt = new Date(Date.now() - (fields.createdMinutesAgo ?? 1) * 60_000);
    await h.db('calls').insert({
      id,
      workspace_id: tenant.workspaceId,
      environment: 'test',
      line_id: lineId,
      actor_key_id: null,
      direction: 'outbound',
      from_number: line.phone_number,
      to_number: '+14155552671',
      status: fields.status,
      mode: 'webhook',
      zone: 'A',
      created_at: createdAt,
      started_at: fields.answeredSecondsAgo === undefined ? null : new Date(Date.now() - fields.answeredSecondsAgo * 1000),
    });
    expect((await placeHold(h.db, { tenant: test(), keyId: null, reference: `call:${id}`, amountCents: 13, at: createdAt })).ok).toBe(true);
    return id;
  }
  const sweep = () =>
    h.temporal.workflow.execute('recoverOrphansWorkflow', {
      taskQueue: h.config.taskQueue,
      workflowId: `sweep-${crypto.randomUUID()}`,
      args: [{}],
    });
  const recoveredCalls = async () =>
    (await workerRegistry.getSingleMetric('switchboard_recovered_total')!.get()).values.find((v) => v.labels.kind === 'call')?.value ?? 0;
  const backdate = (id: string) =>
    h
      .db('calls')
      .where({ id })
      .update({ created_at: h.db.raw("now() - interval '30 minutes'") });

  it('a hang-up of a call whose workflow is gone ends it at once, settled from what is known, and frees the line', async () => {
    const line = await lines.create();
    const id = await orphanCall(line.id, { status: 'in_progress', answeredSecondsAgo: 30 });
    const hung = await calls.hangUp(id);
    expect(hung.status).toBe(200);
    expect(hung.body.call).toMatchObject({ status: 'completed', end_cause: 'service_error' });
    // About 30 s at 13 cents a minute, never more than the minute held.
    expect(hung.body.call.charge_cents).toBeGreaterThanOrEqual(6);
    expect(hung.body.call.charge_cents).toBeLessThanOrEqual(13);
    expect((await hold(`call:${id}`)).status).toBe('settled');
    await eventually(async () =>
      receiver.requests.some((r) => r.body.event === 'call_ended' && r.body.call_id === id) ? true : undefined,
    );
    // Hanging up the ended call again answers it unchanged.
    expect((await calls.hangUp(id)).body.call).toMatchObject({ status: 'completed', charge_cents: hung.body.call.charge_cents });
    await lines.expectFree(line.id);
  });

  it('a final status is never overwritten by a late state write (a workflow still running for an ended call)', async () => {
    const line = await lines.create();
    const id = await orphanCall(line.id, { status: 'in_progress', answeredSecondsAgo: 5 });
    const ended = (await calls.hangUp(id)).body.call;
    expect(ended.status).toBe('completed');
    const activities = createCallActivities({
      db: h.db,
      carrier: {} as CarrierAdapter, // state writes only
      carrierEventsUrl: `${h.apiUrl}/carrier/events`,
      temporal: () => h.temporal,
      taskQueue: h.config.taskQueue,
      secretsKey: () => parseSecretsKey(generateSecretsKey()),
      egress: new EgressPolicy(),
      now: () => new Date(),
    });
    await activities.recordCallState(id, { status: 'in_progress', startedAt: Date.now() });
    await activities.recordCallState(id, { status: 'failed', endCause: 'carrier_failed', chargeCents: 0 });
    expect(await calls.get(id)).toMatchObject({ status: 'completed', end_cause: 'service_error', charge_cents: ended.charge_cents });
    await lines.expectFree(line.id);
  });

  it('releasing a line whose call has no workflow answers 200 and ends the call', async () => {
    const line = await lines.create();
    const id = await orphanCall(line.id, { status: 'ringing' });
    const released = await lines.release(line.id);
    expect(released.status).toBe(200);
    expect(released.body.line.status).toBe('released');
    const call = await calls.untilStatus(id, ['failed']);
    expect(call).toMatchObject({ end_cause: 'service_error', charge_cents: 0 });
    expect((await hold(`call:${id}`)).status).toBe('settled');
  });

  it('the sweeper ends calls past any possible length whose workflow is missing, closed or stuck, and frees their lines', async () => {
    // Missing: the start never happened.
    const missingLine = await lines.create();
    const missing = await orphanCall(missingLine.id, { status: 'initiated', createdMinutesAgo: 30 });
    // Never claimed by a workflow three minutes on (the API stopped before starting it): no need to wait 20 minutes.
    const unclaimedLine = await lines.create();
    const unclaimed = await orphanCall(unclaimedLine.id, { status: 'initiated', createdMinutesAgo: 3 });
    // Closed: the workflow was terminated (as at Temporal's history limit) with the call live.
    const closedLine = await lines.create();
    const closed = (await calls.place(closedLine.id, '+14155552681')).body.call.id as string;
    await calls.untilStatus(closed, ['in_progress']);
    await h.temporal.workflow.getHandle(closed).terminate('history limit (test)');
    await backdate(closed);
    // Stuck: the workflow runs but the call has outlived any call.
    const stuckLine = await lines.create();
    const stuck = (await calls.place(stuckLine.id, '+14155552682')).body.call.id as string;
    await calls.untilStatus(stuck, ['in_progress']);
    await backdate(stuck);

    const recoveredBefore = await recoveredCalls();
    const result = (await sweep()) as { calls: Array<{ callId: string; outcome: string; workflow?: string }> };
    const outcome = (id: string) => result.calls.find((c) => c.callId === id);
    // Operators see them on the worker's /metrics too (the in-process worker counts into the same registry).
    expect((await recoveredCalls()) - recoveredBefore).toBe(result.calls.filter((c) => c.outcome === 'ended').length);
    expect(outcome(missing)).toMatchObject({ outcome: 'ended', workflow: 'missing' });
    expect(outcome(unclaimed)).toMatchObject({ outcome: 'ended', workflow: 'missing' });
    expect(await calls.get(unclaimed)).toMatchObject({ status: 'failed', end_cause: 'service_error', charge_cents: 0 });
    expect(outcome(closed)).toMatchObject({ outcome: 'ended', workflow: 'closed' });
    expect(outcome(stuck)).toMatchObject({ outcome: 'ended', workflow: 'terminated' });

    expect(await calls.get(missing)).toMatchObject({ status: 'failed', end_cause: 'service_error', charge_cents: 0 });
    for (const id of [closed, stuck]) {
      const call = await calls.get(id);
      expect(call).toMatchObject({ status: 'completed', end_cause: 'service_error' });
      const held = await hold(`call:${id}`);
      expect(held.status).toBe('settled');
      expect(call.charge_cents).toBeLessThanOrEqual(Number(held.amount_cents));
      // The carrier leg was hung up, and the customer hears of the end once.
      expect(h.simulator.state.calls.get(id)?.state).toBe('ended');
      await eventually(async () =>
        receiver.requests.some((r) => r.body.event === 'call_ended' && r.body.call_id === id) ? true : undefined,
      );
      expect(receiver.requests.filter((r) => r.body.event === 'call_ended' && r.body.call_id === id)).toHaveLength(1);
    }
    expect((await h.temporal.workflow.getHandle(stuck).describe()).status.name).toBe('TERMINATED');
    expect((await hold(`call:${missing}`)).status).toBe('settled');
    // A second sweep changes nothing.
    const again = (await sweep()) as { calls: Array<{ callId: string }> };
    for (const id of [missing, unclaimed, closed, stuck]) expect(again.calls.map((c) => c.callId)).not.toContain(id);
    for (const lineId of [missingLine.id, unclaimedLine.id, closedLine.id, stuckLine.id]) await lines.expectFree(lineId);
  });

  it('the sweeper fails a queued message that got no workflow within its 10-hour validity and releases its hold; one with a workflow is left alone', async () => {
    const line = await lines.create();
    const at = new Date(Date.now() - 11 * 60 * 60_000);
    const queued = () => insertQueuedMessage(h.db, { workspaceId: tenant.workspaceId, line, to: '+14155550142', at });
    const orphan = await queued();
    const owned = await queued();
    // This one has a workflow (still waiting for a worker): the sweeper leaves it to it.
    await h.temporal.workflow.start('sendMessageWorkflow', {
      taskQueue: `${h.config.taskQueue}-idle`,
      workflowId: `message-send:${owned}`,
      args: [
        {
          messageId: owned,
          workspaceId: tenant.workspaceId,
          environment: 'test',
          lineId: line.id,
          from: line.phone_number,
          to: '+14155550142',
          text: 'Hello',
          segments: 1,
          chargeCents: 1,
        },
      ],
    });
    // Two claimed for batches (migration 0060): one batch's workflow exists, the other's start never happened.
    const batched = await queued();
    const batchedOrphan = await queued();
    const batchId = crypto.randomUUID();
    await h.db('messages').where({ id: batched }).update({ dispatch_batch_id: batchId });
    await h.db('messages').where({ id: batchedOrphan }).update({ dispatch_batch_id: crypto.randomUUID() });
    await h.temporal.workflow.start('sendMessageBatchWorkflow', {
      taskQueue: `${h.config.taskQueue}-idle`,
      workflowId: workflowIds.sendMessageBatch(batchId),
      args: [{ batchId, messages: [] }],
    });
    const result = (await sweep()) as { messages: Array<{ messageId: string; outcome: string }> };
    expect(result.messages.find((m) => m.messageId === orphan)).toMatchObject({ outcome: 'failed' });
    expect(result.messages.find((m) => m.messageId === owned)).toMatchObject({ outcome: 'workflow_exists' });
    expect(result.messages.find((m) => m.messageId === batched)).toMatchObject({ outcome: 'workflow_exists' });
    expect(result.messages.find((m) => m.messageId === batchedOrphan)).toMatchObject({ outcome: 'failed' });
    expect(await h.db('messages').where({ id: batchedOrphan }).first()).toMatchObject({ status: 'failed', error_code: 'not_sent' });
    expect(await h.db('messages').where({ id: orphan }).first()).toMatchObject({ status: 'failed', error_code: 'not_sent' });
    expect(await h.db('messages').where({ id: owned }).first()).toMatchObject({ status: 'queued' });
    expect((await hold(`sms:${orphan}`)).status).toBe('released');
    await h.temporal.workflow.getHandle(`message-send:${owned}`).terminate('test done');
    await h.temporal.workflow.getHandle(workflowIds.sendMessageBatch(batchId)).terminate('test done');
  });

  it('runs every five minutes from a Temporal Schedule that every worker ensures exists', async () => {
    await ensureSchedules(h.temporal, h.config.taskQueue);
    const schedule = await h.temporal.schedule.getHandle(RECOVERY_SCHEDULE_ID).describe();
    expect(schedule.spec.intervals).toMatchObject([{ every: 5 * 60_000 }]);
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'recoverOrphansWorkflow' });
    // Beside it, every 5 s, the SMS dispatch sweep (docs/decisions/sms.md "A message is accepted when it is recorded").
    const dispatch = await h.temporal.schedule.getHandle(MESSAGE_DISPATCH_SCHEDULE_ID).describe();
    expect(dispatch.spec.intervals).toMatchObject([{ every: 5_000 }]);
    expect(dispatch.action).toMatchObject({ type: 'startWorkflow', workflowType: 'sweepUndispatchedMessagesWorkflow' });
  });
});
