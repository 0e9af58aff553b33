import crypto from 'node:crypto';
import { placeHold, releaseHold } from '../../src/domain/billing/holds';
import { balanceOf } from '../../src/domain/billing/ledger';
import { claimIdempotencyKey, IdempotencyLeaseLostError } from '../../src/domain/idempotency/store';
import { failUnsentMessage, recordOutboundMessage, type OutboundRecording } from '../../src/domain/messages/store';
import { webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { queuedOutboundMessage } from '../support/messageRows';
import { useSuite } from '../support/suite';

/**
 * An SMS's write is one statement (docs/decisions/sms.md, "The SMS send in two statements"): the hold, the message, its
 * conversation's count, its `sms_sent` event and the idempotent answer commit together, or nothing does.
 */
describe('the SMS write', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant } = ctx;
  const { lines, messages, consent, agentKeys } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const sim = simulator(ctx);
  const account = () => ({ workspaceId: tenant.workspaceId, environment: 'test' as const });

  /** Everything a send writes for (line, number), as the database holds it. */
  const written = async (lineId: string, number: string) => ({
    messages: await h.db('messages').where({ line_id: lineId, remote_number: number }).orderBy('created_at').select('id', 'body'),
    conversation: await h.db('conversations').where({ line_id: lineId, remote_number: number }).first(),
    events: await h.db('compliance_events').where({ line_id: lineId, phone_number: number, event_type: 'sms_sent' }).select('id'),
    holds: await h
      .db('spend_holds')
      .where({ workspace_id: tenant.workspaceId, environment: 'test' })
      .andWhere('reference', 'like', 'sms:%')
      .select('reference'),
  });

  it('a hold refused for the balance writes nothing: no message, no hold, no sms_sent event, the conversation untouched', async () => {
    const line = await lines.create();
    const number = '+14155550181';
    await consent.record(line.id, number, 'explicit_outbound', 'api');
    const first = await messages.send({ line_id: line.id, to: number, text: 'Before the money ran out' });
    expect(first.status).toBe(201);
    const before = await written(line.id, number);
    expect(before.messages).toHaveLength(1);
    expect(before.conversation).toMatchObject({ message_count: 1, last_message_id: first.body.id });
    expect(before.events).toHaveLength(1);

    // Everything still available is held elsewhere: the next SMS's 1 ¢ cannot be.
    const { balanceCents, heldCents } = await balanceOf(h.db, account());
    const elsewhere = `test:${crypto.randomUUID()}`;
    expect(
      await placeHold(h.db, {
        tenant: account(),
        keyId: null,
        reference: elsewhere,
        amountCents: balanceCents - heldCents,
        at: new Date(),
      }),
    ).toMatchObject({ ok: true });

    const headers = { 'idempotency-key': crypto.randomUUID() };
    const refused = await messages.send({ line_id: line.id, to: number, text: 'Refused' }, { headers });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_credits');
    expect(refused.body.error.details).toEqual([
      { field: 'available_cents', message: '0' },
      { field: 'required_cents', message: '1' },
    ]);
    expect(await written(line.id, number)).toEqual(before);
    expect((await balanceOf(h.db, account())).heldCents).toBeLessThanOrEqual(balanceCents);

    // The refusal was not stored with the Idempotency-Key: once funds are back, the same request is evaluated afresh.
    expect(await h.db('idempotency_keys').where({ idempotency_key: headers['idempotency-key'] })).toHaveLength(0);
    await releaseHold(h.db, { tenant: account(), reference: elsewhere, at: new Date() });
    const retried = await messages.send({ line_id: line.id, to: number, text: 'Refused' }, { headers });
    expect(retried.status).toBe(201);
    const now = await written(line.id, number);
    expect(now.messages.map((m) => m.id)).toEqual([first.body.id, retried.body.id]);
    expect(now.conversation).toMatchObject({ message_count: 2, last_message_id: retried.body.id });
    expect(now.events).toHaveLength(2);
    expect(now.holds.map((hold) => hold.reference).sort()).toEqual([`sms:${first.body.id}`, `sms:${retried.body.id}`].sort());
  });

  it("under its cap a key's SMS is recorded and its answer replayed; over it the hold is refused with nothing written", async () => {
    const line = await lines.create();
    const number = '+14155550182';
    await sim.messages.inbound(number, line.phone_number, 'Hello?');
    // A key under a cap has its caps checked under the account lock, and the same one statement records the SMS.
    const agent = (await agentKeys.create({ name: 'capped', monthly_cap_cents: 1 })).body.key;
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const sent = await messages.send({ line_id: line.id, to: number, text: 'Within the cap' }, { key: agent.plaintext_key, headers });
    expect(sent.status).toBe(201);
    const replayed = await messages.send({ line_id: line.id, to: number, text: 'Within the cap' }, { key: agent.plaintext_key, headers });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(sent.body);
    const before = await written(line.id, number);
    expect(before.messages).toHaveLength(2);
    expect(before.conversation).toMatchObject({ message_count: 2, last_message_id: sent.body.id });
    expect(before.events).toHaveLength(1);
    expect(
      await h
        .db('spend_holds')
        .where({ reference: `sms:${sent.body.id}` })
        .first(),
    ).toMatchObject({ key_id: agent.id, amount_cents: '1' });

    // Its one cent is held or spent: the next SMS is over the cap.
    const refused = await messages.send({ line_id: line.id, to: number, text: 'Over the cap' }, { key: agent.plaintext_key });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('agent_cap_exceeded');
    expect(await written(line.id, number)).toEqual(before);
  });

  it('a retried Idempotency-Key replays the identical 201 on both paths, recorded once', async () => {
    const line = await lines.create();
    const number = '+14155550183';
    const grant = await consent.record(line.id, number, 'explicit_outbound', 'api');
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await messages.send({ line_id: line.id, to: number, text: 'Once' }, { headers });
    expect(first.status).toBe(201);
    const again = await messages.send({ line_id: line.id, to: number, text: 'Once' }, { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // The stored message is what was answered, with what allowed it.
    const stored = await h.db('messages').where({ id: first.body.id }).first();
    expect(stored).toMatchObject({ authorization_basis: 'explicit_consent', consent_id: grant.body.consent.id, status: 'queued' });
    expect(stored.created_at.toISOString()).toBe(first.body.created_at);

    const legacyPath = `/api/v1/lines/${line.id}/sms`;
    const legacyHeaders = { 'idempotency-key': crypto.randomUUID() };
    const body = { to_number: number, message: 'Once, the older way' };
    const legacy = await h.request('POST', legacyPath, { key: tenant.keys.test, body, headers: legacyHeaders });
    expect(legacy.status).toBe(201);
    const legacyAgain = await h.request('POST', legacyPath, { key: tenant.keys.test, body, headers: legacyHeaders });
    expect(legacyAgain.status).toBe(201);
    expect(legacyAgain.body).toEqual(legacy.body);
    expect((await written(line.id, number)).messages.map((m) => m.id)).toEqual([first.body.id, legacy.body.sms.id]);
    expect((await written(line.id, number)).events).toHaveLength(2);
  });

  it('an opted-out number is refused before its open window, and the window before nothing else; neither writes', async () => {
    const line = await lines.create();
    const number = '+14155550184';
    await sim.messages.inbound(number, line.phone_number, 'Hi');
    const [inbound] = await h.db('messages').where({ line_id: line.id, remote_number: number, direction: 'inbound' });
    const allowed = await messages.send({ line_id: line.id, to: number, text: 'Within the window' });
    expect(allowed.status).toBe(201);
    const event = await h.db('compliance_events').where({ line_id: line.id, event_type: 'sms_sent' }).first();
    expect(event.metadata).toEqual({ message_id: allowed.body.id, authorization_basis: 'inbound_window', inbound_message_id: inbound.id });

    await h.db('opt_outs').insert({
      workspace_id: tenant.workspaceId,
      environment: 'test',
      phone_number: number,
      source: 'operator',
      opted_out_at: new Date(),
    });
    const before = await written(line.id, number);
    const optedOut = await messages.send({ line_id: line.id, to: number, text: 'Opted out' });
    expect(optedOut.status).toBe(403);
    expect(optedOut.body.error.code).toBe('number_opted_out');
    // The line comes first (it is read with the destination): another tenant's line is not found, a suspended one is not active.
    expect((await messages.send({ line_id: line.id, to: number, text: 'Not yours' }, { key: tenant.keys.live })).status).toBe(404);
    await h.db('lines').where({ id: line.id }).update({ status: 'suspended' });
    const suspended = await messages.send({ line_id: line.id, to: number, text: 'Suspended' });
    expect(suspended.status).toBe(409);
    expect(suspended.body.error.code).toBe('line_not_active');
    await h.db('lines').where({ id: line.id }).update({ status: 'active' });
    // With the opt-out gone, another line of the workspace still has no window with the number.
    const other = await lines.create();
    await h.db('opt_outs').where({ workspace_id: tenant.workspaceId, phone_number: number }).del();
    const closed = await messages.send({ line_id: other.id, to: number, text: 'No window here' });
    expect(closed.status).toBe(403);
    expect(closed.body.error.code).toBe('conversation_window_expired');
    expect(await written(line.id, number)).toEqual(before);
    expect(await h.db('messages').where({ line_id: other.id })).toHaveLength(0);
  });

  it('a request whose idempotency lease was taken over writes nothing: no hold, no message, the record left to its holder', async () => {
    const line = await lines.create();
    const number = '+14155550185';
    await consent.record(line.id, number, 'explicit_outbound', 'api');
    expect((await messages.send({ line_id: line.id, to: number, text: 'Opens the account' })).status).toBe(201);
    const before = await written(line.id, number);
    const identity = { principalKeyId: crypto.randomUUID(), scope: 'test', idempotencyKey: crypto.randomUUID(), fingerprint: 'f' };
    const claim = await claimIdempotencyKey(h.db, identity, new Date());
    if (claim.kind !== 'owned') throw new Error(`claim ${claim.kind}`);
    const record = () => h.db('idempotency_keys').where({ id: claim.lease.recordId }).first();

    const messageId = crypto.randomUUID();
    const at = new Date();
    const recording = (leaseToken: string): OutboundRecording => ({
      message: queuedOutboundMessage({
        id: messageId,
        workspaceId: tenant.workspaceId,
        line,
        to: number,
        at,
        body: 'Fenced',
        authorizationBasis: 'explicit_consent',
      }),
      hold: { tenant: account(), keyId: null, reference: `sms:${messageId}`, amountCents: 1, at },
      eventMetadata: { message_id: messageId },
      answer: { lease: { ...claim.lease, leaseToken }, status: 201, body: { id: messageId }, at },
    });
    // Another request took the record over (its token is not this one's): nothing is held or written.
    await expect(recordOutboundMessage(h.db, recording(crypto.randomUUID()), false)).rejects.toBeInstanceOf(IdempotencyLeaseLostError);
    expect(await written(line.id, number)).toEqual(before);
    expect(await record()).toMatchObject({ state: 'in_progress', lease_token: claim.lease.leaseToken, response_body: null });

    // With the lease it holds, the same statement writes everything and completes the record.
    const recorded = await recordOutboundMessage(h.db, recording(claim.lease.leaseToken), false);
    expect(recorded).toMatchObject({
      outcome: 'held',
      hold_cents: '1',
      message: { id: messageId, status: 'queued', remote_number: number },
    });
    const now = await written(line.id, number);
    expect(now.messages.map((m) => m.id)).toEqual([...before.messages.map((m) => m.id), messageId]);
    expect(now.conversation).toMatchObject({ message_count: 2, last_message_id: messageId });
    expect(now.events).toHaveLength(2);
    expect(await record()).toMatchObject({ state: 'completed', response_status: 201, response_body: { id: messageId } });
    // Recorded here, not handed over: failed now, so that no dispatch sweep of another test in this database sends it.
    await failUnsentMessage(h.db, { messageId, tenant: account(), at: new Date() });
  });
});
