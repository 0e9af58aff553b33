import { workflowIds } from '../../workflows/definitions/ids';
import type { SendMessageBatchResult } from '../../workflows/definitions/messages';
import { webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { insertQueuedMessage } from '../support/messageRows';
import { simulator } from '../support/simulatorControl';
import { TemporalFaults } from '../support/temporalFaults';
import { useSuite } from '../support/suite';

/**
 * Accepted messages are sent in batches (docs/decisions/sms.md "Accepted messages are sent in batches"): one send
 * workflow per batch of messages the API accepted together, each message delivered and billed on its own; a batch
 * whose start was never confirmed is started again under its own id with the same messages; a message is never in two.
 * Here a batch is three messages (and waits as long as it takes to fill), so which messages share one is known.
 */
describe('SMS send batches', () => {
  const faults = new TemporalFaults();
  const ctx = useSuite({
    worker: true,
    receiver: true,
    apiTemporal: (client) => faults.wrap(client),
    messageBatching: { batchMax: 3, lingerMs: 600_000 },
  });
  const { h, tenant } = ctx;
  const { lines, messages } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }), untilMs: 30_000 });
  const sim = simulator(ctx);
  afterEach(async () => {
    faults.reset();
    await sim.messages.resetOutcomes();
    // Each test sends three messages; the workspace may send ten a minute.
    h.clock.advance(61_000);
  });

  const message = (id: string) => h.db('messages').where({ id }).first();
  const holdStatus = async (id: string) =>
    (
      await h
        .db('spend_holds')
        .where({ reference: `sms:${id}` })
        .first()
    ).status;
  const carried = (ids: string[]) => h.simulator.state.messages.list().filter((m) => m.message_id !== null && ids.includes(m.message_id));
  const settles = (ids: string[]) =>
    h.db('ledger_transactions').whereIn(
      'idempotency_ref',
      ids.map((id) => `sms:${id}:settle`),
    );

  /** Three peers who wrote to the line (so the window is open), with the carrier outcome each gets. */
  async function sendThree(outcomes: ReadonlyArray<'deliver' | 'reject' | 'undelivered'>): Promise<string[]> {
    const line = await lines.create();
    const ids: string[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      const peer = `+1415555017${i}`;
      if (outcome !== 'deliver') await sim.messages.setOutcome(peer, outcome);
      await sim.messages.inbound(peer, line.phone_number, 'Hello?');
      const sent = await messages.send({ line_id: line.id, to: peer, text: `Reply ${i}` });
      expect(sent.status).toBe(201);
      expect(sent.body.status).toBe('queued');
      ids.push(sent.body.id);
    }
    return ids;
  }

  it('messages accepted together share one send workflow; each is delivered, refused or charged on its own', async () => {
    const ids = await sendThree(['deliver', 'reject', 'undelivered']);
    await h.messagesHandedOver();
    const rows = await Promise.all(ids.map(message));
    const batchId = rows[0].dispatch_batch_id as string;
    expect(batchId).toMatch(/^[0-9a-f-]{36}$/);
    for (const row of rows) expect(row).toMatchObject({ dispatch_batch_id: batchId, dispatched_at: expect.any(Date) });

    const result: SendMessageBatchResult = await h.temporal.workflow.getHandle(workflowIds.sendMessageBatch(batchId)).result();
    // The refused message is free at once; the others are billed on their final receipt, which reached the batch.
    expect(result.messages).toEqual([
      { messageId: ids[0], status: 'delivered', chargeCents: expect.any(Number) },
      { messageId: ids[1], status: 'failed', chargeCents: 0 },
      { messageId: ids[2], status: 'undelivered', chargeCents: expect.any(Number) },
    ]);
    expect(result.messages[0]!.chargeCents).toBeGreaterThan(0);
    expect(await message(ids[1]!)).toMatchObject({ status: 'failed', error_code: 'carrier_rejected' });
    expect(await Promise.all(ids.map(holdStatus))).toEqual(['settled', 'released', 'settled']);
    expect((await settles(ids)).map((row) => row.idempotency_ref).sort()).toEqual([`sms:${ids[0]}:settle`, `sms:${ids[2]}:settle`].sort());
    // The carrier took the two it did not refuse, once each.
    expect(carried(ids).map((m) => m.message_id)).toEqual([ids[0], ids[2]]);
  });

  it('a batch whose start never reached Temporal is started again by the sweep, under its own id, with the same messages', async () => {
    faults.failStarts('sendMessageBatchWorkflow');
    const ids = await sendThree(['deliver', 'deliver', 'deliver']);
    await h.messagesHandedOver();
    const claimed = await Promise.all(ids.map(message));
    const batchId = claimed[0].dispatch_batch_id as string;
    // Claimed for one batch, its start not confirmed.
    for (const row of claimed) expect(row).toMatchObject({ status: 'queued', dispatch_batch_id: batchId, dispatched_at: null });
    faults.reset();
    // Past the grace the accepting process has for its own start, a millisecond apart in the order they were sent: one
    // moment for all three left the batch's order to the table's (the sweep and the batch take messages by their time).
    for (const [i, id] of ids.entries())
      await h
        .db('messages')
        .where({ id })
        .update({ created_at: h.db.raw("now() - interval '1 minute' + ? * interval '1 millisecond'", [i]) });
    const sweep = await h.temporal.workflow.execute('sweepUndispatchedMessagesWorkflow', {
      taskQueue: h.config.taskQueue,
      workflowId: `dispatch-sweep-${batchId}`,
      args: [],
    });
    // At least these three (the database is shared with other suites of this jest worker).
    expect(sweep.dispatched).toBeGreaterThanOrEqual(3);
    const result: SendMessageBatchResult = await h.temporal.workflow.getHandle(workflowIds.sendMessageBatch(batchId)).result();
    expect(result.messages.map((m) => [m.messageId, m.status])).toEqual(ids.map((id) => [id, 'delivered']));
    for (const row of await Promise.all(ids.map(message)))
      expect(row).toMatchObject({ dispatch_batch_id: batchId, dispatched_at: expect.any(Date) });
    // Sent once each, charged once each.
    expect(carried(ids)).toHaveLength(3);
    expect(await settles(ids)).toHaveLength(3);
  });

  it('the sweep leaves a stranded message from before batches to its own workflow, and batches one that has none', async () => {
    const line = await lines.create();
    const at = new Date(Date.now() - 60_000);
    const queued = () => insertQueuedMessage(h.db, { workspaceId: tenant.workspaceId, line, to: '+14155550180', at });
    const legacy = await queued();
    const stranded = await queued();
    // The legacy message's own workflow exists (its start's answer was lost): it must not be sent a second time.
    await h.temporal.workflow.start('sendMessageWorkflow', {
      taskQueue: `${h.config.taskQueue}-idle`,
      workflowId: workflowIds.sendMessage(legacy),
      args: [
        {
          messageId: legacy,
          workspaceId: tenant.workspaceId,
          environment: 'test',
          lineId: line.id,
          from: line.phone_number,
          to: '+14155550180',
          text: 'Hello',
          segments: 1,
          chargeCents: 1,
        },
      ],
    });
    try {
      const sweep = await h.temporal.workflow.execute('sweepUndispatchedMessagesWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `dispatch-sweep-${legacy}`,
        args: [],
      });
      expect(sweep.dispatched).toBeGreaterThanOrEqual(2);
      expect(await message(legacy)).toMatchObject({ dispatch_batch_id: null, dispatched_at: expect.any(Date), status: 'queued' });
      const batched = await message(stranded);
      expect(batched.dispatch_batch_id).toMatch(/^[0-9a-f-]{36}$/);
      const result: SendMessageBatchResult = await h.temporal.workflow
        .getHandle(workflowIds.sendMessageBatch(batched.dispatch_batch_id))
        .result();
      // Other suites of this jest worker may have left messages the same sweep batched with it.
      expect(result.messages.find((m) => m.messageId === stranded)).toEqual({ messageId: stranded, status: 'delivered', chargeCents: 1 });
      expect(h.simulator.state.messages.list().filter((m) => m.message_id === legacy)).toEqual([]);
    } finally {
      await h.temporal.workflow.getHandle(workflowIds.sendMessage(legacy)).terminate('test done');
    }
  });
});
