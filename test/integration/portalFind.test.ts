import crypto from 'node:crypto';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { CALLEE } from '../support/customer';
import { createLineInPortal, PortalClient, signInMember, signUpOperator, type PortalResponse } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * Issue 30 item 5, "find anything", as an operator over HTTP: the calls and deliveries lists' filters
 * (line, call, event type, number, a UTC time range), the search box, a delivery's request headers;
 * and as an attacker: another workspace's rows and ids are never found, a bad filter value is the
 * page's own message.
 */
describe('portal: find anything', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });

  const NOON = Date.parse('2026-11-20T12:00:00Z');
  const HOUR = 3_600_000;
  const shownError = (page: PortalResponse) => /<strong class="code">([^<]+)<\/strong>/.exec(page.text)?.[1];
  const idsOf = (page: PortalResponse, marker: string) =>
    [...page.text.matchAll(new RegExp(`data-${marker}="([^"]+)"`, 'g'))].map((m) => m[1]);

  /** A workspace with two lines and, per line, calls an hour apart (to CALLEE, and to one other number), and their deliveries. */
  async function workspaceWithHistory(tag: string) {
    const owner = await signUpOperator(h, tag);
    const first = await createLineInPortal(owner.client, { name: `Front ${tag}`, mode: 'webhook', webhook_url: receiver.url });
    const second = await createLineInPortal(owner.client, { name: `Back ${tag}`, mode: 'webhook', webhook_url: receiver.url });
    const lines = await h.db('lines').whereIn('id', [first.lineId, second.lineId]);
    const numberOf = (lineId: string) => lines.find((line) => line.id === lineId).phone_number as string;
    const calls = [0, 1, 2, 3].map((i) => ({
      id: crypto.randomUUID(),
      workspace_id: owner.workspaceId,
      environment: 'test',
      line_id: i < 3 ? first.lineId : second.lineId,
      direction: 'outbound',
      from_number: numberOf(i < 3 ? first.lineId : second.lineId),
      to_number: i === 2 ? '+442071838750' : CALLEE,
      status: 'completed',
      mode: 'webhook',
      zone: 'A',
      created_at: new Date(NOON + i * HOUR),
    }));
    await h.db('calls').insert(calls);
    const deliveries = [];
    for (const [i, call] of calls.entries()) {
      const eventId = crypto.randomUUID();
      const eventType = i % 2 === 0 ? 'call_started' : 'call_ended';
      const tenant = { workspace_id: owner.workspaceId, environment: 'test', line_id: call.line_id, call_id: call.id };
      await h
        .db('webhook_events')
        .insert({ id: eventId, ...tenant, event_type: eventType, target: 'webhook', payload: {}, created_at: call.created_at });
      const delivery = { id: crypto.randomUUID(), event_id: eventId, ...tenant, event_type: eventType, url: receiver.url, attempt: 1 };
      await h.db('webhook_deliveries').insert({
        ...delivery,
        status: i === 3 ? 'failed' : 'success',
        request_body: JSON.stringify({ event: eventType }),
        created_at: new Date(call.created_at.getTime() + 1000),
      });
      deliveries.push(delivery);
    }
    return { ...owner, first: first.lineId, second: second.lineId, firstNumber: numberOf(first.lineId), calls, deliveries };
  }

  const callsOf = (client: PortalClient, query: string) => client.get(`/portal/calls?env=test&${query}`);
  const deliveriesOf = (client: PortalClient, query: string) => client.get(`/portal/deliveries?env=test&${query}`);

  it('narrows the calls list by a UTC time range and a phone number; another workspace’s calls never show', async () => {
    const ws = await workspaceWithHistory('range');
    const stranger = await workspaceWithHistory('other');
    const [c0, c1, c2, c3] = ws.calls.map((call) => call.id);

    expect(idsOf(await callsOf(ws.client, ''), 'call-id')).toEqual([c3, c2, c1, c0]);
    // A bound covers its whole unit: to=13:00 keeps the call made at 13:00:00; a date is the whole UTC day.
    expect(idsOf(await callsOf(ws.client, 'from=2026-11-20T13:00&to=2026-11-20T14:00'), 'call-id')).toEqual([c2, c1]);
    expect(idsOf(await callsOf(ws.client, 'from=2026-11-20T13:00:01Z'), 'call-id')).toEqual([c3, c2]);
    expect(idsOf(await callsOf(ws.client, 'to=2026-11-19'), 'call-id')).toEqual([]);
    const day = await callsOf(ws.client, 'from=2026-11-20&to=2026-11-20');
    expect(idsOf(day, 'call-id')).toEqual([c3, c2, c1, c0]);
    // The picker shows the bounds as the minutes they cover.
    expect(day.text).toContain('id="from" name="from" type="datetime-local" step="1" value="2026-11-20T00:00"');
    expect(day.text).toContain('id="to" name="to" type="datetime-local" step="1" value="2026-11-20T23:59"');

    // A number: whole in any common form, or four or more of its digits; the line's own number matches too.
    expect(idsOf(await callsOf(ws.client, `number=${encodeURIComponent('+44 20 7183 8750')}`), 'call-id')).toEqual([c2]);
    expect(idsOf(await callsOf(ws.client, 'number=8750'), 'call-id')).toEqual([c2]);
    expect(idsOf(await callsOf(ws.client, `number=${encodeURIComponent(CALLEE)}&line_id=${ws.first}`), 'call-id')).toEqual([c1, c0]);
    expect(idsOf(await callsOf(ws.client, `number=${encodeURIComponent(ws.firstNumber)}`), 'call-id')).toEqual([c2, c1, c0]);

    // The stranger's calls to the same number never show, nor do this workspace's in theirs.
    const strangerIds: string[] = stranger.calls.map((call) => call.id);
    const mine = idsOf(await callsOf(ws.client, `number=${encodeURIComponent(CALLEE)}`), 'call-id');
    expect(mine).toEqual([c3, c1, c0]);
    expect(idsOf(await callsOf(stranger.client, `line_id=${ws.first}`), 'call-id')).toEqual([]);
    expect(mine.some((id) => strangerIds.includes(id))).toBe(false);
  });

  it('a bad filter value is the page’s own 422, naming the field and keeping what was typed; nothing is listed', async () => {
    const ws = await workspaceWithHistory('bad');
    for (const [query, field] of [
      ['from=yesterday', 'from'],
      ['to=2026-13-01', 'to'],
      ['from=2026-11-21&to=2026-11-20', 'to'],
      ['direction=sideways', 'direction'],
      ['status=ringing%3F', 'status'],
      ['line_id=not-a-line', 'line_id'],
      ['number=12', 'number'],
      ['number=%2B1415abc', 'number'],
    ]) {
      const page = await callsOf(ws.client, query);
      expect([query, page.status]).toEqual([query, 422]);
      expect(shownError(page)).toBe('validation_error');
      expect(page.text).toContain(`<code>${field}</code>`);
      expect(idsOf(page, 'call-id')).toEqual([]);
      expect(page.text).not.toContain('id="calls-csv"');
    }
    expect((await callsOf(ws.client, 'number=12')).text).toContain('id="number" name="number" class="mono" value="12"');
    for (const query of ['event_type=call_done', 'call_id=42', 'from=soon', 'status=lost']) {
      const page = await deliveriesOf(ws.client, query);
      expect([query, page.status, shownError(page)]).toEqual([query, 422, 'validation_error']);
      expect(idsOf(page, 'delivery-id')).toEqual([]);
    }
    // A script asking for JSON gets the API's error envelope.
    const json = await ws.client.get('/portal/deliveries?env=test&from=soon', { accept: 'application/json' });
    expect(JSON.parse(json.text).error).toMatchObject({ code: 'validation_error', details: [{ field: 'from' }] });
  });

  it('narrows deliveries by line, call, event type, status and time; links each to its call', async () => {
    const ws = await workspaceWithHistory('hooks');
    const stranger = await workspaceWithHistory('hooks-other');
    const [d0, d1, d2, d3] = ws.deliveries.map((delivery) => delivery.id);

    expect(idsOf(await deliveriesOf(ws.client, ''), 'delivery-id')).toEqual([d3, d2, d1, d0]);
    expect(idsOf(await deliveriesOf(ws.client, `line_id=${ws.second}`), 'delivery-id')).toEqual([d3]);
    const byCall = await deliveriesOf(ws.client, `call_id=${ws.calls[1].id}`);
    expect(idsOf(byCall, 'delivery-id')).toEqual([d1]);
    expect(byCall.text).toContain(`href="/portal/calls/${ws.calls[1].id}?env=test"`);
    expect(idsOf(await deliveriesOf(ws.client, 'event_type=call_ended'), 'delivery-id')).toEqual([d3, d1]);
    expect(idsOf(await deliveriesOf(ws.client, 'event_type=call_ended&status=failed'), 'delivery-id')).toEqual([d3]);
    expect(idsOf(await deliveriesOf(ws.client, 'from=2026-11-20T13:00&to=2026-11-20T14:00'), 'delivery-id')).toEqual([d2, d1]);
    expect(idsOf(await deliveriesOf(ws.client, `event_id=${ws.deliveries[2].event_id}`), 'delivery-id')).toEqual([d2]);
    // Another workspace's line and call match nothing here.
    expect(idsOf(await deliveriesOf(ws.client, `call_id=${stranger.calls[0].id}`), 'delivery-id')).toEqual([]);
    expect(idsOf(await deliveriesOf(stranger.client, `line_id=${ws.first}`), 'delivery-id')).toEqual([]);
  });

  it('search: an id opens its call, delivery, event or line; a number lists its calls and messages; nothing says so', async () => {
    const ws = await workspaceWithHistory('search');
    const stranger = await workspaceWithHistory('search-other');
    const find = (client: PortalClient, q: string) => client.get(`/portal/search?env=test&q=${encodeURIComponent(q)}`);
    const opens = async (q: string, location: string) => {
      const res = await find(ws.client, q);
      expect([q, res.status, res.headers.get('location')]).toEqual([q, 302, location]);
    };
    const callId = ws.calls[0].id;
    await opens(callId, `/portal/calls/${callId}?env=test`);
    await opens(` ${callId.toUpperCase()} `, `/portal/calls/${callId}?env=test`);
    await opens(ws.deliveries[1].id, `/portal/deliveries/${ws.deliveries[1].id}?env=test`);
    // An event id opens its first attempt's page, which shows every attempt of the event.
    await opens(ws.deliveries[2].event_id, `/portal/deliveries/${ws.deliveries[2].id}?env=test`);
    await opens(ws.second, `/portal/lines/${ws.second}?env=test`);

    const message = {
      id: crypto.randomUUID(),
      workspace_id: ws.workspaceId,
      environment: 'test',
      line_id: ws.first,
      direction: 'inbound',
      origin: 'carrier',
      remote_number: '+442071838750',
      from_number: '+442071838750',
      to_number: ws.firstNumber,
      body: 'Is the shop open <today>?',
      segments: 1,
      status: 'received',
      created_at: new Date(NOON),
      updated_at: new Date(NOON),
    };
    await h.db('messages').insert(message);
    await opens(message.id, `/portal/conversations/${ws.first}/${encodeURIComponent('+442071838750')}?env=test`);

    const byNumber = await find(ws.client, '+44 20 7183 8750');
    expect(byNumber.status).toBe(200);
    expect(idsOf(byNumber, 'call-id')).toEqual([ws.calls[2].id]);
    expect(idsOf(byNumber, 'message-id')).toEqual([message.id]);
    expect(byNumber.text).toContain('Is the shop open &lt;today&gt;?');
    expect(byNumber.text).toContain(`id="all-calls" href="/portal/calls?env=test&amp;number=%2B442071838750"`);
    // The line's own number finds the line as well as its calls.
    const byLineNumber = await find(ws.client, ws.firstNumber.slice(-6));
    expect(idsOf(byLineNumber, 'line-id')).toEqual([ws.first]);
    expect(idsOf(byLineNumber, 'call-id')).toEqual([ws.calls[2].id, ws.calls[1].id, ws.calls[0].id]);
    // Words find lines by name, any case; LIKE's wildcards are plain characters.
    expect(idsOf(await find(ws.client, 'back SEARCH'), 'line-id')).toEqual([ws.second]);
    const wildcard = await find(ws.client, '%');
    expect(wildcard.text).toContain('id="no-match"');

    // Another workspace's ids and numbers find nothing, exactly as an id that names nothing.
    for (const q of [stranger.calls[0].id, stranger.deliveries[0].event_id, stranger.first, crypto.randomUUID(), 'no such line']) {
      const res = await find(ws.client, q);
      expect([q, res.status]).toEqual([q, 200]);
      expect(res.text).toContain('id="no-match"');
      expect(res.text).toContain('Nothing in the test environment matches');
    }
    const strangerNumber = await find(ws.client, stranger.firstNumber);
    expect(idsOf(strangerNumber, 'call-id')).toEqual([]);
    // An empty search explains itself; an overlong one is the page's own 422.
    expect((await find(ws.client, '')).text).toContain('id="search-help"');
    const tooLong = await find(ws.client, 'x'.repeat(201));
    expect([tooLong.status, shownError(tooLong)]).toEqual([422, 'validation_error']);
  });

  it('exports calls, deliveries and usage as CSV: the filters applied, spreadsheet-safe, only this workspace’s rows', async () => {
    const ws = await workspaceWithHistory('csv');
    const stranger = await workspaceWithHistory('csv-other');
    await h
      .db('calls')
      .where({ id: ws.calls[1].id })
      .update({ topic: '=HYPERLINK("http://evil.test","x"), then\na "quote"', charge_cents: 42 });
    const rowsOf = (text: string) => text.split('\r\n').filter(Boolean);

    const calls = await ws.client.get(`/portal/calls.csv?env=test&number=${encodeURIComponent(CALLEE)}`);
    expect(calls.status).toBe(200);
    expect(calls.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(calls.headers.get('content-disposition')).toMatch(/^attachment; filename="calls-test-\d{8}T\d{4}Z\.csv"$/);
    const [header, ...records] = calls.text.split('\r\n').slice(0, -1);
    expect(header).toBe(
      'call_id,created_at,line_id,direction,from_number,to_number,status,end_cause,started_at,ended_at,duration_sec,charge_cents,answered_by,topic',
    );
    // Newest first, only the calls to CALLEE, and none of the stranger's (who called CALLEE too).
    expect(records.map((record) => record.slice(0, 36))).toEqual([ws.calls[3].id, ws.calls[1].id, ws.calls[0].id]);
    expect(calls.text).not.toContain(stranger.calls[0].id);
    // RFC 4180 quoting, and a text cell a spreadsheet would run as a formula starts with '.
    expect(records[1]).toBe(
      `${ws.calls[1].id},2026-11-20T13:00:00.000Z,${ws.first},outbound,'${ws.firstNumber},'${CALLEE},completed,,,,,42,,` +
        `"'=HYPERLINK(""http://evil.test"",""x""), then\na ""quote"""`,
    );

    const deliveries = await ws.client.get('/portal/deliveries.csv?env=test&event_type=call_ended');
    expect(rowsOf(deliveries.text).map((record) => record.slice(0, 36))).toEqual([
      'delivery_id,event_id,created_at,even',
      ws.deliveries[3].id,
      ws.deliveries[1].id,
    ]);
    expect(deliveries.text).not.toContain(stranger.deliveries[3].id);

    const usage = (workspaceId: string, i: number) => ({
      workspace_id: workspaceId,
      environment: 'test',
      line_id: ws.first,
      kind: 'call',
      seconds: 60 + i,
      cost_cents: 10 + i,
      reference: `find-test:${crypto.randomUUID()}`,
      occurred_at: new Date(NOON + i * HOUR),
    });
    await h.db('usage_records').insert([usage(ws.workspaceId, 0), usage(ws.workspaceId, 1), usage(stranger.workspaceId, 2)]);
    const spent = await ws.client.get('/portal/billing/usage.csv?env=test&from=2026-11-20T12:30');
    expect(rowsOf(spent.text)).toEqual([
      'occurred_at,kind,line_id,seconds,cost_cents,reference',
      expect.stringMatching(new RegExp(`^2026-11-20T13:00:00.000Z,call,${ws.first},61,11,find-test:`)),
    ]);
    expect(rowsOf((await ws.client.get('/portal/billing/usage.csv?env=test')).text)).toHaveLength(3);
    // The live environment holds none of the test environment's rows.
    expect(rowsOf((await ws.client.get('/portal/calls.csv?env=live')).text)).toHaveLength(1);

    // A bad filter is the list's own 422, not a file.
    const bad = await ws.client.get('/portal/calls.csv?env=test&from=soon');
    expect([bad.status, shownError(bad), bad.headers.get('content-type')]).toEqual([422, 'validation_error', 'text/html; charset=utf-8']);
    expect((await ws.client.get('/portal/billing/usage.csv?env=test&kind=fax')).status).toBe(422);
    // Signed out: the sign-in page, no file.
    const visitor = await fetch(`${h.apiUrl}/portal/calls.csv?env=test`, { redirect: 'manual' });
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get('location')).toMatch(/^\/portal\/login/);
  });

  it('shows times in the workspace’s time zone with UTC on hover; only owners and admins change it, to an IANA name', async () => {
    const ws = await workspaceWithHistory('zone');
    const stranger = await workspaceWithHistory('zone-other');
    const setZone = (client: PortalClient, zone: string) =>
      client.submit('/portal/settings?env=test', '/portal/settings/time-zone', { env: 'test', time_zone: zone });
    const noonCall = (page: PortalResponse) =>
      new RegExp(`<a href="/portal/calls/${ws.calls[0].id}\\?env=test"><time ([^>]+)>([^<]+)</time>`).exec(page.text);

    // UTC by default: the same digits as before, the UTC time on hover.
    expect(noonCall(await callsOf(ws.client, ''))?.slice(1)).toEqual([
      'datetime="2026-11-20T12:00:00.000Z" title="2026-11-20 12:00:00 UTC"',
      '2026-11-20 12:00:00',
    ]);

    const saved = await setZone(ws.client, 'Asia/Kolkata');
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('Times are now shown in Asia/Kolkata.');
    expect(saved.text).toMatch(/<option value="Asia\/Kolkata"\s+selected/);
    expect((await h.db('workspaces').where({ id: ws.workspaceId }).first()).time_zone).toBe('Asia/Kolkata');
    const shown = noonCall(await callsOf(ws.client, ''));
    expect(shown?.[1]).toBe('datetime="2026-11-20T12:00:00.000Z" title="2026-11-20 12:00:00 UTC"');
    expect(shown?.[2]).toBe('2026-11-20 17:30:00 GMT+5:30');
    // Every page's times: the delivery list too; URLs and filters stay UTC.
    expect((await deliveriesOf(ws.client, 'from=2026-11-20T12:00&to=2026-11-20T12:00')).text).toContain('2026-11-20 17:30:01 GMT+5:30');
    // Another workspace keeps its own zone.
    expect(noonCall(await callsOf(stranger.client, ''))).toBeNull();
    expect((await stranger.client.get('/portal/deliveries?env=test')).text).toContain('2026-11-20 12:00:01</time>');

    // Not an IANA name the runtime knows: the page's own 422, nothing written.
    for (const zone of ['Mars/Olympus_Mons', 'GMT+5', '+05:30', '']) {
      const refused = await setZone(ws.client, zone);
      expect([zone, refused.status, shownError(refused)]).toEqual([zone, 422, 'validation_error']);
      expect(refused.text).toContain('<code>time_zone</code>');
    }
    expect((await h.db('workspaces').where({ id: ws.workspaceId }).first()).time_zone).toBe('Asia/Kolkata');
    // A plain member reads the zone but cannot change it; a post without the CSRF token changes nothing.
    const member = await signInMember(h.apiUrl, h.db, ws.workspaceId);
    const memberSettings = await member.get('/portal/settings?env=test');
    expect(memberSettings.text).toContain('<strong id="time-zone">Asia/Kolkata</strong>');
    expect(memberSettings.text).not.toContain('action="/portal/settings/time-zone"');
    const memberPost = await member.post('/portal/settings/time-zone', {
      csrf_token: PortalClient.csrfOf(memberSettings),
      env: 'test',
      time_zone: 'UTC',
    });
    expect([memberPost.status, shownError(memberPost)]).toEqual([403, 'forbidden']);
    const forged = await ws.client.post('/portal/settings/time-zone', { env: 'test', time_zone: 'UTC' });
    expect(forged.status).toBe(403);
    expect((await h.db('workspaces').where({ id: ws.workspaceId }).first()).time_zone).toBe('Asia/Kolkata');
  });

  it('a delivery shows the headers it was sent with, the signature the receiver got, never the secret', async () => {
    const owner = await signUpOperator(h, 'headers');
    const { lineId, page: created } = await createLineInPortal(owner.client, { name: 'Hooks', mode: 'webhook', webhook_url: receiver.url });
    const secret = /<output id="webhook-secret" class="mono">([^<]+)<\/output>/.exec(created.text)![1];
    const user = (await h.db('users').where({ id: owner.userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    const before = receiver.requests.length;
    const test = await h.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: lineId } });
    expect(test.body.delivery).toMatchObject({ status: 'success' });
    const [got] = (await receiver.waitForRequests(before + 1)).slice(before);
    const delivery = await h.db('webhook_deliveries').where({ line_id: lineId }).first();

    const page = await owner.client.get(`/portal/deliveries/${delivery.id}?env=test`);
    const shown = /<dl class="request-headers" data-request-headers>([\s\S]*?)<\/dl>/.exec(page.text)![1];
    const header = (name: string) => new RegExp(`<dt class="mono">${name}</dt>\\s*<dd class="mono">([^<]+)</dd>`).exec(shown)?.[1];
    for (const name of [
      'x-service-signature',
      'x-service-delivery-id',
      'x-service-timestamp',
      'x-service-delivery-attempt',
      'content-type',
    ])
      expect([name, header(name)]).toEqual([name, got.headers[name]]);
    expect(header('x-service-delivery-id')).toBe(delivery.id);
    expect(page.text).not.toContain(secret);
    // The list shows them too (behind the row's disclosure).
    expect((await owner.client.get('/portal/deliveries?env=test')).text).toContain(
      `<dd class="mono">${got.headers['x-service-signature']}</dd>`,
    );
  });
});
