import crypto from 'node:crypto';
import {
  createSwitchboardClient,
  deleteContactList,
  getContactList,
  listContactLists,
  SwitchboardApiError,
  uploadContactList,
} from '../../sdk/client';
import { purgeExpiredContactLists } from '../../src/domain/campaigns/contactListStore';
import { createTenant } from '../support/harness';
import { customer } from '../support/customer';
import { useSuite } from '../support/suite';
import { until } from '../support/waits';
import { calleeNumbers } from '../support/campaigns';

/** The upload limit of this file's API (MAX_UPLOAD_BYTES): the 100,000-row list fits, and a body just past it is cheap enough to send. */
const UPLOAD_LIMIT = 6 * 1024 * 1024;

const freshNumbers = calleeNumbers('+1415556', 1000, 10000);

/**
 * A campaign's contacts uploaded as CSV (issue 31 item 2, "Bad input"): `POST /api/v1/campaigns/contact-lists`
 * with a `text/csv` body, then `POST /api/v1/campaigns` with its `contact_list_id`. The callees are the carrier
 * simulator's; each hears its own row's variables.
 */
describe('campaign contact lists uploaded as CSV', () => {
  const ctx = useSuite({ worker: true, tenant: 'file', overrides: { maxUploadBytes: UPLOAD_LIMIT } });
  const { h, tenant } = ctx;
  const { lines, calls } = customer(ctx, {
    line: () => ({ name: 'Reminders', mode: 'hosted', system_prompt: 'You remind people of their appointments.' }),
  });

  const upload = (csv: string | Buffer, options: { key?: string; headers?: Record<string, string> } = {}) =>
    h.request('POST', '/api/v1/campaigns/contact-lists', {
      key: options.key ?? tenant.keys.test,
      rawBody: csv,
      headers: { 'content-type': 'text/csv', ...options.headers },
    });
  const createCampaign = (body: Record<string, unknown>, key = tenant.keys.test) => h.request('POST', '/api/v1/campaigns', { key, body });
  const fieldsOf = (res: { status: number; text: string; body?: { error?: { details?: Array<{ field: string }> } } }) =>
    res.body?.error?.details?.map((d) => d.field) ?? `${res.status} ${res.text}`;

  it('a list with a BOM, CRLF and quoted cells becomes the campaign’s contacts: each callee hears its own variables', async () => {
    const line = await lines.create({
      mode: 'hosted',
      system_prompt: 'You remind {{first_name}} of the appointment on {{appointment}}.',
      begin_message: 'Hello {{first_name}}, about {{appointment}}.',
    });
    const [ada, grace] = freshNumbers(2);
    const csv =
      '\ufeffphone_number,first_name,appointment,metadata.patient_id\r\n' +
      `${ada},Ada,"Tuesday, 9:00",p-1\r\n` +
      `${grace},"Grace ""Amazing""",Wednesday,p-2\r\n` +
      '\r\n' +
      'not a number,Bob,Friday,p-3\r\n' +
      `${ada},Ada again,Thursday,\r\n`;
    const uploaded = await upload(csv);
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.contact_list).toEqual({
      id: expect.any(String),
      rows: 4,
      columns: ['phone_number', 'first_name', 'appointment', 'metadata.patient_id'],
      skipped: { invalid_number: 1, duplicate_number: 1 },
      created_at: expect.any(String),
      expires_at: expect.any(String),
    });
    const { id: listId, created_at, expires_at } = uploaded.body.contact_list;
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(7 * 24 * 3600 * 1000);

    const created = await createCampaign({ line_ids: [line.id], contact_list_id: listId, calls_per_minute: 600 });
    expect(created.status).toBe(201);
    const campaignId = created.body.campaign.id as string;
    expect(created.body.campaign.progress).toMatchObject({ total: 4, skipped: 2 });

    // Each callee hangs up once it has heard the greeting.
    await until(
      async () => {
        const rows = await h
          .db('calls')
          .whereIn('id', h.db('campaign_attempts').where({ campaign_id: campaignId }).select('call_id'))
          .select<Array<{ id: string; status: string }>>('id', 'status');
        for (const call of rows)
          if (call.status === 'in_progress' && h.simulator.state.calls.speechFor(call.id)?.[0]?.state === 'done')
            h.simulator.state.calls.hangUpByCaller(call.id);
        return (await h.db('campaigns').where({ id: campaignId }).first('status')).status === 'completed';
      },
      `campaign ${campaignId} to complete`,
      { timeoutMs: 60_000, intervalMs: 100 },
    );

    const results = (await h.request('GET', `/api/v1/campaigns/${campaignId}/results`, { key: tenant.keys.test })).body.results;
    expect(results).toMatchObject([
      {
        row: 1,
        to_number: ada,
        outcome: 'answered',
        variables: { first_name: 'Ada', appointment: 'Tuesday, 9:00' },
        metadata: { patient_id: 'p-1' },
      },
      { row: 2, to_number: grace, outcome: 'answered', variables: { first_name: 'Grace "Amazing"', appointment: 'Wednesday' } },
      { row: 3, to_number: 'not a number', outcome: 'skipped', skip_reason: 'invalid_number', attempts: 0 },
      // An empty cell gives no value: the repeated number's row has no metadata.
      { row: 4, to_number: ada, outcome: 'skipped', skip_reason: 'duplicate_number', metadata: {} },
    ]);
    for (const [result, greeting] of [
      [results[0], 'Hello Ada, about Tuesday, 9:00.'],
      [results[1], 'Hello Grace "Amazing", about Wednesday.'],
    ]) {
      const call = await calls.get(result.call_ids[0]);
      expect(call).toMatchObject({
        begin_message: greeting,
        system_prompt: expect.stringContaining(`on ${result.variables.appointment}.`),
      });
      expect(h.simulator.state.calls.speechFor(call.id)![0].text).toBe(greeting);
    }
  }, 90_000);

  it('a malformed list is refused naming each row and column at fault; nothing is recorded', async () => {
    const before = Number((await h.db('campaign_contact_lists').where({ workspace_id: tenant.workspaceId }).count({ n: '*' }))[0].n);

    const header = await upload('number,first name,metadata.[x],first name\n+14155550100,a,b,c\n');
    expect(header.status).toBe(422);
    expect(header.body.error).toMatchObject({ code: 'validation_error' });
    expect(fieldsOf(header)).toEqual(['columns.2', 'columns.3', 'columns.4', 'columns']);
    expect(header.body.error.details[3].message).toMatch(/phone_number/);

    const long = 'x'.repeat(1001);
    const rows = await upload(
      `phone_number,first_name,metadata.ref\n+14155550100,Ada,r1\n+14155550101,Grace\n,Bob,r3\nnot a number,${long},r4\n+14155550104,Lin,"r\u0000"\n`,
    );
    expect(rows.status).toBe(422);
    expect(rows.body.error.details).toEqual([
      { field: 'rows.2', message: 'Has 2 fields; the header has 3 (line 3)' },
      { field: 'rows.3.phone_number', message: 'Required: the number to call (line 4)' },
      { field: 'rows.4.first_name', message: 'At most 1000 characters (line 5)' },
      { field: 'rows.5.metadata.ref', message: 'Must not contain the NUL character (U+0000) (line 6)' },
    ]);

    // A quoted cell spanning lines counts as one row; a quote left open ends the reading at its row.
    const quotes = await upload('phone_number,note\n+14155550100,"two\nlines"\n+14155550101,"open\n+14155550102,x\n');
    expect(quotes.status).toBe(422);
    expect(quotes.body.error.details).toEqual([
      { field: 'rows.2', message: expect.stringMatching(/^A quoted field is not closed before the end of the file \(line \d+\)$/) },
    ]);

    // 60 rows at fault: 50 listed, then how many more.
    const many = await upload(`phone_number,name\n${',x\n'.repeat(60)}`);
    expect(many.status).toBe(422);
    expect(many.body.error.details).toHaveLength(51);
    expect(many.body.error.details[50]).toEqual({ field: 'rows', message: expect.stringMatching(/^And 10 more problems/) });

    for (const [body, field] of [
      ['', 'body'],
      ['phone_number\r\n', 'rows'],
    ] as const) {
      const refused = await upload(body);
      expect({ body, status: refused.status, fields: fieldsOf(refused) }).toEqual({ body, status: 422, fields: [field] });
    }
    const notUtf8 = await upload(
      Buffer.concat([Buffer.from('phone_number,name\n+14155550100,'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]),
    );
    expect({ status: notUtf8.status, fields: fieldsOf(notUtf8) }).toEqual({ status: 422, fields: ['body'] });
    const json = await upload('{"contacts": []}', { headers: { 'content-type': 'application/json' } });
    expect({ status: json.status, code: json.body.error.code }).toEqual({ status: 415, code: 'unsupported_media_type' });
    const latin1 = await upload('phone_number\n+14155550100\n', { headers: { 'content-type': 'text/csv; charset=iso-8859-1' } });
    expect(latin1.status).toBe(415);
    // Past MAX_UPLOAD_BYTES: 413, as every body past its route's limit.
    const oversized = await upload(`phone_number\n${'+14155550100\n'.repeat(Math.ceil(UPLOAD_LIMIT / 13) + 1)}`);
    expect({ status: oversized.status, code: oversized.body.error.code }).toEqual({ status: 413, code: 'payload_too_large' });
    // Sent in chunks with no length declared: counted as it streams in, and refused past the limit all the same.
    // Long rows, so that the bytes pass the limit before the rows pass 100,000.
    const row = Buffer.from(`+14155550100,${'x'.repeat(100)}\n`.repeat(10_000));
    const streamed = await fetch(`${h.apiUrl}/api/v1/campaigns/contact-lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.keys.test}`, 'content-type': 'text/csv' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(Buffer.from('phone_number,note\n'));
          for (let sent = 0; sent <= UPLOAD_LIMIT; sent += row.length) controller.enqueue(row);
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect({ status: streamed.status, code: ((await streamed.json()) as { error: { code: string } }).error.code }).toEqual({
      status: 413,
      code: 'payload_too_large',
    });

    expect(Number((await h.db('campaign_contact_lists').where({ workspace_id: tenant.workspaceId }).count({ n: '*' }))[0].n)).toBe(before);
  });

  it('a campaign names a list or contacts, exactly one; another workspace’s list is unknown; an upload replays with its key; the typed client uploads', async () => {
    const line = await lines.create();
    const csv = `phone_number\n${freshNumbers(1)[0]}\n`;
    // Without a key, each upload is a list of its own.
    const [first, second] = [await upload(csv), await upload(csv)];
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.contact_list.id).not.toBe(first.body.contact_list.id);
    const idem = `list-${crypto.randomUUID()}`;
    const once = await upload(csv, { headers: { 'idempotency-key': idem } });
    const again = await upload(csv, { headers: { 'idempotency-key': idem } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.contact_list.id).toBe(once.body.contact_list.id);
    const otherFile = await upload(`phone_number\n${freshNumbers(1)[0]}\n`, { headers: { 'idempotency-key': idem } });
    expect({ status: otherFile.status, code: otherFile.body.error.code }).toEqual({ status: 409, code: 'idempotency_key_reused' });

    // The typed client uploads a CSV string; a refusal is its typed error with the rows at fault.
    const switchboard = createSwitchboardClient({ baseUrl: h.apiUrl, apiKey: tenant.keys.test });
    expect(await uploadContactList(switchboard, csv)).toMatchObject({ rows: 1, columns: ['phone_number'] });
    const refused = await uploadContactList(switchboard, 'phone_number,name\n,Ada\n').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SwitchboardApiError);
    expect(refused).toMatchObject({ status: 422, code: 'validation_error', details: [{ field: 'rows.1.phone_number' }] });

    const listId = once.body.contact_list.id as string;
    const future = { line_ids: [line.id], start_at: '2999-01-01T00:00:00Z' };
    const both = await createCampaign({ ...future, contact_list_id: listId, contacts: [{ to_number: '+14155550100' }] });
    expect({ status: both.status, fields: fieldsOf(both) }).toEqual({ status: 422, fields: ['contact_list_id'] });
    const neither = await createCampaign(future);
    expect({ status: neither.status, fields: fieldsOf(neither) }).toEqual({ status: 422, fields: ['contact_list_id'] });

    // Another workspace's list is answered as an id that names nothing: the same words, no hint that it exists.
    const other = await createTenant(h.db);
    const otherLine = await lines.create({}, other.keys.test);
    const foreign = await createCampaign({ line_ids: [otherLine.id], contact_list_id: listId }, other.keys.test);
    const unknown = await createCampaign({ line_ids: [otherLine.id], contact_list_id: crypto.randomUUID() }, other.keys.test);
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.details).toEqual(unknown.body.error.details);
    expect(fieldsOf(foreign)).toEqual(['contact_list_id']);
    // Nor does a list of the live environment serve the test one.
    const live = await createCampaign({ ...future, contact_list_id: listId }, tenant.keys.live);
    expect(live.status).toBe(422);

    // A list may start several campaigns.
    for (let i = 0; i < 2; i++) {
      const made = await createCampaign({ ...future, contact_list_id: listId });
      expect(made.status).toBe(201);
      expect(made.body.campaign.progress.total).toBe(1);
      expect((await h.request('POST', `/api/v1/campaigns/${made.body.campaign.id}/cancel`, { key: tenant.keys.test })).status).toBe(200);
    }
  });

  it('a list of 100,000 rows is accepted and becomes a campaign of 100,000 contacts', async () => {
    const line = await lines.create();
    const rows = Array.from({ length: 100_000 }, (_, i) => `+1415${String(2000000 + i)},P${i}\n`);
    const csv = `phone_number,first_name\n${rows.join('')}`;
    expect(csv.length).toBeLessThan(UPLOAD_LIMIT);
    const uploaded = await upload(csv);
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.contact_list.rows).toBe(100_000);
    const created = await createCampaign({
      line_ids: [line.id],
      contact_list_id: uploaded.body.contact_list.id,
      start_at: '2999-01-01T00:00:00Z',
    });
    expect(created.status).toBe(201);
    expect(created.body.campaign.progress).toMatchObject({ total: 100_000, pending: 100_000 });
    const last = await h.request('GET', `/api/v1/campaigns/${created.body.campaign.id}/results?cursor=99999&limit=1`, {
      key: tenant.keys.test,
    });
    expect(last.body.results).toMatchObject([{ row: 100_000, to_number: '+14152099999', variables: { first_name: 'P99999' } }]);
    expect((await h.request('POST', `/api/v1/campaigns/${created.body.campaign.id}/cancel`, { key: tenant.keys.test })).status).toBe(200);
  }, 60_000);

  it('a list is read, listed and deleted: after the delete it is gone for new campaigns, and a campaign made before keeps its contacts', async () => {
    const line = await lines.create();
    const [ada, grace] = freshNumbers(2);
    const uploaded = await upload(`phone_number,first_name\n${ada},Ada\nnot a number,Bob\n${grace},Grace\n${ada},Ada again\n`);
    expect(uploaded.status).toBe(201);
    const record = uploaded.body.contact_list;
    expect(record).toMatchObject({ rows: 4, skipped: { invalid_number: 1, duplicate_number: 1 } });

    // Read as the upload answered it, and listed newest first.
    const got = await h.request('GET', `/api/v1/campaigns/contact-lists/${record.id}`, { key: tenant.keys.test });
    expect({ status: got.status, body: got.body }).toEqual({ status: 200, body: { contact_list: record } });
    const listed = await h.request('GET', '/api/v1/campaigns/contact-lists?limit=100', { key: tenant.keys.test });
    expect(listed.status).toBe(200);
    expect(listed.body.contact_lists[0]).toEqual(record);

    const future = { line_ids: [line.id], start_at: '2999-01-01T00:00:00Z' };
    const before = await createCampaign({ ...future, contact_list_id: record.id });
    expect(before.status).toBe(201);
    const campaignId = before.body.campaign.id as string;

    const deleted = await h.request('DELETE', `/api/v1/campaigns/contact-lists/${record.id}`, { key: tenant.keys.test });
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 200, body: { contact_list: record, deleted: true } });
    // Its rows are gone now, not at the purge.
    expect(await h.db('campaign_contact_list_rows').where({ list_id: record.id })).toEqual([]);

    const unknownId = crypto.randomUUID();
    const unknownGet = await h.request('GET', `/api/v1/campaigns/contact-lists/${unknownId}`, { key: tenant.keys.test });
    expect(unknownGet.status).toBe(404);
    expect(unknownGet.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    for (const method of ['GET', 'DELETE']) {
      const gone = await h.request(method, `/api/v1/campaigns/contact-lists/${record.id}`, { key: tenant.keys.test });
      expect({ method, status: gone.status, body: gone.body }).toEqual({ method, status: 404, body: unknownGet.body });
    }
    const after = await h.request('GET', '/api/v1/campaigns/contact-lists?limit=100', { key: tenant.keys.test });
    expect(after.body.contact_lists.map((l: { id: string }) => l.id)).not.toContain(record.id);

    // A campaign may no longer name it: refused as an id that names nothing.
    const late = await createCampaign({ ...future, contact_list_id: record.id });
    const never = await createCampaign({ ...future, contact_list_id: unknownId });
    expect({ status: late.status, fields: fieldsOf(late) }).toEqual({ status: 422, fields: ['contact_list_id'] });
    expect(late.body.error.details).toEqual(never.body.error.details);

    // The campaign created before keeps its copy of the rows.
    const results = await h.request('GET', `/api/v1/campaigns/${campaignId}/results`, { key: tenant.keys.test });
    expect(results.body.results).toMatchObject([
      { row: 1, to_number: ada, status: 'pending', variables: { first_name: 'Ada' } },
      { row: 2, to_number: 'not a number', outcome: 'skipped', skip_reason: 'invalid_number' },
      { row: 3, to_number: grace, status: 'pending', variables: { first_name: 'Grace' } },
      { row: 4, to_number: ada, outcome: 'skipped', skip_reason: 'duplicate_number' },
    ]);
    expect((await h.request('POST', `/api/v1/campaigns/${campaignId}/cancel`, { key: tenant.keys.test })).status).toBe(200);

    // The delete is in the compliance audit, with the key that made it and no number.
    const audit = await h.request('GET', '/api/v1/compliance/audit?event_type=contact_list_deleted&limit=100', { key: tenant.keys.test });
    const event = audit.body.events.find((e: { metadata?: { contact_list_id?: string } }) => e.metadata?.contact_list_id === record.id);
    expect(event).toMatchObject({
      event_type: 'contact_list_deleted',
      phone_number: null,
      metadata: { contact_list_id: record.id, rows: 4 },
    });
    expect(event.actor_key_id).toEqual(expect.any(String));
  });

  it('another workspace, or the other environment, gets 404 on a list exactly as on an unknown id, and cannot delete it', async () => {
    const uploaded = await upload(`phone_number\n${freshNumbers(1)[0]}\n`);
    const listId = uploaded.body.contact_list.id as string;
    const attacker = await createTenant(h.db);
    for (const key of [attacker.keys.test, attacker.keys.live, tenant.keys.live]) {
      for (const method of ['GET', 'DELETE']) {
        const theirs = await h.request(method, `/api/v1/campaigns/contact-lists/${listId}`, { key });
        const unknown = await h.request(method, `/api/v1/campaigns/contact-lists/${crypto.randomUUID()}`, { key });
        expect({ method, status: theirs.status, body: theirs.body }).toEqual({ method, status: 404, body: unknown.body });
      }
      const list = await h.request('GET', '/api/v1/campaigns/contact-lists?limit=100', { key });
      expect(list.text).not.toContain(listId);
    }
    // Not a UUID: the same 404.
    const malformed = await h.request('GET', '/api/v1/campaigns/contact-lists/not-a-uuid', { key: attacker.keys.test });
    expect({ status: malformed.status, code: malformed.body.error.code }).toEqual({ status: 404, code: 'not_found' });
    // Still the owner's, whole.
    const still = await h.request('GET', `/api/v1/campaigns/contact-lists/${listId}`, { key: tenant.keys.test });
    expect(still.body.contact_list).toEqual(uploaded.body.contact_list);
    expect(await h.db('campaign_contact_list_rows').where({ list_id: listId })).toHaveLength(1);
  });

  it('lists page newest first with a cursor, each list once; the typed client reads, lists and deletes', async () => {
    const other = await createTenant(h.db);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const made = await upload(`phone_number\n${freshNumbers(1)[0]}\n`, { key: other.keys.test });
      expect(made.status).toBe(201);
      ids.unshift(made.body.contact_list.id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await h.request(
        'GET',
        `/api/v1/campaigns/contact-lists?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        {
          key: other.keys.test,
        },
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.contact_lists.map((l: { id: string }) => l.id));
      if (!page.body.has_more) {
        expect(page.body.next_cursor).toBeNull();
        break;
      }
      expect(page.body.contact_lists).toHaveLength(2);
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(ids);
    expect((await h.request('GET', '/api/v1/campaigns/contact-lists?limit=101', { key: other.keys.test })).status).toBe(422);
    expect((await h.request('GET', '/api/v1/campaigns/contact-lists?cursor=nope', { key: other.keys.test })).status).toBe(422);

    const switchboard = createSwitchboardClient({ baseUrl: h.apiUrl, apiKey: other.keys.test });
    expect((await getContactList(switchboard, ids[0])).id).toBe(ids[0]);
    const first = await listContactLists(switchboard, { limit: 3 });
    expect({ ids: first.contact_lists.map((l) => l.id), has_more: first.has_more }).toEqual({ ids: ids.slice(0, 3), has_more: true });
    const rest = await listContactLists(switchboard, { limit: 3, cursor: first.next_cursor! });
    expect(rest.contact_lists.map((l) => l.id)).toEqual(ids.slice(3));
    expect(await deleteContactList(switchboard, ids[1])).toMatchObject({ id: ids[1], rows: 1 });
    const again = await deleteContactList(switchboard, ids[1]).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(SwitchboardApiError);
    expect(again).toMatchObject({ status: 404, code: 'not_found' });
    expect((await listContactLists(switchboard)).contact_lists.map((l) => l.id)).toEqual([ids[0], ...ids.slice(2)]);
  });

  // Last in the file: it moves the API's clock a week on.
  it('a list expires 7 days after its upload: no campaign may name it, and the hourly purge deletes it with its rows', async () => {
    const line = await lines.create();
    const uploaded = await upload(`phone_number\n${freshNumbers(1)[0]}\n`);
    expect(uploaded.status).toBe(201);
    const listId = uploaded.body.contact_list.id as string;
    h.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    const late = await createCampaign({ line_ids: [line.id], contact_list_id: listId, start_at: '2999-01-01T00:00:00Z' });
    expect({ status: late.status, fields: fieldsOf(late) }).toEqual({ status: 422, fields: ['contact_list_id'] });
    // Expired, it is gone before the purge runs: not read, not listed, not deleted.
    for (const method of ['GET', 'DELETE'])
      expect((await h.request(method, `/api/v1/campaigns/contact-lists/${listId}`, { key: tenant.keys.test })).status).toBe(404);
    const listed = await h.request('GET', '/api/v1/campaigns/contact-lists?limit=100', { key: tenant.keys.test });
    expect(listed.body.contact_lists.map((l: { id: string }) => l.id)).not.toContain(listId);
    // The maintenance activity's purge of lists (activities/maintenance.ts), at the moved clock.
    expect(await purgeExpiredContactLists(h.db, h.clock.now())).toBeGreaterThanOrEqual(1);
    expect(await h.db('campaign_contact_lists').where({ id: listId })).toEqual([]);
    expect(await h.db('campaign_contact_list_rows').where({ list_id: listId })).toEqual([]);
  });
});
