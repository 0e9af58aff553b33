import crypto from 'node:crypto';
import { insertMessage } from '../../src/domain/messages/store';
import { KEYWORD_REPLIES, SMS_WINDOW_MS } from '../../src/domain/messages/rules';
import { verifySignature } from '../../src/domain/webhooks/signature';
import { eventually, mintKey, webhookLine } from '../support/harness';
import { customer } from '../support/customer';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/** SMS through the API, the send workflow and the carrier simulator; conversations; keywords. */
describe('messages', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  afterEach(async () => {
    h.clock.freeze(null);
    await sim.messages.resetOutcomes();
  });

  const { lines, calls, messages, consent } = customer(ctx, { line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const sim = simulator(ctx);
  const smsCharges = () => h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, type: 'sms_charge' });

  it('an inbound SMS is stored, reaches the webhook signed as sms_received, and opens a reply that is sent, delivered and charged once', async () => {
    const { line, webhookSecret } = await lines.createWithSecret();
    const caller = '+14155550142';
    const delivered = await sim.messages.inbound(caller, line.phone_number, 'Hi, is my order ready?');
    expect(delivered).toMatchObject({ delivery: 'delivered', status: 200 });

    const [event] = await receiver.waitForRequests(1);
    expect(event.body).toMatchObject({
      event: 'sms_received',
      line_id: line.id,
      from_number: caller,
      to_number: line.phone_number,
      text: 'Hi, is my order ready?',
      keyword: null,
    });
    expect(typeof event.body.event_id).toBe('string');
    expect(typeof event.body.timestamp).toBe('number');
    expect(verifySignature({ secret: webhookSecret, headers: event.headers as Record<string, string>, rawBody: event.rawBody })).toEqual({
      valid: true,
    });

    const reply = await messages.send({ line_id: line.id, to: caller, text: 'Yes, it is ready for pickup.' });
    expect(reply.status).toBe(201);
    // Unwrapped, with the client's fields.
    expect(reply.body).toMatchObject({
      line_id: line.id,
      to: caller,
      from: line.phone_number,
      text: 'Yes, it is ready for pickup.',
      status: 'queued',
      direction: 'outbound',
      segments: 1,
    });
    expect(reply.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(reply.body.created_at)).not.toBeNaN();

    const final = await messages.untilStatus(line.id, caller, reply.body.id, 'delivered');
    expect(final.error_code).toBeNull();
    await eventually(async () => ((await smsCharges()).length === 1 ? true : undefined), 20_000, 'the sms charge');
    const [charge] = await smsCharges();
    expect(Number(charge.amount_cents)).toBe(-1); // zone A, one segment
    expect(
      await h
        .db('spend_holds')
        .where({ reference: `sms:${reply.body.id}` })
        .first(),
    ).toMatchObject({ status: 'settled' });
    // The message shows its price once billed (just after the ledger entry).
    await eventually(
      async () => ((await messages.get(line.id, caller, reply.body.id))!.charge_cents === 1 ? true : undefined),
      20_000,
      'the charge on the message',
    );
    const sent = (await sim.messages.list()).filter((m) => m.message_id === reply.body.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      direction: 'outbound',
      from: line.phone_number,
      to: caller,
      text: 'Yes, it is ready for pickup.',
      requests: 1,
    });

    // The conversation, newest first; the inbound message counts as one of two.
    const thread = await messages.conversation(line.id, caller);
    expect(thread.status).toBe(200);
    expect(thread.body.messages.map((m: { direction: string; text: string }) => [m.direction, m.text])).toEqual([
      ['outbound', 'Yes, it is ready for pickup.'],
      ['inbound', 'Hi, is my order ready?'],
    ]);
    expect(thread.body).toMatchObject({ has_more: false, next_cursor: null });
    const list = await messages.conversations();
    expect(list.body.conversations).toEqual([
      {
        line_id: line.id,
        phone_number: caller,
        line_phone_number: line.phone_number,
        message_count: 2,
        last_message_at: thread.body.messages[0].timestamp,
        last_message_text: 'Yes, it is ready for pickup.',
        last_message_direction: 'outbound',
      },
    ]);

    // Usage counts both directions; only the outbound one costs.
    const today = new Date().toISOString().slice(0, 10);
    const usage = await h.request('GET', '/api/v1/usage/daily?days=1', { key: tenant.keys.test });
    expect(usage.body.daily.find((d: { date: string }) => d.date === today)).toMatchObject({
      sms_inbound: 1,
      sms_outbound: 1,
      cost_cents: 1,
    });

    // Compliance: what allowed the send. The self-audit feed shows the sent SMS, not the inbound one.
    const audit = await h.request('GET', `/api/v1/compliance/audit?event_type=sms_sent&line_id=${line.id}`, { key: tenant.keys.test });
    expect(audit.body.events).toHaveLength(1);
    expect(audit.body.events[0].metadata).toMatchObject({ message_id: reply.body.id, authorization_basis: 'inbound_window' });
    const feed = await h.request('GET', '/api/v1/audit?event_types=sms', { key: tenant.keys.test });
    expect(feed.status).toBe(200);
    expect(feed.body.events.map((e: { id: string }) => e.id)).toEqual([reply.body.id]);
    expect(feed.body.events[0]).toMatchObject({ type: 'sms', data: { direction: 'outbound', to_number: caller } });
  });

  it('the 24-hour window is open until just before 24 h after the last inbound SMS and closed at exactly 24 h', async () => {
    const line = await lines.create();
    const caller = '+14155550143';
    const start = new Date(Date.now());
    h.clock.freeze(start);
    await sim.messages.inbound(caller, line.phone_number, 'Ping');
    h.clock.advance(SMS_WINDOW_MS - 1);
    const lastMoment = await messages.send({ line_id: line.id, to: caller, text: 'Still within the window' });
    expect(lastMoment.status).toBe(201);
    h.clock.advance(1);
    const closed = await messages.send({ line_id: line.id, to: caller, text: 'Exactly 24 hours later' });
    expect(closed.status).toBe(403);
    expect(closed.body.error.code).toBe('conversation_window_expired');
    // A new inbound message opens it again.
    await sim.messages.inbound(caller, line.phone_number, 'Ping again');
    expect((await messages.send({ line_id: line.id, to: caller, text: 'Welcome back' })).status).toBe(201);
    // Another line of the same workspace has no window with that number.
    const other = await lines.create();
    expect((await messages.send({ line_id: other.id, to: caller, text: 'From another line' })).body.error.code).toBe(
      'conversation_window_expired',
    );
  });

  it('with no inbound SMS, only an active explicit_outbound consent for the pair opens the way', async () => {
    const line = await lines.create();
    const number = '+14155550144';
    const refused = await messages.send({ line_id: line.id, to: number, text: 'Hello' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('conversation_window_expired');
    expect(await h.db('messages').where({ line_id: line.id })).toHaveLength(0);

    expect((await consent.record(line.id, number, 'implied_inbound', 'api')).status).toBe(201);
    expect((await messages.send({ line_id: line.id, to: number, text: 'Hello' })).body.error.code).toBe('conversation_window_expired');

    const explicit = await consent.record(line.id, number, 'explicit_outbound', 'api');
    const allowed = await messages.send({ line_id: line.id, to: number, text: 'Hello' });
    expect(allowed.status).toBe(201);
    const audit = await h.request('GET', `/api/v1/compliance/audit?event_type=sms_sent&phone_number=${encodeURIComponent(number)}`, {
      key: tenant.keys.test,
    });
    expect(audit.body.events[0].metadata).toMatchObject({
      authorization_basis: 'explicit_consent',
      consent_record_id: explicit.body.consent.id,
      message_id: allowed.body.id,
    });

    expect(
      (
        await h.request('DELETE', `/api/v1/consent?phone_number=${encodeURIComponent(number)}&line_id=${line.id}`, {
          key: tenant.keys.test,
        })
      ).status,
    ).toBe(200);
    expect((await messages.send({ line_id: line.id, to: number, text: 'Hello again' })).body.error.code).toBe(
      'conversation_window_expired',
    );
  });

  it('STOP-like keywords opt the number out with one confirmation, START-like ones opt it back in, HELP answers', async () => {
    const line = await lines.create();
    const number = '+14155550145';
    const repliesTo = async () =>
      (await sim.messages.list()).filter((m) => m.direction === 'outbound' && m.to === number).map((m) => m.text);

    await sim.messages.inbound(number, line.phone_number, 'please stop calling me at work'); // not a keyword: a sentence
    expect((await messages.send({ line_id: line.id, to: number, text: 'Sorry!' })).status).toBe(201);

    await sim.messages.inbound(number, line.phone_number, '  stop ');
    await eventually(
      async () => ((await repliesTo()).includes(KEYWORD_REPLIES.opt_out) ? true : undefined),
      20_000,
      'the opt-out confirmation',
    );
    const sms = await messages.send({ line_id: line.id, to: number, text: 'One more thing' });
    expect(sms.status).toBe(403);
    expect(sms.body.error.code).toBe('number_opted_out');
    const call = await calls.place(line.id, number);
    expect(call.status).toBe(403);
    expect(call.body.error.code).toBe('number_opted_out');
    // Opted out workspace-wide: another line cannot reach the number either.
    const other = await lines.create();
    expect((await messages.send({ line_id: other.id, to: number, text: 'Hi' })).body.error.code).toBe('number_opted_out');

    // Opting out again confirms nothing twice.
    await sim.messages.inbound(number, line.phone_number, 'QUIT');
    await sim.messages.inbound(number, line.phone_number, 'Unsubscribe');

    await sim.messages.inbound(number, line.phone_number, 'Unstop');
    await eventually(
      async () => ((await repliesTo()).includes(KEYWORD_REPLIES.opt_in) ? true : undefined),
      20_000,
      'the opt-in confirmation',
    );
    expect((await messages.send({ line_id: line.id, to: number, text: 'Welcome back' })).status).toBe(201);

    await sim.messages.inbound(number, line.phone_number, 'help');
    await eventually(async () => ((await repliesTo()).includes(KEYWORD_REPLIES.help) ? true : undefined), 20_000, 'the help reply');

    await eventually(async () => ((await repliesTo()).length === 5 ? true : undefined), 20_000, 'every message');
    const replies = await repliesTo();
    expect(replies.filter((t) => t === KEYWORD_REPLIES.opt_out)).toHaveLength(1);
    expect(replies.filter((t) => t === KEYWORD_REPLIES.opt_in)).toHaveLength(1);
    expect(replies.filter((t) => t === KEYWORD_REPLIES.help)).toHaveLength(1);
    expect(replies.filter((t) => t === 'Sorry!' || t === 'Welcome back')).toHaveLength(2);

    const events = await h
      .db('compliance_events')
      .where({ workspace_id: tenant.workspaceId, phone_number: number })
      .whereIn('event_type', ['opt_out', 'opt_in'])
      .orderBy('created_at');
    expect(events.map((e) => [e.event_type, e.metadata.source])).toEqual([
      ['opt_out', 'sms_keyword'],
      ['opt_in', 'sms_keyword'],
    ]);
    // Keyword replies are free; the customer's two messages are charged.
    await eventually(async () => ((await smsCharges()).length === 2 ? true : undefined), 20_000, 'two charges');
    // The customer heard every inbound message, keywords included.
    await eventually(
      async () => (receiver.requests.filter((r) => r.body.event === 'sms_received').length === 6 ? true : undefined),
      20_000,
      'six sms_received',
    );
    expect(receiver.requests.find((r) => r.body.text === '  stop ')?.body).toMatchObject({ keyword: 'STOP', keyword_action: 'opt_out' });
  });

  it('a retried POST with one Idempotency-Key sends one SMS and charges once', async () => {
    const line = await lines.create();
    const number = '+14155550146';
    await sim.messages.inbound(number, line.phone_number, 'hello');
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await messages.send({ line_id: line.id, to: number, text: 'Only once' }, { headers });
    const second = await messages.send({ line_id: line.id, to: number, text: 'Only once' }, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    await messages.untilStatus(line.id, number, first.body.id, 'delivered');
    expect((await sim.messages.list()).filter((m) => m.to === number && m.direction === 'outbound')).toHaveLength(1);
    await eventually(async () => ((await smsCharges()).length === 1 ? true : undefined));
    expect(await h.db('messages').where({ line_id: line.id, direction: 'outbound' })).toHaveLength(1);
  });

  it('allows 10 messages a minute per workspace and environment', async () => {
    const line = await lines.create();
    const number = '+14155550147';
    await consent.record(line.id, number, 'explicit_outbound', 'api');
    for (let i = 0; i < 10; i += 1) expect((await messages.send({ line_id: line.id, to: number, text: `Message ${i}` })).status).toBe(201);
    const limited = await messages.send({ line_id: line.id, to: number, text: 'One too many' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The older per-line path shares the budget.
    expect(
      (
        await h.request('POST', `/api/v1/lines/${line.id}/sms`, {
          key: tenant.keys.test,
          body: { to_number: number, message: 'Also limited' },
        })
      ).status,
    ).toBe(429);
    h.clock.advance(61_000);
    const legacy = await h.request('POST', `/api/v1/lines/${line.id}/sms`, {
      key: tenant.keys.test,
      body: { to_number: number, message: 'A minute later' },
    });
    expect(legacy.status).toBe(201);
    expect(legacy.body.sms).toMatchObject({
      from_number: line.phone_number,
      to_number: number,
      message: 'A minute later',
      status: 'queued',
    });
  });

  it('a message the carrier refuses or fails is free; an undelivered one is charged', async () => {
    const line = await lines.create();
    const outcomes = { '+14155550151': 'reject', '+14155550152': 'fail', '+14155550153': 'undelivered' } as const;
    const ids: Record<string, string> = {};
    for (const [number, outcome] of Object.entries(outcomes)) {
      await sim.messages.setOutcome(number, outcome);
      await sim.messages.inbound(number, line.phone_number, 'hi');
      const res = await messages.send({ line_id: line.id, to: number, text: 'Reply' });
      expect(res.status).toBe(201);
      ids[number] = res.body.id;
    }
    expect(await messages.untilStatus(line.id, '+14155550151', ids['+14155550151'], 'failed')).toMatchObject({
      error_code: 'carrier_rejected',
      charge_cents: null,
    });
    expect(await messages.untilStatus(line.id, '+14155550152', ids['+14155550152'], 'failed')).toMatchObject({
      error_code: 'carrier_failure',
    });
    expect(await messages.untilStatus(line.id, '+14155550153', ids['+14155550153'], 'undelivered')).toMatchObject({
      error_code: 'unreachable_handset',
    });
    const holds = async () =>
      Object.fromEntries(
        (
          await h.db('spend_holds').whereIn(
            'reference',
            Object.values(ids).map((id) => `sms:${id}`),
          )
        ).map((row) => [row.reference, row.status]),
      );
    await eventually(async () =>
      (await holds())[`sms:${ids['+14155550152']}`] === 'released' && (await holds())[`sms:${ids['+14155550153']}`] === 'settled'
        ? true
        : undefined,
    );
    expect((await holds())[`sms:${ids['+14155550151']}`]).toBe('released');
    const charges = await smsCharges();
    expect(charges).toHaveLength(1);
    expect(charges[0].idempotency_ref).toBe(`sms:${ids['+14155550153']}:settle`);
  });

  it('refuses in order: validation, the line, opt-out before the window; scoped keys and other tenants see nothing', async () => {
    const line = await lines.create();
    const bad = await messages.send({ line_id: line.id, to: 'not-a-number', text: 'x' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details![0].field).toBe('to');
    expect((await messages.send({ line_id: line.id, to: '+14155550160' })).body.error.details![0].field).toBe('text');
    expect((await messages.send({ line_id: line.id, to: '+14155550160', text: 'x'.repeat(1601) })).status).toBe(422);
    expect((await messages.send({ line_id: crypto.randomUUID(), to: '+14155550160', text: 'x' })).status).toBe(404);
    // Opted out (and no window either): the opt-out is what the caller is told.
    await consent.record(line.id, '+14155550160', 'explicit_outbound', 'api');
    await h.db('opt_outs').insert({
      workspace_id: tenant.workspaceId,
      environment: 'test',
      phone_number: '+14155550160',
      source: 'operator',
      opted_out_at: new Date(),
    });
    expect((await messages.send({ line_id: line.id, to: '+14155550160', text: 'x' })).body.error.code).toBe('number_opted_out');
    // A call-only key may not send SMS.
    const callOnly = await mintKey(h.db, tenant.owner, 'test', ['calls:create', 'read']);
    expect((await messages.send({ line_id: line.id, to: '+14155550161', text: 'x' }, { key: callOnly })).status).toBe(403);
    // Live keys do not see test lines or their conversations.
    expect((await messages.send({ line_id: line.id, to: '+14155550161', text: 'x' }, { key: tenant.keys.live })).status).toBe(404);
    expect((await h.request('GET', `/api/v1/conversations/${line.id}/%2B14155550160`, { key: tenant.keys.live })).status).toBe(404);
    expect((await messages.conversations('', tenant.keys.live)).body.conversations).toEqual([]);
    // An inbound SMS to a number no line has is refused to the carrier.
    expect(await sim.messages.inbound('+14155550162', '+15555550000', 'anyone?')).toMatchObject({ delivery: 'refused', status: 404 });
  });

  it('pagination walks every message and conversation exactly once across identical timestamps; numbers are percent-encoded', async () => {
    const line = await lines.create();
    const tenantRef = { workspace_id: tenant.workspaceId, environment: 'test' as const, line_id: line.id };
    const number = '+14155550170';
    const base = Date.UTC(2026, 10, 20, 12, 0, 0);
    // 23 messages on 5 timestamps (ties of up to 5), alternately inbound and outbound.
    for (let i = 0; i < 23; i += 1) {
      const inboundMessage = i % 2 === 0;
      await insertMessage(h.db, {
        ...tenantRef,
        id: crypto.randomUUID(),
        actor_key_id: null,
        direction: inboundMessage ? 'inbound' : 'outbound',
        origin: inboundMessage ? 'carrier' : 'customer',
        from_number: inboundMessage ? number : line.phone_number,
        to_number: inboundMessage ? line.phone_number : number,
        body: `message ${i}`,
        segments: 1,
        status: inboundMessage ? 'received' : 'delivered',
        carrier_message_id: null,
        authorization_basis: null,
        consent_id: null,
        created_at: new Date(base + Math.floor(i / 5) * 1000),
      });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/api/v1/conversations/${line.id}/%2B14155550170?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await h.request('GET', path, { key: tenant.keys.test });
      expect(page.status).toBe(200);
      seen.push(...page.body.messages.map((m: { text: string }) => m.text));
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(6);
    expect(new Set(seen).size).toBe(23);
    expect(seen).toHaveLength(23);
    const times = seen.map((text) => Math.floor(Number(text.split(' ')[1]) / 5));
    expect(times).toEqual([...times].sort((a, b) => b - a)); // newest first
    // A literal `+` works as well, and a bare ISO timestamp is a cursor too.
    const literal = await h.request('GET', `/api/v1/conversations/${line.id}/+14155550170?limit=100`, { key: tenant.keys.test });
    expect(literal.body.messages).toHaveLength(23);
    const older = await h.request(
      'GET',
      `/api/v1/conversations/${line.id}/%2B14155550170?cursor=${new Date(base + 4000).toISOString()}&limit=100`,
      { key: tenant.keys.test },
    );
    expect(older.body.messages).toHaveLength(20);
    expect(
      (await h.request('GET', `/api/v1/conversations/${line.id}/%2B14155550170?cursor=yesterday`, { key: tenant.keys.test })).status,
    ).toBe(422);
    expect((await h.request('GET', `/api/v1/conversations/${line.id}/%2B14155550170?limit=101`, { key: tenant.keys.test })).status).toBe(
      422,
    );

    // 13 conversations whose last messages share timestamps.
    const second = await lines.create();
    for (let i = 0; i < 13; i += 1) {
      await insertMessage(h.db, {
        ...tenantRef,
        line_id: i % 2 ? second.id : line.id,
        id: crypto.randomUUID(),
        actor_key_id: null,
        direction: 'inbound',
        origin: 'carrier',
        from_number: `+1415555${1000 + i}`,
        to_number: i % 2 ? second.phone_number : line.phone_number,
        body: `conversation ${i}`,
        segments: 1,
        status: 'received',
        carrier_message_id: null,
        authorization_basis: null,
        consent_id: null,
        created_at: new Date(base + 10_000 + Math.floor(i / 4) * 1000),
      });
    }
    const conversations: Array<{ phone_number: string; line_id: string; message_count: number }> = [];
    cursor = null;
    do {
      const path: string = `/api/v1/conversations?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await h.request('GET', path, { key: tenant.keys.test });
      conversations.push(...page.body.conversations);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(conversations).toHaveLength(14);
    expect(new Set(conversations.map((c) => `${c.line_id}${c.phone_number}`)).size).toBe(14);
    expect(conversations.find((c) => c.phone_number === number)).toMatchObject({ message_count: 23, line_id: line.id });
    const filtered = await messages.conversations(`?line_id=${second.id}&limit=100`);
    expect(filtered.body.conversations).toHaveLength(6);
    expect(
      filtered.body.conversations.every(
        (c: { line_id: string; line_phone_number: string }) => c.line_id === second.id && c.line_phone_number === second.phone_number,
      ),
    ).toBe(true);
  });
});
